package m0.server.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 9, the connection half, on the real binary (one worker, the built-in app): a client
 * that floods pipelined requests without reading costs the worker no heap while others are
 * served; a trickle of empty lines is closed by the header timeout; no Host is a 400; a client
 * writing 10 MB past --max-body-bytes reads its 413 instead of a reset (lingering close).
 */
@Timeout(120)
class HostileClientIntegrationTest {

    private static final long HEADER_TIMEOUT_MS = 1500;
    private static final int MAX_BODY = 64 * 1024;
    private static ServerProcess server;
    private static long worker;

    @BeforeAll
    static void start() throws Exception {
        server = ServerProcess.start("--workers", "1", "--header-timeout-ms", Long.toString(HEADER_TIMEOUT_MS),
                "--idle-timeout-ms", "3000", "--max-body-bytes", Integer.toString(MAX_BODY));
        assertNotNull(server.awaitReady(ServerProcess.START_SECONDS), "m0serve ready");
        List<ProcessHandle> workers = server.descendants();
        assertEquals(1, workers.size(), "one worker JVM");
        worker = workers.get(0).pid();
    }

    @AfterAll
    static void stop() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    /** The worker's resident set in KiB, from /proc. */
    private static long rssKiB(long pid) throws IOException {
        for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
            if (line.startsWith("VmRSS:")) {
                return Long.parseLong(line.replaceAll("[^0-9]", ""));
            }
        }
        throw new IOException("no VmRSS for " + pid);
    }

    @Test
    void aPipelinedFloodWithoutReadingCostsNoHeapAndOthersAreServed() throws Exception {
        try (Http warm = new Http(server.port)) {
            for (int i = 0; i < 200; i++) {
                warm.send(Http.get("/"));
                assertEquals(200, warm.read().status());
            }
        }
        long before = rssKiB(worker);
        byte[] mib = Http.get("/").repeat((1 << 20) / Http.get("/").length()).getBytes(StandardCharsets.ISO_8859_1);
        AtomicLong sent = new AtomicLong();
        AtomicReference<Throwable> floodError = new AtomicReference<>();
        Http flood = new Http(server.port);
        Thread t = new Thread(() -> {
            try {
                OutputStream o = flood.socket.getOutputStream();
                while (sent.get() < 400L << 20) {
                    o.write(mib); // blocks once the server stops reading and the buffers are full
                    sent.addAndGet(mib.length);
                }
            } catch (IOException e) {
                floodError.set(e); // closed by us at the end, or reset by a dying worker
            }
        }, "flood");
        t.setDaemon(true);
        t.start();
        long maxGrowth = 0;
        try (Http other = new Http(server.port)) {
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(8);
            int served = 0;
            while (System.nanoTime() - until < 0) {
                other.send(Http.get("/"));
                Http.Response r = other.read();
                assertNotNull(r, "a keep-alive neighbour of the flood is still served (after " + served + ")");
                assertEquals(200, r.status());
                served++;
                maxGrowth = Math.max(maxGrowth, rssKiB(worker) - before);
                Thread.sleep(50);
            }
            assertTrue(served > 20, "served " + served);
        } finally {
            flood.close();
        }
        t.join(10_000);
        long floodMiB = sent.get() >> 20;
        assertTrue(floodMiB < 100, "the server stopped reading the flood: it took " + floodMiB + " MiB");
        assertTrue(maxGrowth < 32 * 1024, "worker RSS grew by " + maxGrowth + " KiB during the flood (sent "
                + floodMiB + " MiB, " + floodError.get() + ")");
        assertTrue(server.process.isAlive() && ProcessHandle.of(worker).map(ProcessHandle::isAlive).orElse(false),
                "the worker lives");
    }

    @Test
    void aTrickleOfEmptyLinesIsClosedByTheHeaderTimeout() throws Exception {
        try (Http h = new Http(server.port, 10_000)) {
            long start = System.nanoTime();
            Thread trickle = new Thread(() -> {
                try {
                    for (int i = 0; i < 40; i++) { // 20 s of one LF every 500 ms, unless closed first
                        h.send("\n");
                        Thread.sleep(500);
                    }
                } catch (IOException | InterruptedException e) {
                    // closed by the server: what we want
                }
            }, "trickle");
            trickle.setDaemon(true);
            trickle.start();
            Http.Response r;
            try {
                r = h.read();
            } catch (java.net.SocketTimeoutException e) {
                fail("a trickle of LFs held the connection open past " + (System.nanoTime() - start) / 1_000_000 + " ms");
                return;
            }
            long ms = (System.nanoTime() - start) / 1_000_000;
            assertNotNull(r, "an answer before the close");
            assertTrue(r.status() == 408 || r.status() == 400, "408 (or 400 for too many empty lines): " + r.status());
            assertTrue(ms >= HEADER_TIMEOUT_MS - 100 && ms < HEADER_TIMEOUT_MS + 5_000, "closed after " + ms + " ms");
            assertTrue(h.readsEof(), "then closed");
        }
    }

    @Test
    void noHostAndAnHttp09LineAre400AtOnce() throws Exception {
        try (Http h = new Http(server.port)) {
            h.send("GET / HTTP/1.1\r\n\r\n");
            Http.Response r = h.read();
            assertEquals(400, r.status(), "HTTP/1.1 without Host");
            assertEquals("close", r.header("Connection"));
        }
        try (Http h = new Http(server.port)) {
            h.send("GET /\r\n"); // HTTP/0.9: no version, and no empty line will ever follow
            Http.Response r = h.read();
            assertEquals(400, r.status(), "answered at the line, not by the header timeout (408)");
        }
    }

    @Test
    void aClientWriting10MbPastTheBodyLimitReadsIts413() throws Exception {
        int total = 10 * 1024 * 1024;
        try (Http h = new Http(server.port, 30_000)) {
            h.send("POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: " + total + "\r\n\r\n");
            byte[] chunk = new byte[64 * 1024];
            OutputStream o = h.socket.getOutputStream();
            for (int sent = 0; sent < total; sent += chunk.length) {
                try {
                    o.write(chunk); // as curl does: the whole body before looking for an answer
                } catch (IOException e) {
                    fail("reset after " + (sent >> 10) + " KiB of the body: " + e);
                }
            }
            Http.Response r = h.read();
            assertNotNull(r, "an answer, not EOF");
            assertEquals(413, r.status());
            assertEquals("close", r.header("Connection"));
            assertTrue(h.readsEof(), "then a clean close");
        }
    }
}
