package m0.server.worker;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
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
import org.junit.jupiter.api.io.TempDir;

/**
 * ADR 0071 in the loop, on a real socket: a file answer's bytes go with sendfile(2), the head
 * alone with write(2), and the worker's counters say so (strace is not available here: the
 * counters are what stats and the metrics show).
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
final class SendfileTest {

    private static final int LENGTH = 1 << 20;

    @TempDir
    Path dir;

    private final Epoll epoll = EventLoop.epoll();
    private final EventFd wake = new EventFd();
    private final int listener = Sockets.listenTcp(InetAddress.getLoopbackAddress(), 0, 4);
    private final Socket client = new Socket();
    private final ByteArrayOutputStream logged = new ByteArrayOutputStream();
    private ConnectionIo io;
    private Connection c;

    @AfterEach
    void close() throws IOException {
        if (c != null && !c.closed) {
            io.close(c);
        }
        client.close();
        Fds.close(listener);
        epoll.close();
        wake.close();
    }

    @Test
    void aFileAnswerLeavesBySendfileAndItsHeadByOneWrite() throws Exception {
        byte[] content = new byte[LENGTH];
        new Random(7).nextBytes(content);
        Path f = Files.write(dir.resolve("f.bin"), content);
        App app = r -> Response.file(200, "application/octet-stream", f);
        RateLimitedLog failures = new RateLimitedLog(new PrintStream(logged, true, StandardCharsets.UTF_8), "SendfileTest: ");
        io = new ConnectionIo(epoll, new ConnectionTable(), HttpConfig.defaults(), app, null, wake, failures, () -> { },
                false, false, null); // no ring: each write is a write(2), counted
        client.setSoTimeout(10_000);
        Loopback server = Loopback.connect(client, listener);
        c = io.admit(server.fd(), server.peer(), false, System.nanoTime());
        assertNotNull(c);
        client.getOutputStream().write("GET /f HTTP/1.1\r\nHost: t\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
        CompletableFuture<byte[]> read = CompletableFuture.supplyAsync(() -> readAnswer(client));

        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!read.isDone()) { // the loop, as the worker runs it, until the client has every byte
            assertTrue(System.nanoTime() - until < 0, "the answer did not arrive; log: " + logged);
            int n = epoll.awaitNanos(TimeUnit.MILLISECONDS.toNanos(50));
            long now = System.nanoTime();
            for (int i = 0; i < n; i++) {
                io.onEvent((int) epoll.data(i), epoll.events(i), now);
            }
        }
        byte[] wire = read.get();
        String text = new String(wire, StandardCharsets.ISO_8859_1);
        int end = text.indexOf("\r\n\r\n");
        assertTrue(text.startsWith("HTTP/1.1 200 ") && text.substring(0, end).contains("Content-Length: " + LENGTH), text.substring(0, end));
        assertArrayEquals(content, java.util.Arrays.copyOfRange(wire, end + 4, wire.length));
        assertEquals(LENGTH, io.sendfileBytes(), "every byte of the file went by sendfile(2)");
        assertTrue(io.sendfileCalls() >= 1, "sendfile calls: " + io.sendfileCalls());
        assertEquals(1, io.writeCalls(), "write(2) carried the head alone");
        assertEquals("", logged.toString(StandardCharsets.UTF_8));
    }

    /** One answer framed by Content-Length, read whole (the socket's timeout bounds it). */
    private static byte[] readAnswer(Socket s) {
        try {
            InputStream in = s.getInputStream();
            ByteArrayOutputStream got = new ByteArrayOutputStream();
            byte[] b = new byte[64 * 1024];
            while (true) {
                String text = got.toString(StandardCharsets.ISO_8859_1);
                int end = text.indexOf("\r\n\r\n");
                if (end > 0) {
                    int cl = text.indexOf("Content-Length: ");
                    int length = Integer.parseInt(text.substring(cl + 16, text.indexOf("\r\n", cl)));
                    if (got.size() >= end + 4 + length) {
                        return got.toByteArray();
                    }
                }
                int n = in.read(b);
                if (n < 0) {
                    throw new IOException("closed after " + got.size() + " bytes");
                }
                got.write(b, 0, n);
            }
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
