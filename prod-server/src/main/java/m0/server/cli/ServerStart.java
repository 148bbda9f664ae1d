package m0.server.cli;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Map;
import m0.server.jnr.NativePaths;
import m0.server.settings.HostPort;
import m0.server.settings.ServerSettings;
import m0.server.settings.Setting;
import m0.server.settings.SettingsException;
import m0.server.settings.SettingsReader;
import m0.server.settings.Source;
import m0.server.settings.Values;
import m0.server.supervisor.OperatorConfig;
import m0.server.supervisor.ServerConfig;
import m0.server.supervisor.SupervisorKnobs;
import m0.server.tls.TicketKeyFiles;
import m0.server.tls.TlsContext;
import m0.server.tls.TlsFiles;
import m0.server.tls.TlsSetupException;

/**
 * The settings read, checked beyond each value's own form: hosts resolved, the app's class
 * found, the access log appendable, arguments after {@code --} only with {@code --main}. What is
 * wrong is one {@link SettingsException} naming the setting and where it came from.
 */
record ServerStart(ServerConfig config, OperatorConfig ops, SupervisorKnobs knobs) {

    static ServerStart of(SettingsReader.Parsed parsed, Map<String, String> env) {
        Values v = parsed.values();
        HostPort bound = HostPort.of(v.text(ServerSettings.BIND));
        InetAddress host = resolve(v, ServerSettings.BIND, bound);
        String app = v.text(ServerSettings.APP);
        String main = v.text(ServerSettings.MAIN);
        String appProblem = AppCheck.problem(app, M0serve.BUILTIN.equals(app), main,
                v.integer(ServerSettings.BLOCKING_THREADS), v.text(ServerSettings.APP_CLASSPATH));
        if (appProblem != null) {
            throw fail(v, main != null ? ServerSettings.MAIN : ServerSettings.APP, appProblem);
        }
        try {
            NativePaths.parse(v.text(ServerSettings.DEV_NATIVE_FALLBACKS) == null ? ""
                    : v.text(ServerSettings.DEV_NATIVE_FALLBACKS));
        } catch (IllegalArgumentException e) {
            throw fail(v, ServerSettings.DEV_NATIVE_FALLBACKS, "--dev-native-fallbacks: " + e.getMessage());
        }
        InetAddress metricsHost = null;
        int metricsPort = 0;
        if (v.text(ServerSettings.METRICS_BIND) != null) {
            HostPort hp = HostPort.of(v.text(ServerSettings.METRICS_BIND));
            metricsHost = resolve(v, ServerSettings.METRICS_BIND, hp);
            metricsPort = hp.port();
        }
        String accessLog = v.text(ServerSettings.ACCESS_LOG);
        if (accessLog != null && !"-".equals(accessLog)) {
            // Said now, in one line, rather than by every worker exiting 78.
            try (java.nio.channels.FileChannel ch = java.nio.channels.FileChannel.open(java.nio.file.Path.of(accessLog),
                    java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND)) {
                ch.size();
            } catch (java.io.IOException | RuntimeException e) {
                throw fail(v, ServerSettings.ACCESS_LOG, "--access-log: cannot append to '" + accessLog + "': " + e);
            }
        }
        List<String> mainArgs = parsed.mainArgs();
        if (main == null && !mainArgs.isEmpty()) {
            throw new SettingsException("arguments after -- are for --main's class: " + String.join(" ", mainArgs)
                    + " (see --help)");
        }
        OperatorConfig ops = new OperatorConfig(metricsHost, metricsPort, accessLog, v.text(ServerSettings.APP_CLASSPATH),
                main, mainArgs, v.number(ServerSettings.DEV_MAIN_START_MS), tlsFiles(v));
        SupervisorKnobs knobs = SupervisorKnobs.of(env, v.number(ServerSettings.DEV_MAX_RESPAWNS),
                v.text(ServerSettings.WORKER_HEAP), v.text(ServerSettings.WORKER_JAVA_OPTS));
        return new ServerStart(new ServerConfig(host, bound.port(), v), ops, knobs);
    }

    /** --tls-cert, --tls-key and --tls-ticket-key, read and checked now: one line naming the file, before any worker starts. */
    private static TlsFiles tlsFiles(Values v) {
        String cert = v.text(ServerSettings.TLS_CERT);
        String key = v.text(ServerSettings.TLS_KEY);
        if (cert == null && key == null) {
            if (v.text(ServerSettings.TLS_TICKET_KEY) != null) {
                throw fail(v, ServerSettings.TLS_TICKET_KEY, "--tls-ticket-key needs --tls-cert and --tls-key");
            }
            return TlsFiles.NONE;
        }
        if (cert == null || key == null) {
            throw fail(v, cert == null ? ServerSettings.TLS_KEY : ServerSettings.TLS_CERT,
                    "--tls-cert and --tls-key go together");
        }
        TlsFiles files = new TlsFiles(cert, key);
        try {
            TlsContext.load(files);
        } catch (TlsSetupException e) {
            throw fail(v, ServerSettings.TLS_CERT, e.getMessage());
        }
        String tickets = v.text(ServerSettings.TLS_TICKET_KEY);
        if (tickets != null) {
            try {
                TicketKeyFiles.parse(tickets).load().erase(); // checked only: the supervisor reads them again at its start
            } catch (TlsSetupException e) {
                throw fail(v, ServerSettings.TLS_TICKET_KEY, e.getMessage());
            }
        }
        return files;
    }

    private static InetAddress resolve(Values v, Setting s, HostPort hp) {
        try {
            return hp.address();
        } catch (UnknownHostException e) {
            throw fail(v, s, s.flag() + " host not found: '" + hp.host() + "'");
        }
    }

    /**
     * {@code problem}, which names the flag: as it is for the command line (and a default), after
     * the other sources' spelling of the setting for them.
     */
    private static SettingsException fail(Values v, Setting s, String problem) {
        Source source = v.source(s);
        return source.kind() == Source.Kind.COMMAND_LINE || source.kind() == Source.Kind.DEFAULT
                ? new SettingsException(problem + " (see --help)")
                : new SettingsException(source.spell(s) + ": " + problem);
    }
}
