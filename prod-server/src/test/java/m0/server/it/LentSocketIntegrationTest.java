package m0.server.it;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.sun.net.httpserver.HttpServer;
import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@code --main} on the real binary with its handler threads writing their sockets themselves
 * (ADR 0071's last addendum): a MiB written in 64 writes of 16 KiB, pipelined between other
 * answers to a client with a small receive buffer (so the socket fills and the loop takes over
 * and hands back), arrives whole and in order; a client that resets mid-body leaves the worker
 * serving; and the bytes the handler threads wrote are counted in the metrics.
 */
class LentSocketIntegrationTest {

    static final int MIB = 1 << 20;

    static byte expected(int i) {
        return (byte) (i * 31 + (i >> 12));
    }

    /** /mib: a MiB, chunked, in 64 writes of 16 KiB; /small: "ok". */
    public static final class Streams {
        public static void main(String[] args) throws Exception {
            HttpServer s = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
            byte[] mib = new byte[MIB];
            for (int i = 0; i < mib.length; i++) {
                mib[i] = expected(i);
            }
            s.createContext("/mib", x -> {
                x.sendResponseHeaders(200, 0);
                try (OutputStream o = x.getResponseBody()) {
                    for (int at = 0; at < mib.length; at += 16 * 1024) {
                        o.write(mib, at, 16 * 1024);
                    }
                }
            });
            s.createContext("/endless", x -> {
                x.sendResponseHeaders(200, 0);
                try (OutputStream o = x.getResponseBody()) {
                    while (true) {
                        o.write(mib, 0, 16 * 1024); // until the connection is gone
                    }
                }
            });
            s.createContext("/small", x -> {
                x.sendResponseHeaders(200, 2);
                try (OutputStream o = x.getResponseBody()) {
                    o.write("ok".getBytes(StandardCharsets.ISO_8859_1));
                }
            });
            s.start();
        }
    }

    private static final Pattern METRICS = Pattern.compile("metrics on http://(127\\.0\\.0\\.1:\\d+)/metrics");

    @Test
    @Timeout(120)
    void pipelinedStreamsArriveInOrderAResetLeavesTheWorkerServingAndTheBytesAreCounted() throws Exception {
        try (ServerProcess s = ServerProcess.start("--workers", "1", "--main", Streams.class.getName(),
                "--metrics-bind", "127.0.0.1:0")) {
            String where = s.awaitLine(METRICS, 60);
            assertNotNull(where, "no 'metrics on' line");
            assertNotNull(s.awaitReady(60));
            long received = 0;

            // Pipelined: the second MiB waits behind the small answer, which waits behind the first.
            try (Socket c = client(s.port)) {
                String get = "GET %s HTTP/1.1\r\nHost: x\r\n\r\n";
                c.getOutputStream().write((get.formatted("/mib") + get.formatted("/small") + get.formatted("/mib"))
                        .getBytes(StandardCharsets.ISO_8859_1));
                CountingInput in = new CountingInput(new BufferedInputStream(c.getInputStream(), 4096));
                for (int k = 0; k < 3; k++) {
                    String head = head(in);
                    assertTrue(head.startsWith("HTTP/1.1 200"), head);
                    if (k == 1) {
                        assertTrue(head.toLowerCase().contains("content-length: 2"), head);
                        assertEquals("ok", new String(in.readNBytes(2), StandardCharsets.ISO_8859_1));
                        continue;
                    }
                    assertTrue(head.toLowerCase().contains("transfer-encoding: chunked"), head);
                    byte[] body = dechunk(in);
                    byte[] want = new byte[MIB];
                    for (int i = 0; i < want.length; i++) {
                        want[i] = expected(i);
                    }
                    assertArrayEquals(want, body, "answer " + k + ": the MiB whole and in order");
                }
                received += in.count;
            }

            // A client that reads a little of the body, then resets the connection.
            for (int k = 0; k < 3; k++) {
                try (Socket c = client(s.port)) {
                    c.getOutputStream().write("GET /mib HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
                    CountingInput in = new CountingInput(c.getInputStream());
                    head(in);
                    in.readNBytes(1000);
                    c.setSoLinger(true, 0); // the close is a reset
                }
            }

            // The worker serves on, on a fresh connection, the whole MiB.
            try (Socket c = client(s.port)) {
                c.getOutputStream().write("GET /mib HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                        .getBytes(StandardCharsets.ISO_8859_1));
                CountingInput in = new CountingInput(new BufferedInputStream(c.getInputStream()));
                head(in);
                assertEquals(MIB, dechunk(in).length);
                received += in.count;
            }

            // The handler threads' bytes are counted: sent covers what the two whole clients read.
            HttpClient scraper = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(10)).build();
            URI uri = URI.create("http://" + where + "/metrics");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            long sent = 0;
            while (sent < received && System.nanoTime() - deadline < 0) {
                String text = scraper.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString())
                        .body();
                sent = MetricsIntegrationTest.sum(text, "m0serve_sent_bytes_total", "");
                Thread.sleep(20); // polling the scrape until the worker's pass publishes, bounded
            }
            assertTrue(sent >= received, "sent " + sent + " bytes counted, the clients read " + received);
        }
    }

    /**
     * A client that reads a download for a while, its handler thread writing the socket itself,
     * then stops reading without closing: the worker must close it after the idle timeout, as it
     * does when the loop writes. The lent socket's deadline is none (the app is writing) at the
     * sweeps while it reads; the sweep must come again once the loop holds the rest.
     */
    @Test
    @Timeout(120)
    void aClientThatStopsReadingALentDownloadIsClosedAfterTheIdleTimeout() throws Exception {
        try (ServerProcess s = ServerProcess.start("--workers", "1", "--main", Streams.class.getName(),
                "--idle-timeout-ms", "1000")) {
            assertNotNull(s.awaitReady(60));
            try (Socket c = client(s.port)) {
                c.getOutputStream().write("GET /endless HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
                InputStream in = c.getInputStream();
                head(in);
                byte[] buf = new byte[64 * 1024];
                long readUntil = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(3500); // past a few sweeps
                while (System.nanoTime() - readUntil < 0) {
                    assertTrue(in.read(buf) > 0, "the download goes on while the client reads");
                }
                Thread.sleep(6000); // the client stops reading: idle for six idle timeouts
                c.setSoTimeout(10_000);
                // Closed: what the two sockets' buffers held, then the end. Open: the download
                // goes on once the client reads again, past anything buffers hold.
                long after = 0;
                boolean ended = false;
                try {
                    int n;
                    while (after < 64L * MIB && (n = in.read(buf)) >= 0) {
                        after += n;
                    }
                    ended = after < 64L * MIB;
                } catch (java.net.SocketException reset) {
                    ended = true; // closed with bytes unread: a reset
                }
                assertTrue(ended, "the server closes a client that stopped reading; it read " + after + " more");
            }
        }
    }

    private static Socket client(int port) throws IOException {
        Socket c = new Socket();
        c.setReceiveBufferSize(128 * 1024); // fixed, no autotuning: the server's socket fills
        c.connect(new InetSocketAddress("127.0.0.1", port), 10_000);
        c.setSoTimeout(20_000);
        return c;
    }

    private static final class CountingInput extends InputStream {
        private final InputStream in;
        long count;

        CountingInput(InputStream in) {
            this.in = in;
        }

        @Override
        public int read() throws IOException {
            int b = in.read();
            if (b >= 0) {
                count++;
            }
            return b;
        }

        @Override
        public int read(byte[] b, int off, int len) throws IOException {
            int n = in.read(b, off, len);
            if (n > 0) {
                count += n;
            }
            return n;
        }
    }

    private static String head(InputStream in) throws IOException {
        ByteArrayOutputStream h = new ByteArrayOutputStream();
        while (!h.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("EOF in a head: " + h.toString(StandardCharsets.ISO_8859_1));
            }
            h.write(b);
        }
        return h.toString(StandardCharsets.ISO_8859_1);
    }

    private static String line(InputStream in) throws IOException {
        StringBuilder sb = new StringBuilder();
        int b;
        while ((b = in.read()) != '\n') {
            if (b < 0) {
                throw new IOException("EOF in a chunk's size line");
            }
            if (b != '\r') {
                sb.append((char) b);
            }
        }
        return sb.toString();
    }

    private static byte[] dechunk(InputStream in) throws IOException {
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        while (true) {
            int size = Integer.parseInt(line(in), 16);
            if (size == 0) {
                assertEquals("", line(in));
                return body.toByteArray();
            }
            byte[] chunk = in.readNBytes(size);
            assertEquals(size, chunk.length, "EOF in a chunk");
            body.write(chunk);
            assertEquals("", line(in), "a chunk's end");
        }
    }
}
