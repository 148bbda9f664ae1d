package m0.server.supervisor;

import java.util.ArrayList;
import java.util.List;

/**
 * How a worker JVM is started: this JVM's own java binary and class path, the worker's JVM
 * options ({@code M0_WORKER_JAVA_OPTS} replaces the defaults), and its main class after.
 */
final class JavaCommand {

    /** Serial GC: a worker is one loop thread and a small pool; no perf-data file in /tmp. */
    static final String DEFAULT_OPTS = "-XX:+UseSerialGC -Xss512k -XX:-UsePerfData -Xmx512m";

    private JavaCommand() {
    }

    static List<String> workerPrefix() {
        List<String> argv = new ArrayList<>();
        argv.add(ProcessHandle.current().info().command()
                .orElse(System.getProperty("java.home") + "/bin/java"));
        String opts = System.getenv().getOrDefault("M0_WORKER_JAVA_OPTS", DEFAULT_OPTS);
        for (String o : opts.trim().split("\\s+")) {
            if (!o.isEmpty()) {
                argv.add(o);
            }
        }
        String extract = System.getProperty("jffi.extract.dir");
        if (extract != null) {
            argv.add("-Djffi.extract.dir=" + extract);
        }
        argv.add("-cp");
        argv.add(System.getProperty("java.class.path"));
        return argv;
    }
}
