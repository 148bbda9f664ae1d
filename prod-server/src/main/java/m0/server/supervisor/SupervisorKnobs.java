package m0.server.supervisor;

import java.util.Map;

/**
 * What the supervisor takes beside the server's settings, made once at start ({@code M0serve})
 * and passed in: no part of the supervisor calls {@code System.getenv}.
 *
 * @param maxRespawns    the hidden {@code --dev-max-respawns}, a test's: respawns allowed over
 *                       the server's life (0: none); {@code Integer.MAX_VALUE} when unlimited
 * @param workerJavaOpts the worker JVMs' options: {@link JavaCommand#DEFAULT_OPTS}, then
 *                       {@code --worker-heap}, then {@code --worker-java-opts} ({@link JavaCommand#workerOptions})
 * @param environment    the environment as read: systemd's variables (socket activation,
 *                       notify) are read from it, and the workers inherit it less those
 */
public record SupervisorKnobs(int maxRespawns, String workerJavaOpts, Map<String, String> environment) {

    /** {@code maxRespawns} negative: unlimited. The heap and options are checked settings. */
    public static SupervisorKnobs of(Map<String, String> env, long maxRespawns, String workerHeap, String workerJavaOpts) {
        return new SupervisorKnobs(maxRespawns < 0 ? Integer.MAX_VALUE : (int) maxRespawns,
                JavaCommand.workerOptions(workerHeap, workerJavaOpts), env);
    }
}
