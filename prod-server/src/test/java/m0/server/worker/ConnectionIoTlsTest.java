package m0.server.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import m0.server.http.HttpConfig;
import m0.server.http.Response;
import m0.server.jnr.Epoll;
import m0.server.jnr.EventFd;
import m0.server.jnr.Fds;
import m0.server.jnr.Sockets;
import m0.server.log.RateLimitedLog;
import m0.server.tls.EngineSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A TLS connection's engine across admission, hand-off and close (ADR 0073's review): an engine
 * that cannot be made refuses its one connection, a handed-off connection releases its engine,
 * and a close whose TLS part throws still closes the descriptor. The engines are stand-ins.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
final class ConnectionIoTlsTest {

    private final Epoll epoll = EventLoop.epoll();
    private final EventFd wake = new EventFd();
    private final Socket client = new Socket();
    private final ByteArrayOutputStream log = new ByteArrayOutputStream();
    private final ByteArrayOutputStream tlsLog = new ByteArrayOutputStream();
    private final ConnectionTable table = new ConnectionTable();
    private int listener = -1;
    private int handedOff = -1;

    @AfterEach
    void close() throws IOException {
        client.close();
        if (handedOff >= 0) {
            Fds.close(handedOff);
        }
        if (listener >= 0) {
            Fds.close(listener);
        }
        epoll.close();
        wake.close();
    }

    /** A ConnectionIo whose connections get their engines from {@code engines}; TLS lines go to {@link #tlsLog}. */
    private ConnectionIo io(EngineSource engines) {
        ConnectionIo io = new ConnectionIo(epoll, table, HttpConfig.defaults(), request -> Response.text(200, "ok"),
                null, wake, new RateLimitedLog(new PrintStream(log, true, StandardCharsets.UTF_8), "test: "), () -> { },
                false, false, null);
        PrintStream err = System.err;
        System.setErr(new PrintStream(tlsLog, true, StandardCharsets.UTF_8)); // TlsReads' lines, taken at its making
        try {
            io.secure(engines, "test", () -> { });
        } finally {
            System.setErr(err);
        }
        return io;
    }

    private Loopback connect() throws IOException {
        listener = Sockets.listenTcp(InetAddress.getLoopbackAddress(), 0, 4);
        return Loopback.connect(client, listener);
    }

    /** The client's end reads EOF: the server's descriptor was closed (no other copy is open). */
    private void assertClosedByServer() throws IOException {
        client.setSoTimeout(5_000);
        assertEquals(-1, client.getInputStream().read(), "the server's descriptor was closed");
    }

    private static EngineSource engines(java.util.function.Supplier<SSLEngine> engine) {
        return new EngineSource() {
            @Override
            public SSLEngine engine(byte[] peer) {
                return engine.get();
            }

            @Override
            public String describe() {
                return "stand-in";
            }
        };
    }

    @SuppressWarnings("unchecked")
    private static <T extends Throwable> RuntimeException sneaky(Throwable t) throws T {
        throw (T) t; // as netty's PlatformDependent.throwException: a checked exception no signature declares
    }

    @Test
    void anEngineThatCannotBeMadeRefusesItsConnectionAndClosesIt() throws IOException {
        ConnectionIo io = io(engines(() -> {
            throw sneaky(new SSLException("SSL_new failed"));
        }));
        Loopback server = connect();

        Connection c = io.admit(server.fd(), server.peer(), false, System.nanoTime());

        assertNull(c, "refused, as a connection reset before its registration is");
        assertEquals(0, table.open());
        assertClosedByServer();
        assertTrue(tlsLog.toString(StandardCharsets.UTF_8).contains(
                "test: TLS: closing a connection whose engine could not be made: javax.net.ssl.SSLException: SSL_new failed"),
                tlsLog.toString(StandardCharsets.UTF_8));
    }

    @Test
    void aHandedOffConnectionReleasesItsEngine() throws IOException {
        StandInEngine engine = new StandInEngine(null);
        ConnectionIo io = io(engines(() -> engine));
        Loopback server = connect();
        Connection c = io.admit(server.fd(), server.peer(), false, System.nanoTime());
        assertNotNull(c);

        boolean sent = io.handOff(c, a -> {
            handedOff = a.fd(); // the channel's copy; closed after the test
            return true;
        });

        assertTrue(sent);
        assertTrue(c.closed);
        assertEquals(0, table.open());
        assertEquals(0, engine.refCnt(), "the engine released: its native memory is not held until a GC");
    }

    @Test
    void aCloseWhoseTlsPartThrowsStillClosesTheDescriptor() throws IOException {
        ConnectionIo io = io(engines(() -> new StandInEngine(new IllegalStateException("engine already freed"))));
        Loopback server = connect();
        Connection c = io.admit(server.fd(), server.peer(), false, System.nanoTime());
        assertNotNull(c);

        RuntimeException thrown = null;
        try {
            io.close(c);
        } catch (RuntimeException e) {
            thrown = e;
        }

        assertClosedByServer();
        assertNull(thrown, "a connection's close never throws into the loop");
        assertEquals(0, table.open());
        assertTrue(log.toString(StandardCharsets.UTF_8).contains("engine already freed"), log.toString(StandardCharsets.UTF_8));
    }
}
