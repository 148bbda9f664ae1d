package m0.server.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.concurrent.Callable;
import m0.core.AcceptPolicy;
import m0.server.jnr.NativePaths;
import m0.server.supervisor.CpuPlacement;
import m0.server.supervisor.OperatorConfig;
import m0.server.supervisor.ServerConfig;
import m0.server.supervisor.Supervisor;
import m0.server.supervisor.SupervisorKnobs;
import m0.server.log.StartTrace;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/** {@code m0serve}: the command line. Starts the supervisor, which starts the workers. */
@Command(name = "m0serve", mixinStandardHelpOptions = true, versionProvider = M0serve.Version.class,
        sortOptions = false, subcommands = {m0.server.probe.ProbeCommand.class, m0.server.stats.StatsCommand.class,
            m0.server.control.StopCommand.class, m0.server.control.ReloadCommand.class},
        description = "A prefork HTTP/1.1 server: one supervisor, N worker JVMs sharing one listener.")
public final class M0serve implements Callable<Integer> {

    /** Exit status for a usage error (a bad flag or value). */
    public static final int EXIT_USAGE = 2;

    static final String BUILTIN = "builtin";

    /** --defer-accept's cap: a silent client is held up to the next retransmit past it (63 s at 60), then timed out. */
    static final int MAX_DEFER_ACCEPT_SECONDS = 60;
    private static final String AUTO = "auto";

    @Option(names = "--bind", paramLabel = "HOST:PORT",
            description = "Address to listen on; port 0 picks a free one (default: ${DEFAULT-VALUE}).")
    String bind = "127.0.0.1:8080";

    @Option(names = "--workers", paramLabel = "N",
            description = "Worker processes (default: ${DEFAULT-VALUE}).")
    int workers = 1;

    @Option(names = "--app", paramLabel = "CLASS",
            description = "Application class (m0.server.http.App), or 'builtin' (default).")
    String app = BUILTIN;

    @Option(names = "--blocking-threads", paramLabel = "N",
            description = "Blocking-pool threads per worker for App.blocking requests; 0 runs them inline "
                    + "(default: ${DEFAULT-VALUE}).")
    int blockingThreads = 2;

    @Option(names = "--accept-policy", paramLabel = "share|race|fountain",
            description = "Who serves an accepted connection: 'share' (least loaded; the default for any "
                    + "worker count, so workers added by SIGTTIN share), 'race' (the acceptor; M0_ACCEPT_SHARE=0 "
                    + "forces it) or 'fountain' (workers fill in index order; for many short-lived connections).")
    String acceptPolicy;

    @Option(names = "--max-header-bytes", paramLabel = "BYTES",
            description = "Request line + headers limit; past it: 431 (default: ${DEFAULT-VALUE}).")
    int maxHeaderBytes = 16384;

    @Option(names = "--idle-timeout-ms", paramLabel = "MS",
            description = "Keep-alive idle timeout (default: ${DEFAULT-VALUE}).")
    long idleTimeoutMillis = 5000;

    @Option(names = "--header-timeout-ms", paramLabel = "MS",
            description = "A started request head must complete within this; else 408 (default: ${DEFAULT-VALUE}).")
    long headerTimeoutMillis = 10000;

    @Option(names = "--body-timeout-ms", paramLabel = "MS",
            description = "A request body that receives nothing for this long gets 408 (default: ${DEFAULT-VALUE}).")
    long bodyTimeoutMillis = 10000;

    @Option(names = "--max-body-bytes", paramLabel = "BYTES",
            description = "Request body limit (decoded); past it: 413 (default: ${DEFAULT-VALUE}).")
    long maxBodyBytes = 1048576;

    @Option(names = "--grace-ms", paramLabel = "MS",
            description = "On SIGTERM, how long workers finish in-flight requests (default: ${DEFAULT-VALUE}).")
    long graceMillis = 10000;

    @Option(names = "--max-connections", paramLabel = "N",
            description = "Open connections per worker past which it stops accepting (it still takes "
                    + "hand-offs); 0: RLIMIT_NOFILE less what the worker holds and a reserve (default).")
    long maxConnections = 0;

