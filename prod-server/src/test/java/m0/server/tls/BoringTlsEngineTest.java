package m0.server.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.netty.util.ReferenceCounted;
import java.util.Optional;
import javax.net.ssl.SSLEngine;
import org.junit.jupiter.api.Test;

/**
 * A connection's BoringSSL engine has no finalizer (ADR 0073's storm addendum): a finalizable
 * engine is registered with the Finalizer at every handshake and outlives a collection, so the
 * engine is the reference-counted kind, and the connection's close gives its native memory back.
 */
class BoringTlsEngineTest {

    @Test
    void anEngineIsNotFinalizableAndItsCloseReleasesIt() throws Exception {
        assertNull(BoringTls.unavailable(), "BoringSSL loads on this platform");
        TestCertificates ec = TestCertificates.make("EC");
        BoringTls tls = BoringTls.load(new TlsFiles(ec.cert.toString(), ec.key.toString()), Optional.empty());
        SSLEngine engine = tls.engine(new byte[0]);
        for (Class<?> k = engine.getClass(); k != Object.class; k = k.getSuperclass()) {
            for (var m : k.getDeclaredMethods()) {
                assertTrue(!m.getName().equals("finalize") || m.getParameterCount() != 0,
                        k.getName() + " declares finalize(): each engine would pass through the Finalizer");
            }
        }
        ReferenceCounted counted = (ReferenceCounted) engine;
        assertEquals(1, counted.refCnt());
        new TlsLink(engine, new TlsLink.Scratch(16 * 1024)).release();
        assertEquals(0, counted.refCnt(), "the close gives the engine back, not a GC");
    }
}
