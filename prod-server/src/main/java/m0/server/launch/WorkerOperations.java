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
 * @param mainClass    {@code --main}: the app's class whose {@code main} the worker runs, or null
 * @param mainArgs     the arguments after {@code --}, for that {@code main}
 * @param nativeFallbacks the hidden {@code --native-fallbacks}: the fallbacks of calls newer than
 *                     the floor forced on (docs/adr/0060), comma-separated; "" for none
 * @param mainStartMillis how long that {@code main} may take to start its server; 0: the
 *                     worker's default (a hidden developer option, {@code --dev-main-start-ms})
 */
public record WorkerOperations(boolean metrics, String accessLog, String appClasspath, String mainClass,
                               List<String> mainArgs, String nativeFallbacks, long mainStartMillis) {

    public WorkerOperations {
        mainArgs = List.copyOf(mainArgs);
        nativeFallbacks = nativeFallbacks == null ? "" : nativeFallbacks;
    }

    public WorkerOperations(boolean metrics, String accessLog, String appClasspath, String mainClass,
                            List<String> mainArgs) {
        this(metrics, accessLog, appClasspath, mainClass, mainArgs, "", 0);
    }

    public WorkerOperations(boolean metrics, String accessLog, String appClasspath) {
        this(metrics, accessLog, appClasspath, null, List.of(), "", 0);
    }

    public List<String> toArgs() {
        List<String> a = new java.util.ArrayList<>(List.of("metrics=" + metrics,
                "access-log=" + (accessLog == null ? "" : accessLog),
                "app-classpath=" + (appClasspath == null ? "" : appClasspath)));
        if (mainClass != null) {
            a.add("main=" + mainClass);
            for (String m : mainArgs) {
                a.add("main-arg=" + m); // one each, in order: any text, '=' and spaces included
            }
            if (mainStartMillis > 0) {
                a.add("main-start-ms=" + mainStartMillis);
            }
        }
        if (!nativeFallbacks.isEmpty()) {
            a.add("native-fallbacks=" + nativeFallbacks); // absent unless a developer forced one
        }
        return a;
    }

    public static WorkerOperations parse(String[] args) {
        boolean metrics = false;
        String log = null;
        String appClasspath = null;
        String main = null;
        List<String> mainArgs = new java.util.ArrayList<>();
        String fallbacks = "";
        long mainStartMillis = 0;
        for (String a : args) {
            if (a.startsWith("main-arg=")) {
                mainArgs.add(a.substring("main-arg=".length()));
            } else if (a.startsWith("main-start-ms=")) {
                mainStartMillis = Long.parseLong(a.substring("main-start-ms=".length()));
            } else if (a.startsWith("main=") && a.length() > "main=".length()) {
                main = a.substring("main=".length());
            } else if (a.startsWith("metrics=")) {
                metrics = Boolean.parseBoolean(a.substring("metrics=".length()));
            } else if (a.startsWith("access-log=") && a.length() > "access-log=".length()) {
                log = a.substring("access-log=".length());
            } else if (a.startsWith("app-classpath=") && a.length() > "app-classpath=".length()) {
                appClasspath = a.substring("app-classpath=".length());
            } else if (a.startsWith("native-fallbacks=")) {
                fallbacks = a.substring("native-fallbacks=".length());
            }
        }
        return new WorkerOperations(metrics, log, appClasspath, main, mainArgs, fallbacks, mainStartMillis);
    }

    /** Anything to record per request at all: without it the loop pays nothing. */
    public boolean recording() {
        return metrics || accessLog != null;
    }
}
