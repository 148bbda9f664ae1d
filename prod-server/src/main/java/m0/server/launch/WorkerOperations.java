package m0.server.launch;

import java.util.List;

/**
 * The operator's settings a worker is told beside its {@link WorkerSpec} (docs/adr/0017):
 * whether it counts requests for the supervisor's metrics, and where it writes its access
 * log. Extra {@code key=value} arguments on the worker's command line; {@link WorkerSpec#parse}
 * ignores keys it does not know.
 *
 * @param accessLog    a file, "-" for standard output, or null
 * @param appClasspath the app's own jars and directories ({@code :}-separated), or null
 */
public record WorkerOperations(boolean metrics, String accessLog, String appClasspath) {

    public List<String> toArgs() {
        return List.of("metrics=" + metrics, "access-log=" + (accessLog == null ? "" : accessLog),
                "app-classpath=" + (appClasspath == null ? "" : appClasspath));
    }

    public static WorkerOperations parse(String[] args) {
        boolean metrics = false;
        String log = null;
        String appClasspath = null;
        for (String a : args) {
            if (a.startsWith("metrics=")) {
                metrics = Boolean.parseBoolean(a.substring("metrics=".length()));
            } else if (a.startsWith("access-log=") && a.length() > "access-log=".length()) {
                log = a.substring("access-log=".length());
            } else if (a.startsWith("app-classpath=") && a.length() > "app-classpath=".length()) {
                appClasspath = a.substring("app-classpath=".length());
            }
        }
        return new WorkerOperations(metrics, log, appClasspath);
    }

    /** Anything to record per request at all: without it the loop pays nothing. */
    public boolean recording() {
        return metrics || accessLog != null;
    }
}
