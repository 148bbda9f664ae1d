package m0.server.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import m0.server.jnr.Fds;
import m0.server.jnr.IoUring;
import m0.server.jnr.Native;
import m0.server.jnr.Sockets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A pass's sends through a real ring to a real loopback connection (ADR 0049): each send's
 * result comes back within the call, and a ring that fails closes that call's connections
 * rather than risk a second copy of an answer, and says once that write(2) takes over.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
final class RingSendsTest {

    private static final byte[] ANSWER = "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

    private int listener = -1;
    private int fd = -1;
    private Socket client;
    private final List<String> log = new ArrayList<>();
    private final List<Object[]> results = new ArrayList<>();

    @BeforeEach
    void connect() throws IOException {
        String why = IoUring.refusal();
        assumeTrue(why == null, () -> "this kernel refuses io_uring: " + why);
        listener = Sockets.listenTcp(InetAddress.getLoopbackAddress(), 0, 1);
        client = new Socket();
        fd = Loopback.connect(client, listener).fd();
        client.setSoTimeout(5_000);
    }

    @AfterEach
    void close() throws IOException {
        if (client == null) {
            return;
        }
        client.close();
        Fds.close(fd);
        Fds.close(listener);
    }

    @Test
    void aDueConnectionsAnswerIsSentWithinTheCallAndItsCountComesBack() throws IOException {
        RingSends sends = new RingSends(IoUring.open(8), log::add);
        Connection c = new Connection(fd, null);

        sends.due(c);
        sends.due(c);
        sends.beginRound();
        assertSame(c, sends.nextInRound());
        assertEquals(null, sends.nextInRound(), "due once, however often it asked");
        sends.add(c, ByteBuffer.wrap(ANSWER), ANSWER.length);
        sends.send(this::sent);

        assertEquals(1, results.size());
        assertSame(c, results.get(0)[0]);
        assertEquals(ANSWER.length, results.get(0)[1], "the bytes sent");
        byte[] got = client.getInputStream().readNBytes(ANSWER.length);
        assertEquals(new String(ANSWER, StandardCharsets.US_ASCII), new String(got, StandardCharsets.US_ASCII));
        assertTrue(sends.usable());
        assertTrue(log.isEmpty(), log.toString());
    }

    @Test
    void aRingThatFailsClosesItsCallsConnectionsAndHandsOverToWrite() {
        IoUring ring = IoUring.open(8);
        RingSends sends = new RingSends(ring, log::add);
        Connection c = new Connection(fd, null);
        sends.add(c, ByteBuffer.wrap(ANSWER), ANSWER.length);
        Fds.close(ring.fd()); // the kernel will refuse the call: EBADF

        sends.send(this::sent);

        assertEquals(1, results.size());
        assertSame(c, results.get(0)[0]);
        assertEquals(-Native.EIO, results.get(0)[1], "whether it went out is unknown: the connection closes");
        assertFalse(sends.usable(), "write(2) from now on");
        assertEquals(1, log.size(), log.toString());
        assertTrue(log.get(0).contains("write(2)"), log.get(0));
    }

    private void sent(Connection c, int result, int length) {
        results.add(new Object[] {c, result, length});
    }
}
