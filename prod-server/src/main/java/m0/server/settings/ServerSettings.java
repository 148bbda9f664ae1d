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
            "A started request head must complete within this, else 408; so must a TLS handshake from its first byte, else the connection is closed.");
    public static final Setting BODY_TIMEOUT_MS = Setting.number("body-timeout-ms", 10000, 1, NONE, "MS",
            "A request body that receives nothing for this long gets 408.");
    public static final Setting MAX_BODY_BYTES = Setting.number("max-body-bytes", 1048576, 0, INT_MAX - 64, "BYTES",
            "Request body limit (decoded); past it: 413.");
    public static final Setting GRACE_MS = Setting.number("grace-ms", 10000, 0, NONE, "MS",
            "On SIGTERM, how long workers finish in-flight requests.");
    public static final Setting DRAIN_DELAY_MS = Setting.number("drain-delay-ms", 0, 0, 600_000, "MS",
            "On SIGTERM or SIGINT, serve on (accepting too) this long with /readyz at 503, so a load balancer "
                    + "stops sending before the listener closes; a second signal ends it early. Then the "
                    + "grace.").supervisorOnly();
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
            "Pin the loop thread of the worker of rank r to the r-th CPU this process may use (its other threads, "
                    + "an app's pools among them, run free); auto: when there is one worker per CPU and the app is no "
                    + "--main (docs/adr/0058, 0070).", "auto", "on", "off").supervisorOnly();
    public static final Setting WORKER_HEAP = Setting.heap("worker-heap", "512m",
            "Each worker JVM's maximum heap (-Xmx), after the workers' default JVM options.").supervisorOnly();
    public static final Setting WORKER_JAVA_OPTS = Setting.text("worker-java-opts", null, "OPTIONS",
            "More JVM options for each worker, blank-separated, after the defaults and --worker-heap (where "
                    + "they set the same, these win).").supervisorOnly();

    public static final Setting PID_FILE = Setting.text("pid-file", null, "FILE",
            "Write the supervisor's pid there once bound, remove it at exit; 'm0serve stats|stop|reload "
                    + "--pid-file FILE' (or --bind) find the server by it. Unset: none.").supervisorOnly();
    public static final Setting TLS_CERT = Setting.text("tls-cert", null, "FILE[,FILE...]",
            "Serve TLS 1.3 and 1.2 with this PEM certificate (its chain after it); needs --tls-key. "
                    + "Several, comma-separated: each client gets the one its SNI host name picks, the first "
                    + "when it sends none or one no certificate has. SIGHUP reads the files again (their names "
                    + "are fixed at start). "
                    + "Unset: plain HTTP (docs/adr/0069).");
    public static final Setting TLS_KEY = Setting.text("tls-key", null, "FILE[,FILE...]",
            "The private key of --tls-cert (one per certificate, in the same order): unencrypted PKCS#8 PEM "
                    + "(RSA or EC), or PKCS#1 RSA PEM.");
    public static final Setting TLS_TICKET_KEY = Setting.text("tls-ticket-key", null, "FILE[,FILE...]",
            "Session-ticket keys, one per file of 48 random bytes ('openssl rand 48 > FILE'), as nginx's "
                    + "ssl_session_ticket_key: servers given the same files resume each other's sessions. The first "
                    + "file's key seals new tickets, every file's key opens them; SIGHUP reads the files again, their names "
                    + "fixed at start (to rotate: a new first file, the old one after it). Unset: the supervisor makes a key every hour "
                    + "and keeps the two before it (docs/adr/0073).");

    // --- a developer's: hidden, command line only ---

    public static final Setting DEV_NATIVE_FALLBACKS = Setting.text("dev-native-fallbacks", null, "NAMES",
            "Take these fallbacks though the new calls exist: epoll_pwait2, closefrom, pidfd, io_uring, "
                    + "boringssl (the JDK's TLS engine) (comma-separated; docs/adr/0060, 0073).").dev();
    public static final Setting DEV_TLS_TICKET_ROTATE_MS = Setting.number("dev-tls-ticket-rotate-ms", 0, 0, 86_400_000L,
            "MS", "The supervisor makes a new current session-ticket key this often; 0: every hour (ADR 0073).")
            .dev().supervisorOnly();
    public static final Setting DEV_TLS_OWN_TICKET_KEYS = Setting.onOff("dev-tls-own-ticket-keys", false,
            "Each worker seals tickets with keys of its own, not the supervisor's (ADR 0073's negative control).")
            .dev();
    public static final Setting DEV_MAIN_START_MS = Setting.number("dev-main-start-ms", 0, 0, NONE, "MS",
            "How long --main's main may take to start its HttpServer; 0: the worker's 60 s.").dev();
    public static final Setting DEV_MAX_RESPAWNS = Setting.number("dev-max-respawns", "unlimited", 0, 1_000_000, "N",
            "Respawns allowed over the server's life (a test's: a crash stays crashed).", "unlimited")
            .dev().supervisorOnly();
    public static final Setting DEV_START_TRACE = Setting.onOff("dev-start-trace", false,
            "Each JVM prints where its start went, one line a phase (docs/adr/0027).").dev();
    public static final Setting DEV_EAGER_READ = Setting.onOff("dev-eager-read", false,
            "Read a new connection at once instead of when epoll reports it (ADR 0033's A/B arm).").dev();
    public static final Setting DEV_LISTEN_EXCLUSIVE = Setting.onOff("dev-listen-exclusive", true,
            "The listener with EPOLLEXCLUSIVE under share and race; off: the herd (ADR 0022's A/B arm).").dev();
    public static final Setting DEV_WARM_UP = Setting.onOff("dev-warm-up", true,
            "The warm-up before a worker's start (ADR 0016's A/B arm).").dev();
    public static final Setting DEV_RING_SENDS = Setting.onOff("dev-ring-sends", true,
            "A pass's answers sent together through io_uring; off: each with write(2) (ADR 0049's A/B arm).").dev();
    public static final Setting DEV_PAIR_AT = Setting.number("dev-pair-at", 256, 0, 1024, "N",
            "The request at which a connection's affinity is read; 0: never, so rebalance never swaps "
                    + "(ADR 0057's A/B arm).").dev();
    public static final Setting DEV_PAIR_REREAD = Setting.number("dev-pair-reread", 0, 0, 1_000_000, "N",
            "Read a connection's affinity again every N requests; 0: never.").dev();
    public static final Setting DEV_ARM_GAP_MS = Setting.number("dev-arm-gap-ms", 0, 0, 600_000, "MS",
            "Hold a worker that long between its bind and its start (a slow app's import).").dev();
    public static final Setting DEV_ARM_GAP_INDEX = Setting.number("dev-arm-gap-index", "all", 0, 255, "all|INDEX",
            "Which worker --dev-arm-gap-ms holds.", "all").dev();
    public static final Setting DEV_DIE_AT_START_INDEX = Setting.number("dev-die-at-start-index", "none", 0, 255,
            "none|INDEX", "That worker exits 1 right after its start (a respawn storm).", "none").dev();
    public static final Setting DEV_LOOK_LATE_MS = Setting.number("dev-look-late-ms", 0, 0, 600_000, "MS",
            "Fountain's looks that much after the core's deadline (the takeover test's negative control).").dev();
    public static final Setting DEV_KEEP_RECEIVED_REGISTERED = Setting.onOff("dev-keep-received-registered", false,
            "A received connection is closed without leaving the epoll set first (ADR 0034's negative control).")
            .dev();
    public static final Setting DEV_HOLD_SENT_COPY_MS = Setting.number("dev-hold-sent-copy-ms", 0, 0, 600_000, "MS",
            "A sender parks that long between a hand-off's sendmsg and the close of its copy.").dev();
    public static final Setting DEV_HIDE_HELD = Setting.onOff("dev-hide-held", false,
            "A worker whose listener is out for its own reasons does not say so on the page (ADR 0038's "
                    + "negative control).").dev();

    /** In the order of --help and docs/settings.md. */
    static final List<Setting> ALL = List.of(CONFIG, BIND, WORKERS, APP, MAIN, APP_CLASSPATH, BLOCKING_THREADS,
            ACCEPT_POLICY, MAX_HEADER_BYTES, IDLE_TIMEOUT_MS, HEADER_TIMEOUT_MS, BODY_TIMEOUT_MS, MAX_BODY_BYTES,
            GRACE_MS, DRAIN_DELAY_MS, MAX_CONNECTIONS, METRICS_BIND, ACCESS_LOG, REBALANCE, DEFER_ACCEPT, CPU_AFFINITY, WORKER_HEAP,
            WORKER_JAVA_OPTS, PID_FILE, TLS_CERT, TLS_KEY, TLS_TICKET_KEY, DEV_NATIVE_FALLBACKS, DEV_MAIN_START_MS, DEV_MAX_RESPAWNS, DEV_START_TRACE,
            DEV_EAGER_READ, DEV_LISTEN_EXCLUSIVE, DEV_WARM_UP, DEV_RING_SENDS, DEV_PAIR_AT, DEV_PAIR_REREAD,
            DEV_ARM_GAP_MS, DEV_ARM_GAP_INDEX, DEV_DIE_AT_START_INDEX, DEV_LOOK_LATE_MS,
            DEV_KEEP_RECEIVED_REGISTERED, DEV_HOLD_SENT_COPY_MS, DEV_HIDE_HELD, DEV_TLS_TICKET_ROTATE_MS,
            DEV_TLS_OWN_TICKET_KEYS);

    private ServerSettings() {
    }
}
