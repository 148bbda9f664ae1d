package m0.server.http;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.HexFormat;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Streamed bodies both ways, on real threads: this test thread is the loop (it feeds the
 * session, and writes its output only when it chooses), a pool thread is the app. The bounds are
 * the point: a client that does not read holds the writer, not the heap; a handler that does not
 * read stops the loop reading, and nothing is buffered past the pipe and one read.
 */
@Timeout(30)
class StreamingTest {

    private static final int PIECE = 16 * 1024;

    private final ExecutorService pool = Executors.newFixedThreadPool(2, r -> {
        Thread t = new Thread(r, "streaming-test-app");
        t.setDaemon(true);
        return t;
    });
    private final Semaphore wakes = new Semaphore(0);
    private long now = 1_000_000_000L;

    @AfterEach
    void stop() {
        pool.shutdownNow();
    }

    private HttpSession session(App app) {
        return new HttpSession(HttpConfig.defaults(), app, pool, wakes::release, now);
    }

    private static void feed(HttpSession s, byte[] b, long now) {
        ByteBuffer in = ByteBuffer.allocateDirect(b.length);
        in.put(b).flip();
        s.onBytes(in, now);
    }

    /** Waits for the app's next wake-up (bounded), then does what the loop does after one. */
    private void awaitWake(HttpSession s) throws InterruptedException {
        assertTrue(wakes.tryAcquire(10, TimeUnit.SECONDS), "no wake-up from the app's thread");
        s.pollCompletions(now);
    }

    /** Writes all of the session's output now into {@code sink}. */
    private static void writeAll(HttpSession s, ByteArrayOutputStream sink) {
        ByteBuffer o;
        while ((o = s.output()) != null) {
            byte[] b = new byte[o.remaining()];
            o.get(b);
            sink.write(b, 0, b.length);
            s.written(b.length);
        }
    }

    private static void awaitBlocked(Thread t) {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (t.getState() != Thread.State.WAITING && t.getState() != Thread.State.TIMED_WAITING) {
            assertTrue(System.nanoTime() < until, "the writer never blocked: " + t.getState());
            Thread.onSpinWait();
        }
    }

