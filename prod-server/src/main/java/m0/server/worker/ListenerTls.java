package m0.server.worker;

import m0.server.jdkhttp.AppTls;
import m0.server.jdkhttp.M0HttpsServer;
import java.io.IOException;
import java.io.PrintStream;
import java.util.Optional;
import m0.server.jnr.NativePaths;
import m0.server.launch.WorkerSpec;
import m0.server.settings.ServerSettings;
import m0.server.tls.BoringTls;
import m0.server.tls.EngineSource;
import m0.server.tls.TicketKeyPage;
import m0.server.tls.TlsContext;
import m0.server.tls.TlsFiles;
import m0.server.tls.TlsSetupException;

/**
 * Which TLS a worker's listener speaks (ADR 0069): m0serve's own from {@code --tls-cert/--tls-key},
 * or under {@code --main} the app's {@code HttpsServer}'s, or none. Both at once cannot start:
 * two sources of certificates for one listener, and whichever lost would be served silently
 * while its owner believed otherwise (a renewed {@code --tls-cert} a reload never serves, or an
 * app's client-auth never asked). Said once, exit 78, as any app that cannot start (ADR 0062).
 */
final class ListenerTls {

    private ListenerTls() {
    }

    /**
     * The worker's engines, or null: plain HTTP. {@code --tls-cert}'s are BoringSSL's with the
     * supervisor's ticket keys (ADR 0073), or the JDK's where BoringSSL does not load here or
     * {@code --dev-native-fallbacks boringssl} forces it: one line says why, as ADR 0060's
     * fallbacks do, since a client then resumes only on the worker that served it first.
     */
    static EngineSource choose(String[] args, AppMain appMain, String name, WorkerSpec spec) throws TlsSetupException {
        TlsFiles files = TlsFiles.parse(args);
        M0HttpsServer https = appMain == null ? null : appMain.https();
        if (https != null) {
            String main = "--main " + appMain.className();
            if (files.on()) {
                throw new StartFailure(main + " created an HttpsServer with its own SSLContext, and --tls-cert is given"
                        + " too: one listener, one TLS; drop --tls-cert/--tls-key, or have the app create a plain"
                        + " HttpServer to serve m0serve's", null);
            }
            String problem = AppTls.problem(https);
            if (problem != null) {
                throw new StartFailure(main + ": " + problem, null);
            }
            return AppTls.of(https, name + ": ");
        }
        if (!files.on()) {
            return null;
        }
        String ticketKey = spec.settings().text(ServerSettings.TLS_TICKET_KEY);
        // Its file names only (the keys travel by the memfd): the worker says when its engine cannot apply them.
        boolean ticketKeyGiven = ticketKey != null && !ticketKey.isEmpty(); // unset travels as "tls-ticket-key="
        String why = null;
        if (!NativePaths.current().boringssl()) {
            why = "forced by --dev-native-fallbacks";
        } else {
            Throwable cause = BoringTls.unavailable();
            if (cause != null) {
                why = "BoringSSL did not load: " + cause;
            }
        }
        if (why != null) {
            return jdk(files, name, why, ticketKeyGiven, System.err);
        }
        Optional<TicketKeyPage> tickets = Optional.empty();
        if (!spec.settings().on(ServerSettings.DEV_TLS_OWN_TICKET_KEYS)) {
            String cause = "the supervisor holds none";
            try {
                tickets = TicketKeyPage.attach(spec.supervisorPid());
            } catch (IOException e) {
                cause = e.getMessage() != null ? e.getMessage() : e.toString();
            }
            if (tickets.isEmpty()) {
                System.err.println(name + ": TLS: the supervisor's session-ticket keys (memfd " + TicketKeyPage.NAME
                        + ") cannot be mapped (" + cause + "); this worker seals tickets with keys of its own");
            }
        }
        return boringOrJdk(files, tickets, name, ticketKeyGiven, BoringTls::load, System.err);
    }

    /** {@link BoringTls#load}'s shape: a test's stand-in refuses what BoringSSL would. */
    interface BoringLoader {
        EngineSource load(TlsFiles files, Optional<TicketKeyPage> tickets) throws TlsSetupException;
    }

    /**
     * BoringSSL's engines, or the JDK's where BoringSSL refuses a certificate or key the JDK took
     * at the supervisor's check (or its classes fail to link): one worker's line, not exit 78 in
     * every worker. Where the JDK refuses it too, that is the line and the exit.
     */
    static EngineSource boringOrJdk(TlsFiles files, Optional<TicketKeyPage> tickets, String name, boolean ticketKeyGiven,
                                    BoringLoader boring, PrintStream err) throws TlsSetupException {
        try {
            return boring.load(files, tickets);
        } catch (TlsSetupException | LinkageError e) {
            return jdk(files, name, "BoringSSL could not load --tls-cert/--tls-key: " + e, ticketKeyGiven, err);
        }
    }

    /**
     * The JDK's engines, said in one line with why. {@code --tls-ticket-key} cannot apply to them
     * (no ticket-key API): said too, not an exit, since serving without shared resumption beats
     * not serving (ADR 0073, addendum).
     */
    private static EngineSource jdk(TlsFiles files, String name, String why, boolean ticketKeyGiven, PrintStream err)
            throws TlsSetupException {
        err.println(name + ": TLS on the JDK's SSLEngine (" + why + "): session tickets are this"
                + " worker's own, so a client resumes only on the worker that served it first"
                + (ticketKeyGiven ? "; --tls-ticket-key is not applied: the JDK's engine has no ticket-key API" : ""));
        return TlsContext.load(files);
    }
}
