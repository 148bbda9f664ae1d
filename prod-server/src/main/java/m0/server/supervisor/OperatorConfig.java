package m0.server.supervisor;

import java.net.InetAddress;

/**
 * The operator's settings beside the server's own (validated): where the supervisor serves
 * Prometheus metrics, where workers write the access log, where the app's classes are.
 *
 * @param metricsHost null: no metrics endpoint
 * @param metricsPort 0 picks a free port (printed on stdout)
 * @param accessLog   a file, "-" for standard output, or null: no access log
 * @param mainClass   {@code --main}: the app class whose own {@code main} each worker runs, or null
 * @param mainArgs    its arguments (after {@code --})
 * @param mainStartMillis how long that main may take to start its server; 0: the worker's
 *                    default ({@code --dev-main-start-ms}, hidden: for tests of the bound)
 * @param tls         {@code --tls-cert} and {@code --tls-key} (ADR 0069), checked; {@code TlsFiles.NONE}: plain
 */
public record OperatorConfig(InetAddress metricsHost, int metricsPort, String accessLog, String appClasspath,
                             String mainClass, java.util.List<String> mainArgs, long mainStartMillis,
                             m0.server.tls.TlsFiles tls) {

    /** Nothing beyond what the server always does. */
    public static final OperatorConfig NONE = new OperatorConfig(null, 0, null, null);

    public OperatorConfig {
        mainArgs = java.util.List.copyOf(mainArgs);
        tls = tls == null ? m0.server.tls.TlsFiles.NONE : tls;
    }

    public OperatorConfig(InetAddress metricsHost, int metricsPort, String accessLog, String appClasspath) {
        this(metricsHost, metricsPort, accessLog, appClasspath, null, java.util.List.of(), 0, null);
    }

    public boolean metrics() {
        return metricsHost != null;
    }
}