    private static byte[] pattern(int n) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (i * 31 + (i >> 10));
        }
        return b;
    }

    @Test
    void aClientThatDoesNotReadBlocksTheWriterAndTheHeapStaysBounded() throws Exception {
        byte[] body = pattern(8 << 20);
        AtomicLong written = new AtomicLong();
        Thread[] writer = new Thread[1];
        App app = new App() {
            @Override
            public boolean blocking(Request r) {
                return true;
            }

            @Override
            public Response handle(Request r) {
                return Response.stream(200, "application/octet-stream", body.length, out -> {
                    writer[0] = Thread.currentThread();
                    for (int off = 0; off < body.length; off += PIECE) {
                        out.write(body, off, PIECE);
                        written.addAndGet(PIECE);
                    }
                });
            }
        };
        HttpSession s = session(app);
        feed(s, "GET /big HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1), now);
        // The loop moves bytes only when woken and only up to the high water, and writes nothing:
        // the writer must come to a stop with at most the pipe and the output held.
        while (writer[0] == null || (writer[0].getState() != Thread.State.WAITING
                && writer[0].getState() != Thread.State.TIMED_WAITING)) {
            if (wakes.tryAcquire(50, TimeUnit.MILLISECONDS)) {
                s.pollCompletions(now);
            }
        }
        awaitBlocked(writer[0]);
        long held = written.get();
        assertTrue(held <= Exchange.PIPE_BYTES + HttpSession.OUT_HIGH_WATER + 2L * PIECE,
                "the writer got " + held + " bytes ahead of a client that reads nothing");
        assertTrue(held < body.length);
        // Now the client reads: everything arrives, in order, framed by its Content-Length.
        ByteArrayOutputStream client = new ByteArrayOutputStream();
        while (true) {
            writeAll(s, client);
            if (client.size() > body.length) {
                String wire = client.toString(StandardCharsets.ISO_8859_1);
                int headEnd = wire.indexOf("\r\n\r\n") + 4;
                if (client.size() - headEnd == body.length) {
                    break;
                }
            }
            awaitWake(s);
        }
        String wire = client.toString(StandardCharsets.ISO_8859_1);
        int headEnd = wire.indexOf("\r\n\r\n") + 4;
        assertTrue(wire.startsWith("HTTP/1.1 200 OK\r\n"), wire.substring(0, 40));
        assertTrue(wire.substring(0, headEnd).contains("Content-Length: " + body.length + "\r\n"));
        byte[] got = java.util.Arrays.copyOfRange(client.toByteArray(), headEnd, client.size());
        assertArrayEquals(body, got);
        assertFalse(s.closeAfterFlush());
    }

    @Test
    void aHandlerThatDoesNotReadStopsTheLoopReadingAndGetsEveryByteWhenItDoes() throws Exception {
        byte[] body = pattern(1 << 20);
        CountDownLatch go = new CountDownLatch(1);
        ExchangeApp app = x -> {
            go.await(10, TimeUnit.SECONDS);
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            long n = 0;
            byte[] buf = new byte[4096];
            try (InputStream in = x.requestBody()) {
                for (int r; (r = in.read(buf)) >= 0; ) {
                    sha.update(buf, 0, r);
                    n += r;
                }
            }
            byte[] answer = (n + " " + HexFormat.of().formatHex(sha.digest())).getBytes(StandardCharsets.ISO_8859_1);
            x.sendHead(200, answer.length);
            x.body().write(answer);
            x.finish();
        };
        HttpSession s = session(app);
        byte[] head = ("POST /up HTTP/1.1\r\nHost: x\r\nContent-Length: " + body.length + "\r\n\r\n")
                .getBytes(StandardCharsets.ISO_8859_1);
        feed(s, head, now);
        // The loop reads while the session wants input; the handler reads nothing yet.
        int fed = 0;
        while (fed < body.length && s.wantsInput()) {
            int n = Math.min(PIECE, body.length - fed);
            feed(s, java.util.Arrays.copyOfRange(body, fed, fed + n), now);
            fed += n;
        }
        assertTrue(fed < body.length, "the loop read the whole body though the handler read none of it");
        assertTrue(fed <= RequestBody.CAPACITY + PIECE, "read " + fed + " bytes past a stalled handler");
        go.countDown();
        // The handler reads; each time it frees room it wakes the loop, which reads on.
        ByteArrayOutputStream client = new ByteArrayOutputStream();
        while (fed < body.length) {
            if (!s.wantsInput()) {
                awaitWake(s);
                continue;
            }
            int n = Math.min(PIECE, body.length - fed);
            feed(s, java.util.Arrays.copyOfRange(body, fed, fed + n), now);
            fed += n;
        }
        String expected = body.length + " " + HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(body));
        writeAll(s, client); // the wake-ups of the feeding above may have brought all of it
        while (!client.toString(StandardCharsets.ISO_8859_1).endsWith(expected)) {
            awaitWake(s);
            writeAll(s, client);
        }
        assertTrue(client.toString(StandardCharsets.ISO_8859_1).startsWith("HTTP/1.1 200 OK\r\n"));
        assertTrue(s.wantsInput(), "the connection goes on after the body");
    }

    @Test
    void chunkedToHttp11AndCloseDelimitedToHttp10() throws Exception {
        ExchangeApp app = x -> {
            x.sendHead(200, Exchange.CHUNKED);
            try (OutputStream o = x.body()) {
                o.write("one".getBytes(StandardCharsets.ISO_8859_1));
                o.write("two".getBytes(StandardCharsets.ISO_8859_1));
            }
        };
        HttpSession s11 = session(app);
        feed(s11, "GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1), now);
        String w11 = untilComplete(s11, "0\r\n\r\n");
        assertTrue(w11.contains("Transfer-Encoding: chunked\r\n"));
        assertTrue(w11.endsWith("\r\n\r\n3\r\none\r\n3\r\ntwo\r\n0\r\n\r\n"), w11);
        assertFalse(s11.closeAfterFlush());

        HttpSession s10 = session(app);
        feed(s10, "GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1), now);
        String w10 = untilComplete(s10, "onetwo");
        assertFalse(w10.contains("Transfer-Encoding"), w10);
        assertFalse(w10.contains("Content-Length"), w10);
        assertTrue(w10.contains("Connection: close\r\n"), "a close-delimited body's head says so: " + w10);
        awaitClose(s10); // a close-delimited body ends with the connection
    }

    @Test
    void aFixedLengthWrittenShortClosesTheConnectionAfterWhatWasSent() throws Exception {
        ExchangeApp app = x -> {
            x.sendHead(200, 10);
            x.body().write("12345".getBytes(StandardCharsets.ISO_8859_1));
            x.finish(); // throws: 5 of 10
        };
        HttpSession s = session(app);
        feed(s, "GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1), now);
        String w = untilComplete(s, "12345");
        assertTrue(w.contains("Content-Length: 10\r\n"));
        awaitClose(s);
        assertNull(s.output());
    }

    /**
     * Issue 44: the JDK's server closes with no answer; m0 answers 500 (nothing of the answer had
     * left), keeps the connection, and tells the worker once, on the loop, what was thrown.
     */
    @Test
    void aHandlerThatThrowsBeforeItsHeadIsAnswered500AndReported() throws Exception {
        ExchangeApp app = x -> {
            throw new StackOverflowError("boom");
        };
        java.util.List<String> failed = new java.util.ArrayList<>();
        java.util.List<String> logged = new java.util.ArrayList<>();
        HttpSession s = new HttpSession(HttpConfig.defaults(), app, pool, wakes::release, now,
                (request, status, bytes, start, cut) -> logged.add(status + " " + bytes + (cut ? " cut" : "")),
                null, null, (request, t) -> failed.add(request.target() + " " + t));
        feed(s, "GET /x HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1), now);
        while (s.output() == null) {
            awaitWake(s);
        }
        ByteArrayOutputStream sink = new ByteArrayOutputStream();
        writeAll(s, sink);
        assertTrue(sink.toString(StandardCharsets.ISO_8859_1).startsWith("HTTP/1.1 500 "), sink.toString());
        assertFalse(s.closeAfterFlush(), "the request was whole: the connection serves on");
        assertEquals(java.util.List.of("/x java.lang.StackOverflowError: boom"), failed);
        assertEquals(1, logged.size());
        assertTrue(logged.get(0).startsWith("500 "), logged.toString());
    }

    /** After its head: what was sent, then the close; the access log's line says so (cut). */
    @Test
    void aHandlerThatThrowsAfterItsHeadIsCutLoggedAndReported() throws Exception {
        ExchangeApp app = x -> {
            x.sendHead(200, 10);
            x.body().write("12345".getBytes(StandardCharsets.ISO_8859_1));
            throw new NoClassDefFoundError("Gone");
        };
        java.util.List<String> failed = new java.util.ArrayList<>();
        java.util.List<String> logged = new java.util.ArrayList<>();
        HttpSession s = new HttpSession(HttpConfig.defaults(), app, pool, wakes::release, now,
                (request, status, bytes, start, cut) -> logged.add(status + " " + bytes + (cut ? " cut" : "")),
                null, null, (request, t) -> failed.add(request.target() + " " + t));
        feed(s, "GET /y HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1), now);
        String w = untilComplete(s, "12345");
        assertTrue(w.contains("Content-Length: 10\r\n"));
        awaitClose(s);
        assertEquals(java.util.List.of("/y java.lang.NoClassDefFoundError: Gone"), failed);
        assertEquals(java.util.List.of("200 5 cut"), logged);
    }

    @Test
    void aClosedConnectionFailsTheWriterInsteadOfLeavingItBlocked() throws Exception {
        CountDownLatch failed = new CountDownLatch(1);
        ExchangeApp app = x -> {
            x.sendHead(200, Exchange.CHUNKED);
            byte[] piece = new byte[PIECE];
            try {
                for (int i = 0; i < 10_000; i++) {
                    x.body().write(piece);
                }
            } catch (java.io.IOException e) {
                failed.countDown();
                throw e;
            }
        };
        HttpSession s = session(app);
        feed(s, "GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1), now);
        awaitWake(s);
        s.closed(); // the loop closed the connection (reset by the peer)
        assertTrue(failed.await(10, TimeUnit.SECONDS), "the writer is still blocked on a closed connection");
    }

    @Test
    void aHundredContinueGoesWhenTheHandlerFirstReadsAndNotWhenItAnswersWithoutReading() throws Exception {
        CountDownLatch read = new CountDownLatch(1);
        ExchangeApp app = x -> {
            if (x.request().path().equals("/reject")) {
                x.sendHead(401, 0);
                x.finish();
                return;
            }
            read.await(10, TimeUnit.SECONDS);
            byte[] b = x.requestBody().readAllBytes();
            x.sendHead(200, b.length);
            x.body().write(b);
            x.finish();
        };
        HttpSession s = session(app);
        feed(s, "PUT /up HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n"
                .getBytes(StandardCharsets.ISO_8859_1), now);
        assertNull(s.output(), "no 100 before the handler reads");
        read.countDown();
        awaitWake(s); // the first read asks for the 100
        ByteArrayOutputStream client = new ByteArrayOutputStream();
        writeAll(s, client);
        assertEquals("HTTP/1.1 100 Continue\r\n\r\n", client.toString(StandardCharsets.ISO_8859_1));
        feed(s, "hello".getBytes(StandardCharsets.ISO_8859_1), now);
        String w = untilComplete(s, "hello");
        assertTrue(w.startsWith("HTTP/1.1 200 OK"), w);
        assertFalse(s.closeAfterFlush());

        HttpSession r = session(app);
        feed(r, "PUT /reject HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n"
                .getBytes(StandardCharsets.ISO_8859_1), now);
        String rw = untilComplete(r, "\r\n\r\n");
        assertTrue(rw.startsWith("HTTP/1.1 401 "), rw);
        awaitClose(r); // the unsent body cannot be told from a request: the connection ends
    }

    @Test
    void aBodyTailLeftInTheParserWhenThePipeFillsIsTakenWhenTheReaderFreesRoom() throws Exception {
        // One read brings more than the pipe holds: the rest waits in the parser, and the loop
        // is never asked for input again (the client has sent everything). The reader's read must wake it.
        byte[] body = pattern(100_000);
        CountDownLatch go = new CountDownLatch(1);
        ExchangeApp app = x -> {
            go.await(10, TimeUnit.SECONDS);
            byte[] b = x.requestBody().readAllBytes();
            byte[] answer = Integer.toString(b.length).getBytes(StandardCharsets.ISO_8859_1);
            x.sendHead(200, answer.length);
            x.body().write(answer);
            x.finish();
        };
        HttpSession s = session(app);
        feed(s, ("POST /up HTTP/1.1\r\nHost: x\r\nContent-Length: " + body.length + "\r\n\r\n")
                .getBytes(StandardCharsets.ISO_8859_1), now);
        feed(s, java.util.Arrays.copyOfRange(body, 0, 40_000), now);
        feed(s, java.util.Arrays.copyOfRange(body, 40_000, body.length), now); // past the pipe's room
        go.countDown();
        String w = untilComplete(s, "\r\n\r\n100000");
        assertTrue(w.startsWith("HTTP/1.1 200 OK"), w);
    }

    @Test
    void aBodyTheHandlerLeavesUnreadIsDroppedAndTheConnectionGoesOn() throws Exception {
        ExchangeApp app = x -> {
            if (x.request().path().equals("/reject")) {
                x.sendHead(401, 0);
                x.finish();
                return;
            }
            x.sendHead(200, 2);
            x.body().write("ok".getBytes(StandardCharsets.ISO_8859_1));
            x.finish();
        };
        HttpSession s = session(app);
        byte[] body = pattern(300_000);
        byte[] wire = cat(("POST /reject HTTP/1.1\r\nHost: x\r\nContent-Length: " + body.length + "\r\n\r\n")
                .getBytes(StandardCharsets.ISO_8859_1), body, "GET /next HTTP/1.1\r\nHost: x\r\n\r\n"
                .getBytes(StandardCharsets.ISO_8859_1));
        ByteArrayOutputStream client = new ByteArrayOutputStream();
        int fed = 0;
        while (fed < wire.length) {
            if (!s.wantsInput()) {
                awaitWake(s);
                writeAll(s, client);
                continue;
            }
            int n = Math.min(PIECE, wire.length - fed);
            feed(s, java.util.Arrays.copyOfRange(wire, fed, fed + n), now);
            fed += n;
            writeAll(s, client);
        }
        writeAll(s, client);
        while (!client.toString(StandardCharsets.ISO_8859_1).endsWith("ok")) {
            awaitWake(s);
            writeAll(s, client);
        }
        String w = client.toString(StandardCharsets.ISO_8859_1);
        assertTrue(w.startsWith("HTTP/1.1 401 "), w);
        assertFalse(s.closeAfterFlush(), "the connection carries the next request");
    }

    private static byte[] cat(byte[]... parts) {
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            o.write(p, 0, p.length);
        }
        return o.toByteArray();
    }

    /** Echo: the method, the path and the body read as it streams, in a fixed-length answer. */
    private static final ExchangeApp ECHO = x -> {
        byte[] b;
        try (InputStream in = x.requestBody()) {
            b = in.readAllBytes();
        }
        byte[] answer = (x.request().method() + " " + x.request().path() + " [" + new String(b, StandardCharsets.ISO_8859_1)
                + "]").getBytes(StandardCharsets.ISO_8859_1);
        x.sendHead(200, answer.length);
        x.body().write(answer);
        x.finish();
    };

    @Test
    void randomPipelinesUnderRandomSplitsGiveTheSameAnswersInOrder() throws Exception {
        java.util.Random rnd = new java.util.Random(20261203);
        for (int round = 0; round < Integer.getInteger("m0.streaming.rounds", 60); round++) {
            StringBuilder stream = new StringBuilder();
            java.util.List<String> expected = new java.util.ArrayList<>();
            int n = 1 + rnd.nextInt(5);
            for (int i = 0; i < n; i++) {
                String body = "b".repeat(rnd.nextInt(3)) + i + "x".repeat(rnd.nextInt(rnd.nextBoolean() ? 40 : 90_000));
                switch (rnd.nextInt(4)) {
                    case 0 -> {
                        stream.append("GET /r").append(i).append(" HTTP/1.1\r\nHost: h\r\n\r\n");
                        expected.add("GET /r" + i + " []");
                    }
                    case 1 -> {
                        stream.append("POST /e HTTP/1.1\r\nHost: h\r\nContent-Length: ").append(body.length())
                                .append("\r\n\r\n").append(body);
                        expected.add("POST /e [" + body + "]");
                    }
                    case 2 -> {
                        stream.append("POST /e HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n");
                        int p = 0;
                        while (p < body.length()) {
                            int k = Math.min(body.length() - p, 1 + rnd.nextInt(rnd.nextBoolean() ? 9 : 40_000));
                            stream.append(Integer.toHexString(k)).append("\r\n").append(body, p, p + k).append("\r\n");
                            p += k;
                        }
                        stream.append("0\r\n").append(rnd.nextBoolean() ? "T: x\r\n" : "").append("\r\n");
                        expected.add("POST /e [" + body + "]");
                    }
                    default -> {
                        stream.append("HEAD /h").append(i).append(" HTTP/1.1\r\nHost: h\r\n\r\n");
                        expected.add(""); // no body on the wire
                    }
                }
            }
            byte[] wire = stream.toString().getBytes(StandardCharsets.ISO_8859_1);
            HttpSession s = session(ECHO);
            ByteArrayOutputStream client = new ByteArrayOutputStream();
            int fed = 0;
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
            while (Wire.parse(complete(client)).size() < expected.size()) {
                assertTrue(System.nanoTime() < until, "round " + round + ": stalled with " + fed + " of " + wire.length
                        + " fed, wants input " + s.wantsInput() + ", expected " + expected.stream()
                        .map(e -> e.length() > 30 ? e.substring(0, 30) + "..(" + e.length() + ")" : e).toList()
                        + ", got " + Wire.parse(complete(client)).size() + ", wire " + new String(wire, 0, Math.min(wire.length, 300),
                        StandardCharsets.ISO_8859_1).replace("\r\n", "|").replaceAll("x{20,}", "x..."));
                if (fed < wire.length && s.wantsInput()) {
                    int k = Math.min(wire.length - fed, 1 + rnd.nextInt(rnd.nextBoolean() ? 7 : 70_000));
                    feed(s, java.util.Arrays.copyOfRange(wire, fed, fed + k), now);
                    fed += k;
                } else if (wakes.tryAcquire(10, TimeUnit.SECONDS)) {
                    s.pollCompletions(now);
                }
                writeAll(s, client);
            }
            java.util.List<String> got = Wire.parse(complete(client)).stream().map(Wire.Resp::body).toList();
            assertEquals(expected, got, "round " + round);
            wakes.drainPermits();
        }
    }

    /** The responses written so far, up to the end of the last complete one. */
    private static String complete(ByteArrayOutputStream client) {
        String w = client.toString(StandardCharsets.ISO_8859_1);
        int p = 0;
        int last = 0;
        while (true) {
            int end = w.indexOf("\r\n\r\n", p);
            if (end < 0) {
                return w.substring(0, last);
            }
            String head = w.substring(p, end).toLowerCase(java.util.Locale.ROOT);
            int cl = head.indexOf("content-length: ");
            int len = cl < 0 ? 0 : Integer.parseInt(head.substring(cl + 16, head.indexOf("\r\n", cl) < 0
                    ? head.length() : head.indexOf("\r\n", cl)).trim());
            if (end + 4 + len > w.length()) {
                return w.substring(0, last);
            }
            p = end + 4 + len;
            last = p;
        }
    }

    /** The app's thread ends the response after its last bytes: wake-ups until the session says close. */
    private void awaitClose(HttpSession s) throws InterruptedException {
        while (!s.closeAfterFlush()) {
            awaitWake(s); // fails after 10 s without a wake-up
        }
    }

    private String untilComplete(HttpSession s, String end) throws InterruptedException {
        ByteArrayOutputStream client = new ByteArrayOutputStream();
        writeAll(s, client);
        while (!client.toString(StandardCharsets.ISO_8859_1).endsWith(end)) {
            awaitWake(s);
            writeAll(s, client);
        }
        return client.toString(StandardCharsets.ISO_8859_1);
    }
}
