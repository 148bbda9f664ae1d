package m0.server.worker;

import static org.junit.jupiter.api.Assertions.assertAll;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import m0.server.http.App;
import m0.server.http.HttpConfig;
import m0.server.http.Response;
import m0.server.jnr.Epoll;
import m0.server.jnr.EventFd;
import m0.server.jnr.Fds;
import m0.server.jnr.IoUring;
import m0.server.jnr.Sockets;
import m0.server.log.RateLimitedLog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A pass's answers through the ring (docs/adr/0049) against the loop's one output scratch
 * (docs/adr/0036): a connection whose answer sits in the scratch is queued into a full call, and
 * that call's results run session code that takes the scratch for another connection's next
 * answer. Its bytes must be looked at after that call went, not before: the bytes seen before are
 * the other client's by then.
 *
 * <p>Production's call holds 256 sends, so reaching this takes hundreds of connections flushed in
 * one pass. With one send a call the same order of events takes two, driven here through one pass
 * by hand, in a fixed order, over real sockets and a real ring. Each asks for an answer past the
 * session's output high water (256 KiB), so its second, pipelined ask is parsed only once the
 * first answer has gone: x {@code /x1} (six sends) then {@code /x2}, y {@code /y1} (five sends)
 * then {@code /y2}. A round takes the last due first and each round's results make the next
 * round's order, so the two alternate, one send a call:
 * <ol>
 *   <li>rounds 1 to 5 send x's and y's first answers a send each; in round 5 y's last send goes in
 *       a call sent when x finds it full, and its result lets y encode {@code /y2}, into the
 *       scratch;
 *   <li>round 6 queues x's last send, then y, which finds the call full. That call's result ends
 *       {@code /x1}, so x encodes {@code /x2} into the scratch and y's {@code /y2} is copied into an
 *       array of its own. Only now may y's output be looked at.
 * </ol>
 * With y's output taken before the full call went (the order d89bc66 fixed), y's client reads
 * x's {@code /x2} answer where its own {@code /y2} should be (checked by putting that order back;
 * so does x, reading {@code /y2}, with the copy-out of {@code HeldBytes.borrow} taken away).
 * Nothing here asserts the order of rounds itself: with first-in-first-out rounds the fixed code
 * passes too, and the old order still fails.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
final class SendDueTest {

    /** Past the session's output high water (256 KiB): six sends (five of 64 KiB and the rest), and five. */
    private static final int X_FIRST = 5 * ConnectionIo.IO_BYTES + 4_000;
    private static final int Y_FIRST = 4 * ConnectionIo.IO_BYTES + 4_000;

    /** Each answer names its ask: the first ones in many bytes of their connection's letter. */
    private static final App APP = request -> switch (request.path()) {
        case "/x1" -> Response.text(200, "x".repeat(X_FIRST));
        case "/y1" -> Response.text(200, "y".repeat(Y_FIRST));
        default -> Response.text(200, request.path());
    };

    private final Epoll epoll = EventLoop.epoll();
    private final EventFd wake = new EventFd();
    private int listener = -1;
    private final Socket xClient = new Socket();
    private final Socket yClient = new Socket();
    private IoUring ring;
    private RingSends sends;
    private ConnectionIo io;
    /** What the worker would log: a closed connection or a failed ring would show here. */
    private final ByteArrayOutputStream logged = new ByteArrayOutputStream();
    private final List<Connection> admitted = new ArrayList<>();

    @BeforeEach
    void open() throws IOException {
        String why = IoUring.refusal(); // without a ring the worker writes with write(2): no calls to fill
        assumeTrue(why == null, () -> "this kernel refuses io_uring: " + why);
        RateLimitedLog failures = new RateLimitedLog(new PrintStream(logged, true, StandardCharsets.UTF_8), "SendDueTest: ");
        ring = IoUring.open(8);
        sends = new RingSends(ring, 1, failures::log);
        io = new ConnectionIo(epoll, new ConnectionTable(), HttpConfig.defaults(), APP, null, wake, failures, () -> { },
                false, false, sends);
        listener = Sockets.listenTcp(InetAddress.getLoopbackAddress(), 0, 4);
    }

    @AfterEach
    void close() throws IOException {
        if (io != null) {
            admitted.forEach(io::close);
        }
        xClient.close();
        yClient.close();
        if (listener >= 0) {
            Fds.close(listener);
        }
        if (ring != null && (sends == null || sends.usable())) { // a ring that failed was closed by RingSends
            ring.close();
        }
        epoll.close();
        wake.close();
    }