    @Option(names = "--metrics-bind", paramLabel = "HOST:PORT",
            description = "Serve Prometheus metrics at http://HOST:PORT/metrics from the supervisor; port 0 picks "
                    + "one (printed on stdout). Default: off.")
    String metricsBind;

    @Option(names = "--access-log", paramLabel = "PATH|-",
            description = "Combined log format plus request time (µs) and worker index, appended to PATH or "
                    + "written to stdout ('-'); SIGUSR1 reopens it. Default: off.")
    String accessLog;

    @Option(names = "--app-classpath", paramLabel = "JARS_OR_DIRS",
            description = "Where --app's class and its dependencies are, ':'-separated jars and directories, "
                    + "loaded apart from m0serve's own classes (docs/apps.md).")
    String appClasspath;

    @Option(names = "--rebalance", paramLabel = "on|off",
            description = "Workers hand idle keep-alive connections to a lighter sibling until the "
                    + "loads are even within one (after a cold start, a crash, SIGTTIN); 'off' for A/B "
                    + "(default: ${DEFAULT-VALUE}).")
    String rebalance = "on";

    @Option(names = "--defer-accept", paramLabel = "auto|SECONDS",
            description = "TCP_DEFER_ACCEPT on the listener: a connection is accepted when its request "
                    + "arrives, or after about this long (the kernel rounds up to its SYN-ACK retransmits: 1, 3, 7, "
                    + "15 s...) if nothing does; 0: at the handshake; auto: 1 while every share worker's arrivals "
                    + "close short, else 0 (docs/adr/0056). A socket systemd passes is set alike, whatever its unit's "
                    + "DeferAcceptSec= (default: ${DEFAULT-VALUE}).")
    String deferAccept = AUTO;

    @Option(names = "--cpu-affinity", paramLabel = "auto|on|off",
            description = "Pin the loop thread of the worker of rank r (index order) to the r-th CPU this process may "
                    + "use, so a keep-alive client and the worker it is paired with share a CPU; its other threads run "
                    + "free; auto: when there is one worker per CPU (docs/adr/0058, 0070) (default: ${DEFAULT-VALUE}).")
    String cpuAffinity = AUTO;

    @Option(names = "--main", paramLabel = "CLASS",
            description = "Run this class's own main in each worker (with the arguments after --), m0's "
                    + "com.sun.net.httpserver provider in force: the HttpServer it creates is served on the "
                    + "worker's share of --bind (docs/apps.md). Instead of --app; needs --app-classpath.")
    String mainClass;

    // ---- issue 46 item 3 (operating; docs/adr/0067): to be ported into the settings model ----
    @Option(names = "--pid-file", paramLabel = "FILE",
            description = "Write the supervisor's pid here once the port is bound; removed at exit. "
                    + "'m0serve stats|stop|reload --pid-file FILE' (or --bind) find the server by it. Default: none.")
    String pidFile;
    // ---- end of issue 46 item 3 ----

    /** A developer's: forces fallbacks of calls newer than the floor on a machine that has them (docs/adr/0060). */
    @Option(names = "--native-fallbacks", paramLabel = "NAMES", hidden = true,
            description = "Take these fallbacks though the new calls exist: epoll_pwait2, closefrom, pidfd, io_uring "
                    + "(comma-separated). For tests; passed on to the workers.")
    String nativeFallbacks = "";

    /** Hidden, for developers' tests: --main's bound on its start, shorter than the worker's 60 s. */
    @Option(names = "--dev-main-start-ms", paramLabel = "MS", hidden = true,
            description = "How long --main's main may take to start its HttpServer (default: the worker's, 60 s).")
    long devMainStartMillis = 0;

