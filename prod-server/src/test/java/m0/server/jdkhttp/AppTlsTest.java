package m0.server.jdkhttp;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsParameters;
import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import org.junit.jupiter.api.Test;

/**
 * How the app's configurator makes each engine (ADR 0069), as the JDK's HttpsServer does: its
 * SSLParameters when it sets them, else its suites, protocols and client auth; the client's
 * address given; a configure that throws costs the connection only (an engine that can
 * handshake nothing); a server with no configurator, or an uninitialised context, cannot start.
 */
class AppTlsTest {

    /** The peer 127.0.0.1:4242 as the accept gives it (AF_INET, little-endian family). */
    private static final byte[] PEER = {2, 0, 0x10, (byte) 0x92, 127, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0};

    private static SSLContext context() throws Exception {
        SSLContext c = SSLContext.getInstance("TLS");
        c.init(null, null, null);
        return c;
    }

    private static M0HttpsServer server(HttpsConfigurator cfg) {
        M0HttpsServer s = new M0HttpsServer(new M0HttpServer(null));
        if (cfg != null) {
            s.setHttpsConfigurator(cfg);
        }
        return s;
    }

    private static HttpsConfigurator configurator(SSLContext c, Consumer<HttpsParameters> configure) {
        return new HttpsConfigurator(c) {
            @Override
            public void configure(HttpsParameters params) {
                configure.accept(params);
            }
        };
    }

    @Test
    void theAppsSslParametersAreTheEngines() throws Exception {
        List<InetSocketAddress> clients = new ArrayList<>();
        SSLContext c = context();
        M0HttpsServer s = server(configurator(c, p -> {
            clients.add(p.getClientAddress());
            SSLParameters sp = c.getDefaultSSLParameters();
            sp.setProtocols(new String[] {"TLSv1.2"});
            sp.setNeedClientAuth(true);
            p.setSSLParameters(sp);
        }));
        assertNull(AppTls.problem(s));
        SSLEngine e = AppTls.of(s, "t: ").engine(PEER);
        assertFalse(e.getUseClientMode());
        assertArrayEquals(new String[] {"TLSv1.2"}, e.getEnabledProtocols());
        assertTrue(e.getNeedClientAuth());
        assertEquals(List.of(new InetSocketAddress("127.0.0.1", 4242)), clients);
    }

    @Test
    void withoutSslParametersItsSuitesProtocolsAndClientAuthAreApplied() throws Exception {
        String suite = "TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256";
        M0HttpsServer s = server(configurator(context(), p -> {
            p.setCipherSuites(new String[] {suite});
            p.setProtocols(new String[] {"TLSv1.2"});
            p.setWantClientAuth(true);
        }));
        SSLEngine e = AppTls.of(s, "t: ").engine(null);
        assertArrayEquals(new String[] {suite}, e.getEnabledCipherSuites());
        assertArrayEquals(new String[] {"TLSv1.2"}, e.getEnabledProtocols());
        assertTrue(e.getWantClientAuth());
        assertFalse(e.getNeedClientAuth());
    }

    @Test
    void aConfigureThatThrowsGivesAnEngineThatHandshakesNothing() throws Exception {
        M0HttpsServer s = server(configurator(context(), p -> {
            throw new IllegalStateException("the app's bug");
        }));
        SSLEngine e = AppTls.of(s, "t: ").engine(PEER);
        assertArrayEquals(new String[0], e.getEnabledProtocols());
    }

    @Test
    void noConfiguratorOrAnUninitialisedContextCannotStart() throws Exception {
        assertTrue(AppTls.problem(server(null)).contains("no HttpsConfigurator"));
        HttpsConfigurator raw = new HttpsConfigurator(SSLContext.getInstance("TLS"));
        assertTrue(AppTls.problem(server(raw)).contains("makes no SSLEngine"), AppTls.problem(server(raw)));
        assertThrows(NullPointerException.class, () -> server(null).setHttpsConfigurator(null));
    }
}