    @Test
    void aConnectionsOutputIsLookedAtOnlyAfterTheFullCallBeforeItWent() throws IOException {
        Connection x = connect(xClient);
        Connection y = connect(yClient);
        xClient.getOutputStream().write(asks("/x1", "/x2"));
        yClient.getOutputStream().write(asks("/y1", "/y2"));
        awaitReadable(x.fd, y.fd);

        long now = System.nanoTime();
        io.batchSends();
        io.onEvent(x.fd, Epoll.IN, now); // x first, so that y is the last due and sent first
        io.onEvent(y.fd, Epoll.IN, now);
        io.sendDue(now);

        // What the trace takes of the kernel and the loop: every send whole, all in this one pass
        // (six of /x1, five of /y1, /y2, /x2), and nothing closed or logged on the way. The order
        // itself shows only in what the clients read.
        assertEquals(13, sends.sendCount(), "sends");
        assertEquals(13, sends.callCount(), "calls");
        assertNull(x.session.output(), "x's answers all went in this pass");
        assertNull(y.session.output(), "y's answers all went in this pass");
        assertEquals("", logged.toString(StandardCharsets.UTF_8), "the worker's log");

        List<String> xRead = bodies(xClient, 2);
        List<String> yRead = bodies(yClient, 2);
        assertAll(
                () -> assertEquals(List.of(X_FIRST + " x", "/x2"), xRead, "x's answers must be its own"),
                () -> assertEquals(List.of(Y_FIRST + " y", "/y2"), yRead, "y's answers must be its own"));
    }

    private Connection connect(Socket client) throws IOException {
        client.setTcpNoDelay(true);
        client.setSoTimeout(5_000);
        Loopback server = Loopback.connect(client, listener);
        int fd = server.fd();
        // What the trace needs of the kernel: every send taken whole while the client does not read
        // (loopback autotunes the send buffer to megabytes at the handshake).
        int sendBuffer = Sockets.sendBufferSize(fd);
        assertTrue(sendBuffer >= 2 * X_FIRST,
                () -> "this kernel's loopback send buffer (" + sendBuffer + " bytes) is too small for the test's trace");
        Connection c = io.admit(fd, server.peer(), false, System.nanoTime());
        assertNotNull(c, "admitted");
        admitted.add(c);
        return c;
    }

    private static byte[] asks(String first, String second) {
        return ("GET " + first + " HTTP/1.1\r\nHost: t\r\n\r\nGET " + second + " HTTP/1.1\r\nHost: t\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII);
    }

    /** Until epoll reports both descriptors readable: their asks are in the kernel, whole. */
    private void awaitReadable(int a, int b) {
        Set<Integer> seen = new HashSet<>();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (!(seen.contains(a) && seen.contains(b))) {
            assertTrue(System.nanoTime() - deadline < 0, "the asks did not arrive");
            int n = epoll.awaitNanos(TimeUnit.MILLISECONDS.toNanos(100));
            for (int i = 0; i < n; i++) {
                seen.add((int) epoll.data(i));
            }
        }
    }

    /**
     * The bodies of the first {@code count} answers on {@code client}'s stream; a body of one letter
     * repeated as its count and the letter ("266144 y"), so that a failure prints a line.
     */
    private static List<String> bodies(Socket client, int count) throws IOException {
        InputStream in = client.getInputStream();
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        byte[] buf = new byte[16 * 1024];
        String[] found;
        while ((found = parse(got.toString(StandardCharsets.ISO_8859_1), count)) == null) {
            int n;
            try {
                n = in.read(buf);
            } catch (SocketTimeoutException e) {
                throw new AssertionError("answers incomplete after 5 s: " + got.size() + " bytes", e);
            }
            if (n < 0) {
                throw new AssertionError("closed after " + got.size() + " bytes");
            }
            got.write(buf, 0, n);
        }
        List<String> out = new ArrayList<>();
        for (String body : found) {
            boolean oneLetter = body.length() > 16 && body.chars().allMatch(ch -> ch == body.charAt(0));
            out.add(oneLetter ? body.length() + " " + body.charAt(0) : body.length() > 64 ? body.substring(0, 64) + "…" : body);
        }
        return out;
    }

    /** {@code count} bodies framed by Content-Length, or null while the stream holds fewer. */
    private static String[] parse(String stream, int count) {
        String[] out = new String[count];
        int at = 0;
        for (int k = 0; k < count; k++) {
            int headEnd = stream.indexOf("\r\n\r\n", at);
            if (headEnd < 0) {
                return null;
            }
            String head = stream.substring(at, headEnd).toLowerCase(java.util.Locale.ROOT);
            int cl = head.indexOf("content-length:");
            assertTrue(cl >= 0, () -> "no content-length in " + head);
            int lineEnd = head.indexOf("\r\n", cl);
            int length = Integer.parseInt(head.substring(cl + 15, lineEnd < 0 ? head.length() : lineEnd).trim());
            int bodyEnd = headEnd + 4 + length;
            if (stream.length() < bodyEnd) {
                return null;
            }
            out[k] = stream.substring(headEnd + 4, bodyEnd);
            at = bodyEnd;
        }
        return out;
    }
}
