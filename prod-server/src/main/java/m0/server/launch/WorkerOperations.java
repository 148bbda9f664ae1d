package m0.server.launch;

import java.util.List;
import m0.server.settings.ServerSettings;

/**
 * The operator's settings a worker reads beside the HTTP ones (docs/adr/0017), taken from its
 * {@link WorkerSpec}: whether it counts requests for the supervisor's metrics, where it writes
 * its access log, where the app's classes are, {@code --main}'s class and arguments.
 *
 * @param accessLog    a file, "-" for standard output, or null
 * @param appClasspath the app's own jars and directories ({@code :}-separated), or null
 * @param mainClass    {@code --main}: the app's class whose {@code main} the worker runs, or null
 * @param mainArgs     the arguments after {@code --}, for that {@code main}
 * @param nativeFallbacks the hidden {@code --dev-native-fallbacks}: the fallbacks of calls newer
 *                     than the floor forced on (docs/adr/0060), comma-separated; "" for none
 * @param mainStartMillis how long that {@code main} may take to start its server; 0: the
 *                     worker's default (a hidden developer option, {@code --dev-main-start-ms})
 */
public record WorkerOperations(boolean metrics, String accessLog, String appClasspath, String mainClass,
                               List<String> mainArgs, String nativeFallbacks, long mainStartMillis) {

    public WorkerOperations {
        mainArgs = List.copyOf(mainArgs);
        nativeFallbacks = nativeFallbacks == null ? "" : nativeFallbacks;
    }

    public WorkerOperations(boolean metrics, String accessLog, String appClasspath) {
        this(metrics, accessLog, appClasspath, null, List.of(), "", 0);
    }

    /** What {@code spec} says. */
    public static WorkerOperations of(WorkerSpec spec) {
        var s = spec.settings();
        return new WorkerOperations(spec.metrics(), s.text(ServerSettings.ACCESS_LOG),
                s.text(ServerSettings.APP_CLASSPATH), s.text(ServerSettings.MAIN), spec.mainArgs(),
                s.text(ServerSettings.DEV_NATIVE_FALLBACKS), s.number(ServerSettings.DEV_MAIN_START_MS));
    }

    /** Anything to record per request at all: without it the loop pays nothing. */
    public boolean recording() {
        return metrics || accessLog != null;
    }
}
