package m0.server.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLEngineResult;
import m0.server.tls.TestCertificates;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The other side of a handshake's header-timeout bound (ADR 0069's addendum), on the real
 * binary: a handshake that finishes in time is then under the session's own clocks. A slow
 * handshake's request is answered, and a preconnected connection waits under the idle timeout.
 * Each test has a server whose two timeouts tell the rules apart; the client's pauses are its
 * pace, never a synchronisation.
 */
@Timeout(120)
class TlsHandshakeClockIntegrationTest {

    private static final int READY_MS = 30_000;
    private static final int READ_MS = 30_000;
    private static TestCertificates rsa;

    @BeforeAll
    static void certificates() throws Exception {
        rsa = TestCertificates.make("RSA");
    }

    /**
     * A slow handshake that finishes inside the header timeout is served: the client waits 4 s
     * before its Finished, past the 2 s idle timeout counted from the accept, and then 0.5 s
     * before its request. The session's idle clock starts at the handshake's end, so the
     * request is answered; counted from the accept, the connection would be closed before it.
     */
    @Test
    void aSlowHandshakeThatFinishesInTimeIsServed() throws Exception {
        try (ServerProcess slow = ServerProcess.start("--workers", "1", "--header-timeout-ms", "10000",
                "--idle-timeout-ms", "2000", "--tls-cert", rsa.cert.toString(), "--tls-key", rsa.key.toString());
             Socket s = new Socket()) {
            PageWatch.of(slow).awaitReady(READY_MS);
            s.connect(new InetSocketAddress("127.0.0.1", slow.port), 10_000);
            s.setSoTimeout(READ_MS);
            SSLEngine e = rsa.clientContext().createSSLEngine("localhost", slow.port);
            e.setUseClientMode(true);
            e.setEnabledProtocols(new String[] {"TLSv1.3"});
            e.beginHandshake();
            ByteBuffer netIn = ByteBuffer.allocate(64 * 1024);
            ByteBuffer app = ByteBuffer.allocate(64 * 1024);
            boolean heard = false;
            for (SSLEngineResult.HandshakeStatus hs; (hs = e.getHandshakeStatus()) != SSLEngineResult.HandshakeStatus.FINISHED
                    && hs != SSLEngineResult.HandshakeStatus.NOT_HANDSHAKING; ) {
                switch (hs) {
                    case NEED_TASK -> e.getDelegatedTask().run();
                    case NEED_WRAP -> {
                        if (heard) {
                            Thread.sleep(4000); // the client's pace: its Finished, late
                            heard = false;
                        }
                        send(s, e, ByteBuffer.allocate(0));
                    }
                    default -> {
                        heard = true;
                        receive(s, e, netIn, app);
                    }
                }
            }
            Thread.sleep(500); // the client's pace: its request, a moment after
            send(s, e, ByteBuffer.wrap("GET / HTTP/1.1\r\nHost: localhost\r\n\r\n".getBytes(StandardCharsets.US_ASCII)));
            while (!new String(app.array(), 0, app.position(), StandardCharsets.US_ASCII).endsWith("hello\n")) {
                assertTrue(receive(s, e, netIn, app), "the answer before EOF: "
                        + new String(app.array(), 0, app.position(), StandardCharsets.US_ASCII));
            }
            assertTrue(new String(app.array(), 0, app.position(), StandardCharsets.US_ASCII).startsWith("HTTP/1.1 200 "));
        }
    }

    /**
     * A client that finishes its handshake and then sends nothing for a while (a browser's
     * preconnect) waits under the idle timeout, as a plain connection does, not under the
     * handshake's header timeout: after 4 s, past the 1.5 s header timeout and inside the 10 s
     * idle timeout, its request is answered.
     */
    @Test
    void aFinishedHandshakeThenAPauseIsKeptByTheIdleTimeout() throws Exception {
        try (ServerProcess preconnect = ServerProcess.start("--workers", "1", "--header-timeout-ms", "1500",
                "--idle-timeout-ms", "10000", "--tls-cert", rsa.cert.toString(), "--tls-key", rsa.key.toString())) {
            PageWatch.of(preconnect).awaitReady(READY_MS);
            String pid = TlsHostileIntegrationTest.onlyWorker(preconnect);
            try (TlsEngineClient c = TlsEngineClient.open(rsa.clientContext(), preconnect.port, READ_MS)) {
                Thread.sleep(4000); // the client's pace: a preconnected connection, idle
                assertEquals(pid, c.ask("/pid").split(" ")[0], "answered after the pause");
            }
            assertTrue(!preconnect.stderr().contains(TlsHostileIntegrationTest.TIMED_OUT), "no handshake timed out:\n" + preconnect.stderr());
        }
    }

    private static void send(Socket s, SSLEngine e, ByteBuffer plain) throws IOException {
        ByteBuffer out = ByteBuffer.allocate(e.getSession().getPacketBufferSize());
        do {
            out.clear();
            e.wrap(plain, out);
            s.getOutputStream().write(out.array(), 0, out.position());
        } while (plain.hasRemaining());
    }

    /** Unwraps what is read (and what waits) into {@code app}; false at EOF. */
    private static boolean receive(Socket s, SSLEngine e, ByteBuffer netIn, ByteBuffer app) throws IOException {
        netIn.flip();
        SSLEngineResult r = e.unwrap(netIn, app);
        netIn.compact();
        if (r.getStatus() == SSLEngineResult.Status.OK && (r.bytesConsumed() > 0)) {
            return true;
        }
        int n = s.getInputStream().read(netIn.array(), netIn.position(), netIn.remaining());
        if (n < 0) {
            return false;
        }
        netIn.position(netIn.position() + n);
        return true;
    }
}
