package m0.server.jdkhttp;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsParameters;
import java.net.InetSocketAddress;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import m0.server.http.Peers;
import m0.server.log.RateLimitedLog;
import m0.server.tls.EngineSource;

/**
 * The listener's TLS from the app's {@code HttpsServer} (ADR 0069): each connection's engine is
 * made as the JDK's server makes it: from the configurator's {@code SSLContext}, in server mode,
 * then {@code configure(HttpsParameters)} with the client's address, and what it set applied:
 * its {@code SSLParameters} if it set them, else its suites, protocols and client auth. Nothing
 * of m0's own defaults (suites, ALPN) is added: the app's context and parameters are the whole say.
 */
public final class AppTls implements EngineSource {

    private final HttpsConfigurator configurator;
    private final RateLimitedLog configureFailures;

    private AppTls(HttpsConfigurator configurator, RateLimitedLog configureFailures) {
        this.configurator = configurator;
        this.configureFailures = configureFailures;
    }

    /**
     * The app's server's TLS, checked once: a started {@code HttpsServer} with no configurator,
     * or one whose context makes no engine (not initialised), cannot serve; the reason, else null.
     */
    public static String problem(M0HttpsServer server) {
        HttpsConfigurator c = server.getHttpsConfigurator();
        if (c == null) {
            return "it started an HttpsServer with no HttpsConfigurator: call setHttpsConfigurator before start()";
        }
        try {
            c.getSSLContext().createSSLEngine();
            return null;
        } catch (RuntimeException e) {
            return "its HttpsConfigurator's SSLContext makes no SSLEngine: " + e;
        }
    }

    /** For a server {@link #problem} passed. */
    public static AppTls of(M0HttpsServer server, String logPrefix) {
        return new AppTls(server.getHttpsConfigurator(), new RateLimitedLog(System.err, logPrefix));
    }

    @Override
    public SSLEngine engine(byte[] peer) {
        SSLEngine engine = configurator.getSSLContext().createSSLEngine();
        engine.setUseClientMode(false);
        try {
            Params p = new Params(configurator, Peers.address(peer));
            configurator.configure(p);
            if (p.ssl != null) {
                engine.setSSLParameters(p.ssl);
            } else {
                if (p.getCipherSuites() != null) {
                    engine.setEnabledCipherSuites(p.getCipherSuites());
                }
                if (p.getProtocols() != null) {
                    engine.setEnabledProtocols(p.getProtocols());
                }
                if (p.getNeedClientAuth()) {
                    engine.setNeedClientAuth(true);
                } else {
                    engine.setWantClientAuth(p.getWantClientAuth());
                }
            }
        } catch (RuntimeException e) {
            // The app's code, on the loop: its failure costs this connection only (the JDK's
            // server closes it too). No protocol enabled: the handshake fails and it is closed.
            configureFailures.log("TLS: the app's HttpsConfigurator.configure failed (" + e
                    + "): closing the connection");
            engine = configurator.getSSLContext().createSSLEngine();
            engine.setUseClientMode(false);
            engine.setEnabledProtocols(new String[0]);
        }
        return engine;
    }

    @Override
    public String describe() {
        return "TLS from the app's HttpsServer (" + configurator.getClass().getName() + ", SSLContext "
                + configurator.getSSLContext().getProtocol() + ")";
    }

    /** What the app's configure is given: the JDK's HttpsParameters, with the client's address. */
    private static final class Params extends HttpsParameters {
        private final HttpsConfigurator configurator;
        private final InetSocketAddress client;
        SSLParameters ssl;

        Params(HttpsConfigurator configurator, InetSocketAddress client) {
            this.configurator = configurator;
            this.client = client;
        }

        @Override
        public HttpsConfigurator getHttpsConfigurator() {
            return configurator;
        }

        @Override
        public InetSocketAddress getClientAddress() {
            return client;
        }

        @Override
        public void setSSLParameters(SSLParameters params) {
            this.ssl = params;
        }
    }
}
