package m0.server.worker;

import m0.server.jdkhttp.AppTls;
import m0.server.jdkhttp.M0HttpsServer;
import m0.server.tls.EngineSource;
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

    /** The worker's engines, or null: plain HTTP. */
    static EngineSource choose(String[] args, AppMain appMain, String name) throws TlsSetupException {
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
        return files.on() ? TlsContext.load(files) : null;
    }
}
