package m0.server.worker;

import m0.server.jdkhttp.AppTls;
import m0.server.jdkhttp.M0HttpsServer;
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
            System.err.println(name + ": TLS on the JDK's SSLEngine (" + why + "): session tickets are this"
                    + " worker's own, so a client resumes only on the worker that served it first");
            return TlsContext.load(files);
        }
        Optional<TicketKeyPage> tickets = Optional.empty();
        if (!spec.settings().on(ServerSettings.DEV_TLS_OWN_TICKET_KEYS)) {
            tickets = TicketKeyPage.attach(spec.supervisorPid());
            if (tickets.isEmpty()) {
                System.err.println(name + ": TLS: the supervisor's session-ticket keys (memfd " + TicketKeyPage.NAME
                        + ") cannot be mapped; this worker seals tickets with keys of its own");
            }
        }
        return BoringTls.load(files, tickets);
    }
}
