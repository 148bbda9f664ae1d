package m0.server.settings;

import java.util.List;

/**
 * The server's settings, each declared once (docs/adr/0065). Everything else is made from
 * these: the command line, the config file, {@code M0SERVE_*}, the workers' launch contract,
 * {@code --help} and docs/settings.md ({@code SettingsPageTest} keeps that page in step).
 *
 * <p>The {@code dev-*} settings are a developer's: fault injection for the tests' negative
 * controls and the benchmarks' A/B arms (prod-server/bench/README.md). They are hidden from
 * {@code --help}, taken from the command line only, and passed on to the workers when not at
 * their default, so that no test hook is read from an operator's environment.
 */
public final class ServerSettings {

    private static final long INT_MAX = Integer.MAX_VALUE;
    private static final long NONE = Setting.UNBOUNDED;

    public static final Setting CONFIG = Setting.text("config", null, "FILE",
            "A file of 'name = value' lines (java.util.Properties), one per setting below; the command line "
                    + "and M0SERVE_* win over it.").notInFile().supervisorOnly();
    public static final Setting BIND = Setting.hostPort("bind", "127.0.0.1:8080",
            "Address to listen on; port 0 picks a free one.").supervisorOnly();
    public static final Setting WORKERS = Setting.number("workers", 1, 1, 256, "N",
            "Worker processes.").supervisorOnly();
    public static final Setting APP = Setting.text("app", "builtin", "CLASS",
            "Application class (m0.server.http.App), or 'builtin'.");
    public static final Setting BLOCKING_THREADS = Setting.number("blocking-threads", 2, 0, 1024, "N",
            "Blocking-pool threads per worker for App.blocking requests; 0 runs them inline.");
    public static final Setting ACCEPT_POLICY = Setting.word("accept-policy", m0.core.AcceptPolicy.defaultName(),
            "Who serves an accepted connection: 'share' (least loaded; so workers added by SIGTTIN share), "
                    + "'race' (the acceptor) or 'fountain' (workers fill in index order; for many short-lived "
                    + "connections).", "share", "race", "fountain");
    public static final Setting MAX_HEADER_BYTES = Setting.number("max-header-bytes", 16384, 256, INT_MAX, "BYTES",
            "Request line + headers limit; past it: 431.");
    public static final Setting IDLE_TIMEOUT_MS = Setting.number("idle-timeout-ms", 5000, 1, NONE, "MS",
            "Keep-alive idle timeout.");
    public static final Setting HEADER_TIMEOUT_MS = Setting.number("header-timeout-ms", 10000, 1, NONE, "MS",
            "A started request head must complete within this; else 408.");
    public static final Setting BODY_TIMEOUT_MS = Setting.number("body-timeout-ms", 10000, 1, NONE, "MS",
            "A request body that receives nothing for this long gets 408.");
    public static final Setting MAX_BODY_BYTES = Setting.number("max-body-bytes", 1048576, 0, INT_MAX - 64, "BYTES",
            "Request body limit (decoded); past it: 413.");
    public static final Setting GRACE_MS = Setting.number("grace-ms", 10000, 0, NONE, "MS",
            "On SIGTERM, how long workers finish in-flight requests.");
    public static final Setting MAX_CONNECTIONS = Setting.number("max-connections", 0, 0, NONE, "N",
            "Open connections per worker past which it stops accepting (it still takes hand-offs); 0: "
                    + "RLIMIT_NOFILE less what the worker holds and a reserve.");
    public static final Setting METRICS_BIND = Setting.hostPort("metrics-bind", null,
            "Serve Prometheus metrics at http://HOST:PORT/metrics from the supervisor; port 0 picks one (printed "
                    + "on stdout). Unset: off.").supervisorOnly();
    public static final Setting ACCESS_LOG = Setting.text("access-log", null, "PATH|-",
            "Combined log format plus request time (µs) and worker index, appended to PATH or written to "
                    + "stdout ('-'); SIGUSR1 reopens it. Unset: off.");
    public static final Setting APP_CLASSPATH = Setting.text("app-classpath", null, "JARS_OR_DIRS",
            "Where --app's or --main's class and its dependencies are, ':'-separated jars and directories, "
                    + "loaded apart from m0serve's own classes (docs/apps.md).");
    public static final Setting MAIN = Setting.text("main", null, "CLASS",
            "Run this class's own main in each worker (with the arguments after --), m0's "
                    + "com.sun.net.httpserver provider in force (docs/apps.md). Instead of --app.");
    public static final Setting REBALANCE = Setting.onOff("rebalance", true,
            "Workers hand idle keep-alive connections to a lighter sibling until the loads are even within one "
                    + "(after a cold start, a crash, SIGTTIN); 'off' for an A/B.");
    public static final Setting DEFER_ACCEPT = Setting.number("defer-accept", "auto", 0, 60, "auto|SECONDS",
            "TCP_DEFER_ACCEPT on the listener, a systemd socket's too: a connection is accepted when its request "
                    + "arrives or after about this long; 0: at the handshake; auto: 1 while every share worker's "
                    + "arrivals close short, else 0 (docs/adr/0056).", "auto");
    public static final Setting CPU_AFFINITY = Setting.word("cpu-affinity", "auto",
            "Pin the worker of rank r to the r-th CPU this process may use; auto: when there is one worker per "
                    + "CPU (docs/adr/0058).", "auto", "on", "off").supervisorOnly();
    public static final Setting WORKER_HEAP = Setting.heap("worker-heap", "512m",
            "Each worker JVM's maximum heap (-Xmx), after the workers' default JVM options.").supervisorOnly();
    public static final Setting WORKER_JAVA_OPTS = Setting.text("worker-java-opts", null, "OPTIONS",
            "More JVM options for each worker, blank-separated, after the defaults and --worker-heap (where "
                    + "they set the same, these win).").supervisorOnly();

    // --- a developer's: hidden, command line only ---

    public static final Setting DEV_NATIVE_FALLBACKS = Setting.text("dev-native-fallbacks", null, "NAMES",
            "Take these fallbacks though the new calls exist: epoll_pwait2, closefrom, pidfd, io_uring "
                    + "(comma-separated; docs/adr/0060).").dev();
    public static final Setting DEV_MAIN_START_MS = Setting.number("dev-main-start-ms", 0, 0, NONE, "MS",
            "How long --main's main may take to start its HttpServer; 0: the worker's 60 s.").dev();
    /** In the order of --help and docs/settings.md. */
    static final List<Setting> ALL = List.of(CONFIG, BIND, WORKERS, APP, MAIN, APP_CLASSPATH, BLOCKING_THREADS,
            ACCEPT_POLICY, MAX_HEADER_BYTES, IDLE_TIMEOUT_MS, HEADER_TIMEOUT_MS, BODY_TIMEOUT_MS, MAX_BODY_BYTES,
            GRACE_MS, MAX_CONNECTIONS, METRICS_BIND, ACCESS_LOG, REBALANCE, DEFER_ACCEPT, CPU_AFFINITY, WORKER_HEAP,
            WORKER_JAVA_OPTS, DEV_NATIVE_FALLBACKS, DEV_MAIN_START_MS);

    private ServerSettings() {
    }
}
