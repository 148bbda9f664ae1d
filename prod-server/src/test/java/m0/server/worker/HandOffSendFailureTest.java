package m0.server.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import m0.server.http.App;
import m0.server.http.HttpConfig;
import m0.server.http.Response;
import m0.server.jnr.Epoll;
import m0.server.jnr.EventFd;
import m0.server.jnr.Fds;
import m0.server.jnr.Sockets;
import m0.server.log.RateLimitedLog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 44: a hand-off's send that throws (a rebalance's, a hand-over's, the warm-up's) comes after
 * the descriptor left epoll. The connection must stay ours: in the table, registered again, and
 * its next request answered.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
final class HandOffSendFailureTest {

    private final Epoll epoll = EventLoop.epoll();
    private final EventFd wake = new EventFd();
    private final Socket client = new Socket();
    private final ByteArrayOutputStream log = new ByteArrayOutputStream();
    private final ConnectionTable table = new ConnectionTable();
    private int listener = -1;
    private ConnectionIo io;
    private Connection admitted;

    @AfterEach
    void close() throws IOException {
        if (admitted != null) {
            io.close(admitted);
        }
        client.close();
        if (listener >= 0) {
            Fds.close(listener);
        }
        epoll.close();
        wake.close();
    }

    @Test
    void aSendThatThrowsLeavesTheConnectionRegisteredAndServed() throws IOException {
        listener = Sockets.listenTcp(InetAddress.getLoopbackAddress(), 0, 4);
        App app = request -> Response.text(200, "ok");
        io = new ConnectionIo(epoll, table, HttpConfig.defaults(), app, null, wake,
                new RateLimitedLog(new PrintStream(log, true, StandardCharsets.UTF_8), "test: "), () -> { },
                false, false, null);
        Loopback server = Loopback.connect(client, listener);
        admitted = io.admit(server.fd(), server.peer(), false, System.nanoTime());
        assertNotNull(admitted);

        boolean sent = io.handOff(admitted, a -> {
            throw new IllegalStateException("sendmsg: EBADF");
        });

        assertFalse(sent, "not sent: still ours");
        assertFalse(admitted.closed);
        assertSame(admitted, table.get(admitted.fd), "still in the table");
        assertEquals(1, table.open());
        assertTrue(log.toString(StandardCharsets.UTF_8).contains("handing a connection off: java.lang.IllegalStateException"),
                log.toString(StandardCharsets.UTF_8));
        // Registered again: its next request wakes epoll and is answered.
        client.getOutputStream().write("GET / HTTP/1.1\r\nHost: t\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
        int n = epoll.awaitNanos(TimeUnit.SECONDS.toNanos(5));
        assertEquals(1, n, "epoll reports the connection's request");
        assertEquals(admitted.fd, (int) epoll.data(0));
        io.onEvent(admitted.fd, epoll.events(0), System.nanoTime());
        client.setSoTimeout(5_000);
        InputStream in = client.getInputStream();
        byte[] head = new byte[15];
        int got = 0;
        while (got < head.length) {
            int r = in.read(head, got, head.length - got);
            assertTrue(r > 0, "the answer came");
            got += r;
        }
        assertEquals("HTTP/1.1 200 OK", new String(head, StandardCharsets.ISO_8859_1));
    }
}
