package m0.server.supervisor;

import java.util.Map;

/**
 * What the supervisor takes from its environment, read once at start ({@code M0serve}) and
 * passed in: no part of the supervisor calls {@code System.getenv}, so a test hook is visible
 * where the supervisor is made, not buried in the code it steers.
 *
 * @param maxRespawns    {@code M0_TEST_MAX_RESPAWNS}, a test hook: respawns allowed over the
 *                       server's life (0: none); {@code Integer.MAX_VALUE} when unset
 * @param workerJavaOpts {@code M0_WORKER_JAVA_OPTS}: the worker JVMs' options, replacing
 *                       {@link JavaCommand#DEFAULT_OPTS} (docs/adr/0011)
 * @param environment    the environment as read: systemd's variables (socket activation,
 *                       notify) are read from it, and the workers inherit it less those
 */
public record SupervisorKnobs(int maxRespawns, String workerJavaOpts, Map<String, String> environment) {

    static final String MAX_RESPAWNS = "M0_TEST_MAX_RESPAWNS";
    static final String WORKER_JAVA_OPTS = "M0_WORKER_JAVA_OPTS";

    /** Parses {@code env} (the process's, once, at start); a malformed number throws. */
    public static SupervisorKnobs from(Map<String, String> env) {
        String cap = env.get(MAX_RESPAWNS);
        int maxRespawns = cap == null || cap.isBlank() ? Integer.MAX_VALUE : Integer.parseInt(cap.trim());
        return new SupervisorKnobs(maxRespawns, env.getOrDefault(WORKER_JAVA_OPTS, JavaCommand.DEFAULT_OPTS), env);
    }
}
