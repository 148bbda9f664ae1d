package m0.server.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 9, the connection half, on the real binary (one worker, the built-in app): a client
 * that floods pipelined requests without reading costs the worker no heap while others are
 * served; a trickled head is closed by the header timeout; no Host is a 400; a client
 * writing 10 MB past --max-body-bytes reads its 413 instead of a reset (lingering close).
 */
@Timeout(120)
class HostileClientIntegrationTest {

    private static final long HEADER_TIMEOUT_MS = 1500;
    private static final int MAX_BODY = 64 * 1024;
    /** The flood: what a client that never reads would send, at most, in 1 MiB of pipelined GETs. */
    private static final int FLOOD_MIB = 400;
    private static final int FLOOD_ROUNDS = 50;
    private static final int NEIGHBOUR_PER_ROUND = 20;
    /** A trickle of 20 pieces, one every 500 ms: 10 s, against a 1.5 s header timeout. */
    private static final int TRICKLE_PIECES = 20;
    private static final long TRICKLE_PAUSE_MS = 500;
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

    /**
     * The flood is written without blocking until the kernel takes no more (the server's receive
     * buffer and ours full); then the neighbour is served {@value #NEIGHBOUR_PER_ROUND} requests,
     * its worker passing meanwhile, and the flood is written again. When a round's write takes
     * nothing, the server has stopped reading the flood (its answers wait, unread, past the
     * output's high-water mark): a state, reached in a few rounds. A server that kept reading
     * takes a little more at every round, up to the flood's {@value #FLOOD_MIB} MiB.
     */
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
        long sent = 0;
        long maxGrowth = 0;
        int served = 0;
        int rounds = 0;
        boolean stalled = false;
        try (SocketChannel flood = SocketChannel.open(new InetSocketAddress("127.0.0.1", server.port));
             Http other = new Http(server.port, 60_000)) {
            flood.configureBlocking(false);
            sent += fill(flood, mib, sent);
            while (!stalled && rounds < FLOOD_ROUNDS && sent < (long) FLOOD_MIB << 20) {
                rounds++;
                for (int i = 0; i < NEIGHBOUR_PER_ROUND; i++) {
                    Http.Response r;
                    try {
                        other.send(Http.get("/"));
                        r = other.read();
                    } catch (IOException e) {
                        throw new AssertionError("the flood's neighbour lost its connection after " + served
                                + " answers (the worker " + (ProcessHandle.of(worker).map(ProcessHandle::isAlive)
                                .orElse(false) ? "lives" : "died") + ", " + (sent >> 20) + " MiB of flood taken)", e);
                    }
                    assertNotNull(r, "a keep-alive neighbour of the flood is still served (after " + served + ")");
                    assertEquals(200, r.status());
                    served++;
                }
                maxGrowth = Math.max(maxGrowth, rssKiB(worker) - before);
                long wrote = fill(flood, mib, sent);
                sent += wrote;
                stalled = wrote == 0;
            }
        }
        long floodMiB = sent >> 20;
        System.out.printf("flood: %d KiB taken by the server in %d rounds (%s), neighbour served %d, worker RSS grew"
                + " at most %d KiB%n", sent >> 10, rounds, stalled ? "then nothing" : "still taking", served, maxGrowth);
        assertTrue(stalled, "the server kept reading the flood: " + floodMiB + " MiB over " + rounds + " rounds");
        assertTrue(floodMiB < 100, "the server stopped reading the flood only after " + floodMiB + " MiB");
        assertTrue(maxGrowth < 32 * 1024, "worker RSS grew by " + maxGrowth + " KiB during the flood (sent "
                + floodMiB + " MiB)");
        assertTrue(server.process.isAlive() && ProcessHandle.of(worker).map(ProcessHandle::isAlive).orElse(false),
                "the worker lives");
    }

    /** Writes the flood until the kernel takes no more (or the flood is all sent); the bytes taken. */
    private static long fill(SocketChannel flood, byte[] mib, long sentBefore) throws IOException {
        long sent = 0;
        for (;;) {
            long at = sentBefore + sent;
            if (at >= (long) FLOOD_MIB << 20) {
                return sent;
            }
            int off = (int) (at % mib.length);
            int n = flood.write(ByteBuffer.wrap(mib, off, mib.length - off));
            if (n == 0) {
                return sent;
            }
            sent += n;
        }
    }

    /**
     * A head trickled a byte every {@value #TRICKLE_PAUSE_MS} ms (after two empty lines, fewer
     * than the parser's cap on them) must be cut by the header timeout: a 408, before the
     * trickle's {@value #TRICKLE_PIECES} pieces run out. A clock restarted by every byte would
     * let the trickle hold the connection to its end.
     */
    @Test
    void aTrickledHeadIsClosedByTheHeaderTimeout() throws Exception {
        try (Http h = new Http(server.port, 60_000)) {
            String pieces = "\n\nGET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Trickle: abcdefghijklmnopqrstuvwxyz";
            AtomicInteger sent = new AtomicInteger();
            Thread trickle = new Thread(() -> {
                try {
                    for (int i = 0; i < TRICKLE_PIECES; i++) {
                        h.send(pieces.substring(i, i + 1));
                        sent.incrementAndGet();
                        Thread.sleep(TRICKLE_PAUSE_MS); // the client's pace, not a synchronisation
                    }
                } catch (IOException | InterruptedException e) {
                    // closed by the server: what we want
                }
            }, "trickle");
            trickle.setDaemon(true);
            trickle.start();
            Http.Response r = h.read();
            int piecesBefore = sent.get();
            assertNotNull(r, "an answer before the close");
            assertEquals(408, r.status(), "the header timeout's answer");
            assertTrue(piecesBefore < TRICKLE_PIECES, "the trickle held the connection to its end ("
                    + piecesBefore + " pieces): the header timeout did not cut it");
            assertTrue(h.readsEof(), "then closed");
            System.out.println("trickle: 408 after " + piecesBefore + " of " + TRICKLE_PIECES + " pieces");
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
