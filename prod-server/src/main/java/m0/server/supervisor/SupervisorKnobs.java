package m0.server.supervisor;

import java.util.Map;

/**
 * What the supervisor takes from outside its settings' typed reads, made once at start
 * ({@code M0serve}) and passed in: no part of the supervisor calls {@code System.getenv}, so a
 * test hook is visible where the supervisor is made, not buried in the code it steers.
 *
 * @param maxRespawns    {@code M0_TEST_MAX_RESPAWNS}, a test hook: respawns allowed over the
 *                       server's life (0: none); {@code Integer.MAX_VALUE} when unset
 * @param workerJavaOpts the worker JVMs' options: {@link JavaCommand#DEFAULT_OPTS}, then
 *                       {@code --worker-heap}, then {@code --worker-java-opts} ({@link JavaCommand#workerOptions})
 * @param environment    the environment as read: systemd's variables (socket activation,
 *                       notify) are read from it, and the workers inherit it less those
 */
public record SupervisorKnobs(int maxRespawns, String workerJavaOpts, Map<String, String> environment) {

    static final String MAX_RESPAWNS = "M0_TEST_MAX_RESPAWNS";

    /** Parses {@code env} (the process's, once, at start); a malformed number throws. The heap and options are checked settings. */
    public static SupervisorKnobs from(Map<String, String> env, String workerHeap, String workerJavaOpts) {
        String cap = env.get(MAX_RESPAWNS);
        int maxRespawns = cap == null || cap.isBlank() ? Integer.MAX_VALUE : Integer.parseInt(cap.trim());
        return new SupervisorKnobs(maxRespawns, JavaCommand.workerOptions(workerHeap, workerJavaOpts), env);
    }
}
