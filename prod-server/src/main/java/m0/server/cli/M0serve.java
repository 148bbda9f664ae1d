package m0.server.cli;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.concurrent.Callable;
import m0.core.AcceptPolicy;
import m0.server.supervisor.OperatorConfig;
import m0.server.supervisor.ServerConfig;
import m0.server.supervisor.Supervisor;
import m0.server.http.App;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/** {@code m0serve}: the command line. Starts the supervisor, which starts the workers. */
@Command(name = "m0serve", mixinStandardHelpOptions = true, versionProvider = M0serve.Version.class,
        sortOptions = false, subcommands = {m0.server.probe.ProbeCommand.class, m0.server.stats.StatsCommand.class},
        description = "A prefork HTTP/1.1 server: one supervisor, N worker JVMs sharing one listener.")
public final class M0serve implements Callable<Integer> {

    /** Exit status for a usage error (a bad flag or value). */
    public static final int EXIT_USAGE = 2;

    static final String BUILTIN = "builtin";

    @Option(names = "--bind", defaultValue = "127.0.0.1:8080", paramLabel = "HOST:PORT",
            description = "Address to listen on; port 0 picks a free one (default: ${DEFAULT-VALUE}).")
    String bind;

    @Option(names = "--workers", defaultValue = "1", paramLabel = "N",
            description = "Worker processes (default: ${DEFAULT-VALUE}).")
    int workers;

    @Option(names = "--app", defaultValue = BUILTIN, paramLabel = "CLASS",
            description = "Application class (m0.server.http.App), or 'builtin' (default).")
    String app;

    @Option(names = "--blocking-threads", defaultValue = "2", paramLabel = "N",
            description = "Blocking-pool threads per worker for App.blocking requests; 0 runs them inline "
                    + "(default: ${DEFAULT-VALUE}).")
    int blockingThreads;

    @Option(names = "--accept-policy", paramLabel = "share|race|fountain",
            description = "Who serves an accepted connection: 'share' (least loaded; the default for any "
                    + "worker count, so workers added by SIGTTIN share), 'race' (the acceptor; M0_ACCEPT_SHARE=0 "
                    + "forces it) or 'fountain' (workers fill in index order; for many short-lived connections).")
    String acceptPolicy;

    @Option(names = "--max-header-bytes", defaultValue = "16384", paramLabel = "BYTES",
            description = "Request line + headers limit; past it: 431 (default: ${DEFAULT-VALUE}).")
    int maxHeaderBytes;

    @Option(names = "--idle-timeout-ms", defaultValue = "5000", paramLabel = "MS",
            description = "Keep-alive idle timeout (default: ${DEFAULT-VALUE}).")
    long idleTimeoutMillis;

    @Option(names = "--header-timeout-ms", defaultValue = "10000", paramLabel = "MS",
            description = "A started request head must complete within this; else 408 (default: ${DEFAULT-VALUE}).")
    long headerTimeoutMillis;

    @Option(names = "--body-timeout-ms", defaultValue = "10000", paramLabel = "MS",
            description = "A request body that receives nothing for this long gets 408 (default: ${DEFAULT-VALUE}).")
    long bodyTimeoutMillis;

    @Option(names = "--max-body-bytes", defaultValue = "1048576", paramLabel = "BYTES",
            description = "Request body limit (decoded); past it: 413 (default: ${DEFAULT-VALUE}).")
    long maxBodyBytes;

    @Option(names = "--grace-ms", defaultValue = "10000", paramLabel = "MS",
            description = "On SIGTERM, how long workers finish in-flight requests (default: ${DEFAULT-VALUE}).")
    long graceMillis;

    @Option(names = "--max-connections", defaultValue = "0", paramLabel = "N",
            description = "Open connections per worker past which it stops accepting (it still takes "
                    + "hand-offs); 0: RLIMIT_NOFILE less what the worker holds and a reserve (default).")
    long maxConnections;

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

    @Option(names = "--rebalance", defaultValue = "on", paramLabel = "on|off",
            description = "Workers hand idle keep-alive connections to a lighter sibling until the "
                    + "loads are even within one (after a cold start, a crash, SIGTTIN); 'off' for A/B "
                    + "(default: ${DEFAULT-VALUE}).")
    String rebalance;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** The command line with m0serve's error handling: a bad flag prints one line and exits 2. */
    public static CommandLine commandLine() {
        CommandLine cl = new CommandLine(new M0serve());
        cl.setParameterExceptionHandler((e, args) -> {
            e.getCommandLine().getErr().println("m0serve: " + e.getMessage() + " (see --help)");
            return EXIT_USAGE;
        });
        return cl;
    }

    @Override
    public Integer call() {
        return new Supervisor(config(), operatorConfig(), System.out).run();
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
        return new OperatorConfig(metricsHost, metricsPort, accessLog, appClasspath);
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
        checkApp();
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
        return new ServerConfig(host, port, workers, app, blockingThreads, policy, maxHeaderBytes,
                idleTimeoutMillis, headerTimeoutMillis, graceMillis,
                bodyTimeoutMillis, maxBodyBytes, maxConnections, "on".equals(rebalance));
    }

    /** The class must exist and be an App; it is constructed only in the workers. */
    private void checkApp() {
        if (BUILTIN.equals(app)) {
            return;
        }
        Class<?> c;
        try {
            ClassLoader loader = appClasspath == null ? M0serve.class.getClassLoader()
                    : m0.server.http.AppClassPath.loader(appClasspath);
            c = Class.forName(app, false, loader);
        } catch (IllegalArgumentException e) {
            throw usage(e.getMessage());
        } catch (ClassNotFoundException | LinkageError e) {
            throw usage("--app: class not found: " + app + (appClasspath == null ? "" : " in --app-classpath"));
        }
        if (!App.class.isAssignableFrom(c)) {
            throw usage("--app: " + app + " does not implement " + App.class.getName());
        }
    }

    private ParameterException usage(String message) {
        return new ParameterException(spec.commandLine(), message);
    }

    /** --version: the jar's Implementation-Version when packaged, else the source tree's. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = M0serve.class.getPackage().getImplementationVersion();
            return new String[] {"m0serve " + (v != null ? v : "0.1.0-SNAPSHOT")};
        }
    }
}