    @CommandLine.Parameters(paramLabel = "ARGS", arity = "0..*",
            description = "After --: the arguments for --main's main.")
    java.util.List<String> mainArgs = new java.util.ArrayList<>();

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        StartTrace.as("supervisor");
        StartTrace.mark("main");
        M0serve plain = plain(args);
        if (plain != null) {
            ServerConfig config = null;
            OperatorConfig ops = null;
            try {
                config = plain.config();
                ops = plain.operatorConfig();
            } catch (NotPlain e) {
                // a value config() rejects: picocli parses again and says what is wrong, as always
            }
            if (ops != null) {
                System.exit(plain.serve(config, ops));
                return;
            }
        }
        System.exit(commandLine().execute(args));
    }

    /**
     * The server's own flags, read without picocli: building picocli's model of this command
     * costs the supervisor ~0.2 s of CPU (docs/adr/0027), on the path of every start, before it
     * can spawn a worker. Only the plain case is read here: every argument one of the options
     * {@link #set} knows, as {@code --name value} or {@code --name=value}, once each, numbers in
     * plain decimal. Anything else (--help, --version, a subcommand, an unknown, repeated or
     * malformed flag) returns null and goes to picocli, which answers it as it always did;
     * {@code M0serveCommandLineTest} holds the two to the same options and the same results.
     *
     * @return the command with its fields set, or null for picocli
     */
    static M0serve plain(String[] args) {
        M0serve m = new M0serve();
        java.util.Set<String> seen = new java.util.HashSet<>();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (arg.equals("--")) {
                m.mainArgs.addAll(java.util.Arrays.asList(args).subList(i + 1, args.length));
                break; // what follows is --main's, whatever it looks like
            }
            if (!arg.startsWith("--")) {
                return null; // a subcommand, a short option, a stray value
            }
            int eq = arg.indexOf('=');
            String name = eq < 0 ? arg : arg.substring(0, eq);
            String value = eq >= 0 ? arg.substring(eq + 1) : i + 1 < args.length ? args[++i] : null;
            try {
                if (value == null || value.isEmpty() || (value.startsWith("-") && !value.equals("-"))
                        || !seen.add(name) || !m.set(name, value)) {
                    return null;
                }
            } catch (NotPlain e) {
                return null;
            }
        }
        return m;
    }

    /** Sets the option {@code name}; false when the name is not one of the server's or the value not plain. */
    private boolean set(String name, String v) {
        switch (name) {
            case "--bind" -> bind = v;
            case "--workers" -> workers = (int) decimal(v, Integer.MAX_VALUE);
            case "--app" -> app = v;
            case "--blocking-threads" -> blockingThreads = (int) decimal(v, Integer.MAX_VALUE);
            case "--accept-policy" -> acceptPolicy = v;
            case "--max-header-bytes" -> maxHeaderBytes = (int) decimal(v, Integer.MAX_VALUE);
            case "--idle-timeout-ms" -> idleTimeoutMillis = decimal(v, Long.MAX_VALUE);
            case "--header-timeout-ms" -> headerTimeoutMillis = decimal(v, Long.MAX_VALUE);
            case "--body-timeout-ms" -> bodyTimeoutMillis = decimal(v, Long.MAX_VALUE);
            case "--max-body-bytes" -> maxBodyBytes = decimal(v, Long.MAX_VALUE);
            case "--grace-ms" -> graceMillis = decimal(v, Long.MAX_VALUE);
            case "--max-connections" -> maxConnections = decimal(v, Long.MAX_VALUE);
            case "--metrics-bind" -> metricsBind = v;
            case "--access-log" -> accessLog = v;
            case "--app-classpath" -> appClasspath = v;
            case "--rebalance" -> rebalance = v;
            case "--defer-accept" -> deferAccept = v;
            case "--cpu-affinity" -> cpuAffinity = v;
            case "--main" -> mainClass = v;
            case "--native-fallbacks" -> nativeFallbacks = v;
            case "--dev-main-start-ms" -> devMainStartMillis = decimal(v, Long.MAX_VALUE);
            case "--pid-file" -> pidFile = v; // issue 46 item 3
            default -> {
                return false;
            }
        }
        return true;
    }

    /**
     * {@code v} as a number when it is plain decimal ("0", or digits without a leading zero) up
     * to {@code max}. Leading zeros, signs, hex and the rest are picocli's to judge.
     *
     * @throws NotPlain otherwise
     */
    private static long decimal(String v, long max) {
        if (v.length() > 18 || (v.length() > 1 && v.charAt(0) == '0')) {
            throw new NotPlain();
        }
        long n = 0;
        for (int i = 0; i < v.length(); i++) {
            char c = v.charAt(i);
            if (c < '0' || c > '9') {
                throw new NotPlain();
            }
            n = 10 * n + (c - '0');
        }
        if (n > max) {
            throw new NotPlain();
        }
        return n;
    }

    /** Not for the plain path (a value it does not read, or one config() rejects): picocli answers. */
    private static final class NotPlain extends RuntimeException {
        private static final long serialVersionUID = 1L;

        NotPlain() {
            super(null, null, false, false);
        }
    }

    /** A subcommand's target could not be reached or read (an I/O error): one line, exit 1. */
    static final int EXIT_UNREACHABLE = 1;

    /**
     * The command line with m0serve's error handling: a bad flag prints one line and exits 2; a
     * subcommand's I/O error prints one line and exits 1.
     */
    public static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new M0serve());
        cl.setParameterExceptionHandler((e, args) -> {
            e.getCommandLine().getErr().println("m0serve: " + e.getMessage() + " (see --help)");
            return EXIT_USAGE;
        });
        // A subcommand that cannot reach what it was pointed at (probe's target refuses or
        // resets) says so in one line, as curl does; anything else is a bug and keeps its stack
        // trace.
        cl.setExecutionExceptionHandler((e, commandLine, parsed) -> {
            if (!(e instanceof IOException || e instanceof UncheckedIOException)) {
                throw e;
            }
            commandLine.getErr().println("m0serve " + commandLine.getCommandName() + ": " + e);
            return EXIT_UNREACHABLE;
        });
        return cl;
    }

    @Override
    public Integer call() {
        return serve(config(), operatorConfig());
    }

    private int serve(ServerConfig config, OperatorConfig ops) {
        StartTrace.mark("command line parsed");
        // Before anything waits, spawns or watches: the paths of the calls newer than the floor.
        // Said on the start line (Supervisor), once the configuration is known good.
        NativePaths.choose(NativePaths.parse(nativeFallbacks));
        // The one read of the environment the supervisor gets: it is handed down from here.
        return new Supervisor(config, ops, SupervisorKnobs.from(System.getenv()), System.out)
                .pidFile(pidFile == null ? null : java.nio.file.Path.of(pidFile)).run();
    }

    /** --metrics-bind and --access-log, validated. */
    OperatorConfig operatorConfig() {
        InetAddress metricsHost = null;
        int metricsPort = 0;
        if (metricsBind != null) {
            HostPort hp = hostPort("--metrics-bind", metricsBind);
            metricsHost = hp.host();
            metricsPort = hp.port();
        }
        if (accessLog != null && !"-".equals(accessLog)) {
            // Said now, in one line, rather than by every worker exiting 78.
            try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(java.nio.file.Path.of(accessLog),
                    java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND)) {
                ch.size();
            } catch (java.io.IOException | RuntimeException e) {
                throw usage("--access-log: cannot append to '" + accessLog + "': " + e);
            }
        }
        if (mainClass == null && !mainArgs.isEmpty()) {
            throw usage("arguments after -- are for --main's class: " + String.join(" ", mainArgs));
        }
        return new OperatorConfig(metricsHost, metricsPort, accessLog, appClasspath, mainClass, mainArgs,
                devMainStartMillis);
    }

    private record HostPort(InetAddress host, int port) {
    }

    /** HOST:PORT ([v6]:PORT too), port 0..65535, the host resolved; else a usage error naming {@code flag}. */
    private HostPort hostPort(String flag, String value) {
        int colon = value.lastIndexOf(':');
        if (colon <= 0) {
            throw usage(flag + " wants HOST:PORT, got '" + value + "'");
        }
        String hostPart = value.substring(0, colon);
        if (hostPart.startsWith("[") && hostPart.endsWith("]")) {
            hostPart = hostPart.substring(1, hostPart.length() - 1);
        }
        int port;
        try {
            port = Integer.parseInt(value.substring(colon + 1));
        } catch (NumberFormatException e) {
            throw usage(flag + " port is not a number: '" + value + "'");
        }
        if (port < 0 || port > 65535) {
            throw usage(flag + " port out of range: " + port);
        }
        try {
            return new HostPort(InetAddress.getByName(hostPart), port);
        } catch (UnknownHostException e) {
            throw usage(flag + " host not found: '" + hostPart + "'");
        }
    }

    /** Validates the flags into a config; a bad value is a usage error. */
    ServerConfig config() {
        HostPort bound = hostPort("--bind", bind);
        InetAddress host = bound.host();
        int port = bound.port();
        if (workers < 1 || workers > 256) {
            throw usage("--workers must be 1..256, got " + workers);
        }
        if (blockingThreads < 0 || blockingThreads > 1024) {
            throw usage("--blocking-threads must be 0..1024, got " + blockingThreads);
        }
        String appProblem = AppCheck.problem(app, BUILTIN.equals(app), mainClass, blockingThreads, appClasspath);
        if (appProblem != null) {
            throw usage(appProblem);
        }
        // Which policy a worker count runs is the core's decision: share for any count (SIGTTIN).
        String policy = acceptPolicy != null ? acceptPolicy : AcceptPolicy.defaultName();
        try {
            AcceptPolicy.named(policy);
        } catch (IllegalArgumentException e) {
            throw usage("--accept-policy: " + e.getMessage());
        }
        if ("0".equals(System.getenv("M0_ACCEPT_SHARE"))) {
            policy = "race"; // the A/B knob: the bare race under --workers N
        }
        if (maxHeaderBytes < 256 || idleTimeoutMillis < 1 || headerTimeoutMillis < 1 || graceMillis < 0
                || bodyTimeoutMillis < 1 || maxBodyBytes < 0 || maxBodyBytes > Integer.MAX_VALUE - 64) {
            throw usage("limits and timeouts must be positive");
        }
        if (maxConnections < 0) {
            throw usage("--max-connections must be 0 (from the descriptor limit) or more, got " + maxConnections);
        }
        if (!"on".equals(rebalance) && !"off".equals(rebalance)) {
            throw usage("--rebalance must be on or off, got '" + rebalance + "'");
        }
        int deferAcceptSeconds = deferAcceptSeconds();
        try {
            NativePaths.parse(nativeFallbacks);
        } catch (IllegalArgumentException e) {
            throw usage("--native-fallbacks: " + e.getMessage());
        }
        CpuPlacement.Mode placement = CpuPlacement.Mode.named(cpuAffinity);
        if (placement == null) {
            throw usage("--cpu-affinity must be auto, on or off, got '" + cpuAffinity + "'");
        }
        return new ServerConfig(host, port, workers, app, blockingThreads, policy, maxHeaderBytes,
                idleTimeoutMillis, headerTimeoutMillis, graceMillis,
                bodyTimeoutMillis, maxBodyBytes, maxConnections, "on".equals(rebalance), deferAcceptSeconds,
                placement);
    }

    /** --defer-accept: {@link ServerConfig#DEFER_ON_CHURN} for auto, else 0..60 seconds. */
    private int deferAcceptSeconds() {
        if (AUTO.equals(deferAccept)) {
            return ServerConfig.DEFER_ON_CHURN;
        }
        String v = deferAccept;
        boolean digits = !v.isEmpty() && v.length() <= 2 && v.chars().allMatch(c -> c >= '0' && c <= '9');
        int seconds = digits ? Integer.parseInt(v) : -1;
        if (seconds < 0 || seconds > MAX_DEFER_ACCEPT_SECONDS) {
            throw usage("--defer-accept must be auto or 0.." + MAX_DEFER_ACCEPT_SECONDS + " seconds, got '" + v + "'");
        }
        return seconds;
    }

    /** A usage error (exit 2, one line); read by {@link #plain}, picocli is asked to say it. */
    private RuntimeException usage(String message) {
        return spec == null ? new NotPlain() : new ParameterException(spec.commandLine(), message);
    }

    /** --version: the jar's Implementation-Version when packaged, else the source tree's. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"m0serve " + m0.server.supervisor.ServerVersion.text()};
        }
    }
}
