package m0.server.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import m0.server.jnr.IoUring;
import m0.server.stats.WorkerCounters;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;

/**
 * HTTP/1.1 behaviour of the real binary (one worker, short timeouts, the built-in app plus
 * {@code /big} loaded with --app), with the JDK's HttpClient and raw sockets. One server for
 * the class: starting JVMs is the slow part. The worker sends a pass's answers through io_uring
 * (ADR 0049); {@link HttpWithWritesIntegrationTest} runs the same with write(2).
 */
@Timeout(60)
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class HttpIntegrationTest {

    private static final long TIMEOUT_MS = 800;
    /** Only a connection the server never closes waits this long for its EOF. */
    private static final int HANG_MS = 30_000;
    private ServerProcess server;

    /** The worker's developer settings: its A/B arms. */
    java.util.List<String> dev() {
        return java.util.List.of();
    }

    @BeforeAll
    void start() throws Exception {
        server = ServerProcess.startWith(dev(), "--workers", "1", "--app", BigBodyApp.class.getName(),
                "--idle-timeout-ms", Long.toString(TIMEOUT_MS), "--header-timeout-ms", Long.toString(TIMEOUT_MS));
    }

    @AfterAll
    void stop() throws Exception {
        if (server != null) {
            server.close();
        }
    }

    @Test
    void keepAliveServesSeveralRequestsOnOneConnection() throws Exception {
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(10)).build();
        URI uri = URI.create("http://127.0.0.1:" + server.port + "/");
        for (int i = 0; i < 3; i++) {
            HttpResponse<String> r = client.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, r.statusCode());
            assertEquals("hello\n", r.body());
            assertTrue(r.headers().firstValue("date").isPresent(), "Date header");
        }
        // The same on one raw socket: the second request is answered on the first's connection.
        try (Http h = new Http(server.port)) {
            for (int i = 0; i < 3; i++) {
                h.send(Http.get("/"));
                Http.Response r = h.read();
                assertNotNull(r, "response " + i);
                assertEquals(200, r.status());
                assertEquals("6", r.header("Content-Length"));
            }
        }
    }

    @Test
    void threePipelinedRequestsInOneWriteAreAnsweredInOrder() throws Exception {
        try (Http h = new Http(server.port)) {
            h.send(Http.get("/") + Http.get("/pid") + Http.get("/no-such-page"));
            Http.Response first = h.read();
            Http.Response second = h.read();
            Http.Response third = h.read();
            assertEquals(200, first.status());
            assertEquals("hello\n", first.body());
            assertEquals(200, second.status());
            assertTrue(second.body().matches("\\d+ 0\n"), "pid and index 0: " + second.body());
            assertEquals(404, third.status());
        }
    }

    @Test
    void pipelinedLargeResponsesGoOutInOrderThroughPartialWrites() throws Exception {
        // 16 MiB of responses against a 256 KiB receive window: the worker's writes must go
        // partial and resume on EPOLLOUT, in request order, without a byte lost. (Before the
        // loop kept EPOLLOUT after a pass's share of writes, this stalled at 4 MiB until the
        // header timeout answered 408.)
        String letters = "abcdefghijklmnop";
        StringBuilder batch = new StringBuilder();
        for (char c : letters.toCharArray()) {
            batch.append(Http.get("/big/" + c));
        }
        try (Http h = new Http(server.port, 20_000, 256 * 1024)) {
            h.send(batch.toString());
            for (char c : letters.toCharArray()) {
                Http.Response r = h.read();
                assertNotNull(r, "response /big/" + c);
                assertEquals(200, r.status());
                assertEquals(BigBodyApp.BIG, r.body().length());
                assertEquals(String.valueOf(c).repeat(BigBodyApp.BIG), r.body(), "body of /big/" + c);
            }
        }
    }

    /** What the worker's start-up line says about its writes: the kernel and this class's developer settings pick it. */
    String writes() {
        return IoUring.refusal() == null ? "answers sent through io_uring"
                : "answers written with write(2)"; // this kernel refuses a ring (ADR 0049's fallback)
    }

    @Test
    void theWorkerSaysHowItWritesItsAnswers() throws Exception {
        assertTrue(server.stderr().contains(writes()), server.stderr());
    }

    @Test
    void theWorkersCountersSayWhichWayItsAnswersWent() throws Exception {
        long[] before = answerCounts();
        int requests = 20;
        try (Http h = new Http(server.port, 10_000, 64 * 1024)) {
            for (int k = 0; k < requests; k++) {
                h.send(Http.get("/"));
                Http.Response r = h.read();
                assertNotNull(r, "response " + k);
                assertEquals(200, r.status());
            }
        }
        // The way the worker said it writes (theWorkerSaysHowItWritesItsAnswers holds that line).
        boolean ring = server.stderr().contains("answers sent through io_uring");
        // One client, one request at a time: each pass answers one, in one send and one call, or
        // one write(2). Published at the end of that pass, a moment after the client has the
        // bytes, word by word: poll until the last word is in.
        long[] expected = ring ? new long[] {requests, requests, 0} : new long[] {0, 0, requests};
        long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
        long[] grew;
        do {
            long[] after = answerCounts();
            grew = new long[] {after[0] - before[0], after[1] - before[1], after[2] - before[2]};
            if (java.util.Arrays.equals(grew, expected) || System.nanoTime() - deadline > 0) {
                break;
            }
            Thread.sleep(10); // polling a condition, bounded by the deadline
        } while (true);
        assertEquals(java.util.Arrays.toString(expected), java.util.Arrays.toString(grew),
                "sends through io_uring, their calls, write(2) calls (ring: " + ring + ")");
    }

    /** The live workers' {@code RING_SENDS}, {@code RING_CALLS} and {@code WRITES}, summed. */
    private long[] answerCounts() {
        long[] sum = new long[3];
        for (WorkerCounters c : WorkerCounters.ofLiveWorkers(server.pid()).values()) {
            sum[0] += c.word(WorkerCounters.RING_SENDS);
            sum[1] += c.word(WorkerCounters.RING_CALLS);
            sum[2] += c.word(WorkerCounters.WRITES);
        }
        return sum;
    }

    @Test
    void manyConnectionsWithLargePipelinedAnswersEachGetOnlyTheirOwnBytes() throws Exception {
        // Six connections, each with four 1 MiB answers owed at once: a pass's sends fill a call
        // (four 64 KiB chunks, ADR 0049), go partial on small windows and resume across passes.
        // Each connection asks for its own letters, so a byte of another's answer would show.
        String[] letters = {"abcd", "efgh", "ijkl", "mnop", "qrst", "uvwx"};
        Http[] clients = new Http[letters.length];
        try {
            for (int i = 0; i < letters.length; i++) {
                clients[i] = new Http(server.port, 20_000, 128 * 1024);
            }
            for (int i = 0; i < letters.length; i++) {
                StringBuilder batch = new StringBuilder();
                for (char c : letters[i].toCharArray()) {
                    batch.append(Http.get("/big/" + c));
                }
                clients[i].send(batch.toString());
            }
            for (int i = 0; i < letters.length; i++) {
                for (char c : letters[i].toCharArray()) {
                    Http.Response r = clients[i].read();
                    assertNotNull(r, "connection " + i + ", response /big/" + c);
                    assertEquals(200, r.status());
                    assertEquals(String.valueOf(c).repeat(BigBodyApp.BIG), r.body(), "connection " + i + ", body of /big/" + c);
                }
            }
        } finally {
            for (Http h : clients) {
                if (h != null) {
                    h.close();
                }
            }
        }
    }

    @Test
    void chunkedRequestBodyIsReadAndTheConnectionStaysUsable() throws Exception {
        try (Http h = new Http(server.port)) {
            h.send("POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + "5\r\nhello\r\n7\r\n, world\r\n0\r\n\r\n");
            Http.Response r = h.read();
            assertEquals(200, r.status());
            h.send(Http.get("/"));
            assertEquals("hello\n", h.read().body(), "the request after a chunked body");
        }
    }

    @Test
    void garbageGets400AndAClose() throws Exception {
        try (Http h = new Http(server.port)) {
            h.send("THIS IS NOT HTTP\r\n\r\n");
            Http.Response r = h.read();
            assertEquals(400, r.status());
            assertTrue(h.readsEof(), "closed after 400");
        }
    }

    @Test
    void a64KiBHeaderGets431() throws Exception {
        try (Http h = new Http(server.port)) {
            String big = "X-Big: " + "a".repeat(64 * 1024) + "\r\n";
            byte[] req = ("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n" + big + "\r\n").getBytes(StandardCharsets.ISO_8859_1);
            try {
                h.send(req);
            } catch (java.io.IOException e) {
                // the server may answer and close before it has read everything we send
            }
            Http.Response r = h.read();
            assertNotNull(r, "a response before the close");
            assertEquals(431, r.status());
        }
    }

    /**
     * The server closes an idle keep-alive connection of its own accord: quietly (EOF, no bytes),
     * after an answer that did not say close. How soon (the timeout, {@value #TIMEOUT_MS} ms) is
     * the setting's figure, not asserted: a loaded machine delays the client's clock, not the
     * server's. Only a connection never closed reaches the read timeout (a hang).
     */
    @Test
    void anIdleKeepAliveConnectionIsClosedAfterTheIdleTimeout() throws Exception {
        try (Http h = new Http(server.port, HANG_MS)) {
            h.send(Http.get("/"));
            Http.Response r = h.read();
            assertEquals(200, r.status());
            assertNotEquals("close", r.header("Connection"), "kept alive by its answer: the close comes later");
            assertTrue(h.readsEof(), "closed while idle, quietly (EOF before any byte)");
        }
    }

    /** A head never finished is answered 408 by the header timeout, then closed. */
    @Test
    void aSlowHeaderClientIsTimedOut() throws Exception {
        try (Http h = new Http(server.port, HANG_MS)) {
            h.send("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n"); // never finishes its head
            Http.Response r = h.read();
            if (r != null) {
                assertEquals(408, r.status());
            }
            assertTrue(h.readsEof(), "closed after the header timeout");
        }
    }
}
