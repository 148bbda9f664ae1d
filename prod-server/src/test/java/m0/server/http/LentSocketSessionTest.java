package m0.server.http;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.RepeatedTest;
import org.junit.jupiter.api.Timeout;

/**
 * A session lends its socket to a gathering body's writer only once everything before the body's
 * next byte is written (ADR 0071's last addendum): the head first, then the body in order, the
 * writer's writes and the loop's interleaved as the socket fills and drains, then a pipelined
 * answer after the body's end; the access log counts what the writer wrote itself. This test
 * thread is the loop; the pool's threads are the app's; the "socket" is one byte stream both write.
 */
@Timeout(60)
class LentSocketSessionTest {

    private final ExecutorService pool = Executors.newFixedThreadPool(2);
    private final Semaphore wakes = new Semaphore(0);

    @AfterEach
    void stop() {
        pool.shutdownNow();
    }

    /** The socket: both the loop and a writer lent it write here; it takes up to {@link #room}. */
    static final class Wire implements SocketWrites {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        int room = Integer.MAX_VALUE;
        int writerWrites;
        long writerBytes;

        @Override
        public synchronized int write(byte[] b, int off, int len) {
            writerWrites++;
            int n = take(b, off, len);
            writerBytes += n;
            return n;
        }

        synchronized long writerBytes() {
            return writerBytes;
        }

        synchronized int loopWrite(ByteBuffer o) {
            byte[] b = new byte[o.remaining()];
            o.get(b);
            return take(b, 0, b.length);
        }

        private int take(byte[] b, int off, int len) {
            int n = Math.min(len, room);
            room -= n;
            bytes.write(b, off, n);
            return n;
        }

        synchronized void room(int n) {
            room = n;
        }

        synchronized int writerWrites() {
            return writerWrites;
        }

        synchronized byte[] all() {
            return bytes.toByteArray();
        }
    }

    /**
     * One write of a MiB, made before the loop has written the head (as an app answering from
     * memory does): the loop sends the head with what its scratch holds of the array, then gives
     * the rest back to the waiting writer with the socket, rather than copying it through its
     * output a scratch at a time.
     */
    @org.junit.jupiter.api.Test
    void aLargeWriteTheLoopHasNotTakenGoesBackToItsWriterWithTheSocket() throws Exception {
        byte[] mib = new byte[1 << 20];
        new Random(13).nextBytes(mib);
        Map<String, Long> logged = new ConcurrentHashMap<>();
        Wire wire = new Wire();
        HttpSession s = oneWriteOf(mib, logged, wire);

        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!logged.containsKey("/a") || s.hasOutput()) {
            assertTrue(System.nanoTime() - until < 0, "the answer never completed: " + logged);
            s.pollCompletions(1L);
            ByteBuffer o;
            while ((o = s.output()) != null) {
                s.written(wire.loopWrite(o)); // the socket takes all: room is unbounded here
            }
            if (!s.hasOutput()) {
                wakes.tryAcquire(50, TimeUnit.MILLISECONDS); // the writer's queued array, or its end
            }
        }
        assertHeadThenBody(mib, wire.all());
        assertEquals(mib.length, logged.get("/a"), "the access log counts every byte");
        assertTrue(wire.writerBytes() >= mib.length - 64 * 1024,
                "the writer wrote all but the loop's first scratch itself: " + wire.writerBytes() + " of " + mib.length);
    }

    /**
     * The writer's write that finds the socket full gives it back; the loop does not give it to
     * the writer again until its own write proved room (LentSocket.full): else each pass would
     * wake the writer for a write of nothing, for as long as the client does not read.
     */
    @org.junit.jupiter.api.Test
    void aSocketTheWriterFoundFullIsNotGivenBackUntilTheLoopWroteToIt() throws Exception {
        byte[] mib = new byte[1 << 20];
        new Random(17).nextBytes(mib);
        Map<String, Long> logged = new ConcurrentHashMap<>();
        Wire wire = new Wire();
        HttpSession s = oneWriteOf(mib, logged, wire);

        int passes = 0;
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!logged.containsKey("/a") || s.hasOutput()) {
            assertTrue(System.nanoTime() - until < 0, "the answer never completed: " + logged);
            if (wire.all().length > 0 && passes < 20) {
                wire.room(0); // the head is out: the client stops reading for 20 of the loop's passes
                passes++;
            } else if (passes == 20) {
                assertEquals(1, wire.writerWrites(), "the writer wrote once, found the socket full, and was left waiting");
                wire.room(Integer.MAX_VALUE); // it reads again
                passes++;
            }
            s.pollCompletions(1L);
            ByteBuffer o;
            while ((o = s.output()) != null) {
                int len = o.remaining();
                int n = wire.loopWrite(o);
                s.written(n);
                if (n < len) {
                    break;
                }
            }
            if (!s.hasOutput()) {
                wakes.tryAcquire(50, TimeUnit.MILLISECONDS); // the writer's full socket, or its end
            }
        }
        assertHeadThenBody(mib, wire.all());
        assertEquals(mib.length, logged.get("/a"));
    }

    /** A session asked GET /a, answered by one write of {@code mib} after a fixed-length head. */
    private HttpSession oneWriteOf(byte[] mib, Map<String, Long> logged, Wire wire) {
        ExchangeApp app = new ExchangeApp() {
            @Override
            public void serve(Exchange x) throws Exception {
                x.sendHead(200, mib.length);
                try (OutputStream body = x.body()) {
                    body.write(mib);
                }
            }

            @Override
            public boolean gathersWrites() {
                return true;
            }
        };
        ResponseObserver observer = (request, status, bodyBytes, startNanos, cut) ->
                logged.put(request.path() + (cut ? " cut" : ""), bodyBytes);
        HttpSession s = new HttpSession(HttpConfig.defaults(), app, pool, wakes::release, 1L, observer,
                new Scratch(64 * 1024), new Scratch(64 * 1024)).socket(wire);
        s.onBytes(ByteBuffer.wrap("GET /a HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1)), 1L);
        return s;
    }

    private static void assertHeadThenBody(byte[] body, byte[] got) {
        int headEnd = new String(got, StandardCharsets.ISO_8859_1).indexOf("\r\n\r\n") + 4;
        assertArrayEquals(body, java.util.Arrays.copyOfRange(got, headEnd, got.length), "the head, then the body in order");
    }

    /** Repeated: the writer's and the loop's turns interleave differently each time. */
    @RepeatedTest(8)
    void theHeadThenTheBodyInOrderThenThePipelinedAnswer() throws Exception {
        byte[] mib = new byte[1 << 20];
        new Random(11).nextBytes(mib);
        CountDownLatch headTaken = new CountDownLatch(1);
        CountDownLatch firstWritten = new CountDownLatch(1);
        CountDownLatch go = new CountDownLatch(1);
        ExchangeApp app = new ExchangeApp() {
            @Override
            public void serve(Exchange x) throws Exception {
                if (x.request().path().equals("/b")) {
                    x.sendHead(200, 2);
                    x.body().write("ok".getBytes(StandardCharsets.ISO_8859_1));
                    x.finish();
                    return;
                }
                x.sendHead(200, Exchange.CHUNKED);
                assertTrue(headTaken.await(10, TimeUnit.SECONDS));
                try (OutputStream body = x.body()) {
                    body.write(mib, 0, 16 * 1024); // the head is in the output, not yet written
                    firstWritten.countDown();
                    assertTrue(go.await(10, TimeUnit.SECONDS)); // until all before is written: the socket is lent
                    for (int at = 16 * 1024; at < mib.length; at += 16 * 1024) {
                        body.write(mib, at, 16 * 1024);
                    }
                }
            }

            @Override
            public boolean gathersWrites() {
                return true;
            }
        };
        Map<String, Long> logged = new ConcurrentHashMap<>();
        ResponseObserver observer = (request, status, bodyBytes, startNanos, cut) ->
                logged.put(request.path() + (cut ? " cut" : ""), bodyBytes);
        Wire wire = new Wire();
        HttpSession s = new HttpSession(HttpConfig.defaults(), app, pool, wakes::release, 1L, observer,
                new Scratch(64 * 1024), new Scratch(64 * 1024)).socket(wire);
        byte[] gets = "GET /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\n"
                .getBytes(StandardCharsets.ISO_8859_1);
        s.onBytes(ByteBuffer.wrap(gets), 1L);

        // The head reaches the output; the writer's first write is made before the loop writes it.
        while (!s.hasOutput()) {
            assertTrue(wakes.tryAcquire(10, TimeUnit.SECONDS), "no head");
            s.pollCompletions(1L);
        }
        headTaken.countDown();
        assertTrue(firstWritten.await(10, TimeUnit.SECONDS));

        Random rnd = new Random(System.nanoTime());
        byte[] expectedB = "ok".getBytes(StandardCharsets.ISO_8859_1);
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!logged.containsKey("/b") || s.hasOutput()) { // logged as encoded: then written
            assertTrue(System.nanoTime() - until < 0, "the answers never completed: " + logged);
            s.pollCompletions(1L);
            ByteBuffer o;
            while ((o = s.output()) != null) {
                int len = o.remaining();
                int n = wire.loopWrite(o);
                s.written(n);
                if (n < len) {
                    break; // full: EPOLLOUT would bring the loop back
                }
            }
            if (go.getCount() > 0 && !s.hasOutput() && wire.all().length > 16 * 1024) {
                go.countDown(); // the head and the first write are out: the loop lent the socket
            }
            wire.room(rnd.nextInt(3) == 0 ? rnd.nextInt(1000) : rnd.nextInt(200 * 1024)); // the client reads
            if (!s.hasOutput()) {
                wakes.tryAcquire(50, TimeUnit.MILLISECONDS); // the writer's end, or its full socket
            }
        }
        byte[] got = wire.all();
        String text = new String(got, StandardCharsets.ISO_8859_1);
        assertTrue(text.startsWith("HTTP/1.1 200 OK\r\n"), "the head first: " + text.substring(0, 40));
        int headEnd = text.indexOf("\r\n\r\n") + 4;
        assertTrue(text.substring(0, headEnd).contains("Transfer-Encoding: chunked"));
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        int at = headEnd;
        while (true) {
            int eol = text.indexOf("\r\n", at);
            int size = Integer.parseInt(text.substring(at, eol), 16);
            at = eol + 2;
            if (size == 0) {
                at += 2;
                break;
            }
            body.write(got, at, size);
            at += size;
            assertEquals("\r\n", text.substring(at, at + 2), "a chunk's end at " + at);
            at += 2;
        }
        assertArrayEquals(mib, body.toByteArray(), "the body, in order");
        assertEquals(at - headEnd, logged.get("/a"), "the access log counts every byte of the body sent");
        String second = text.substring(at);
        assertTrue(second.startsWith("HTTP/1.1 200 OK\r\n") && second.endsWith("\r\n\r\nok"),
                "the pipelined answer after the body's end: " + second);
        assertEquals(expectedB.length, logged.get("/b"));
        assertTrue(wire.writerWrites() > 0, "the writer wrote the socket itself once it was lent");
    }
    /**
     * A download the writer writes itself for longer than the idle timeout, to a client that
     * reads all along: when the socket fills at last and the loop holds the rest, the idle clock
     * must not say the connection has been idle since the request. The loop saw no byte leave
     * (the writer wrote them), so what the writer wrote counts as the peer's progress.
     */
    @org.junit.jupiter.api.Test
    void aLongDirectDownloadIsNotIdleWhenTheSocketFillsAtLast() throws Exception {
        long idle = 1_000_000_000L;
        HttpConfig config = new HttpConfig(16 * 1024, 1024 * 1024, idle, 10 * idle, 10 * idle);
        byte[] chunk = new byte[64 * 1024];
        Semaphore wrote = new Semaphore(0);
        Semaphore more = new Semaphore(0);
        ExchangeApp app = new ExchangeApp() {
            @Override
            public void serve(Exchange x) throws Exception {
                x.sendHead(200, Exchange.CHUNKED);
                try (OutputStream body = x.body()) {
                    while (true) {
                        assertTrue(more.tryAcquire(10, TimeUnit.SECONDS));
                        body.write(chunk);
                        body.flush();
                        wrote.release();
                    }
                }
            }

            @Override
            public boolean gathersWrites() {
                return true;
            }
        };
        Map<String, Boolean> cut = new ConcurrentHashMap<>();
        ResponseObserver observer = (request, status, bodyBytes, startNanos, c) -> cut.put(request.path(), c);
        Wire wire = new Wire();
        HttpSession s = new HttpSession(config, app, pool, wakes::release, 0L, observer,
                new Scratch(64 * 1024), new Scratch(64 * 1024)).socket(wire);
        s.onBytes(ByteBuffer.wrap("GET /a HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1)), 0L);
        while (!s.hasOutput()) {
            assertTrue(wakes.tryAcquire(10, TimeUnit.SECONDS), "no head");
            s.pollCompletions(0L);
        }
        ByteBuffer head = s.output();
        int len = head.remaining();
        assertEquals(len, wire.loopWrite(head));
        s.written(len, 0L); // the head is out: the socket is lent
        assertEquals(Long.MAX_VALUE, s.deadline(), "the app writes: a request still running");

        // Ten seconds of the writer writing the socket itself, a chunk a second; the client reads.
        for (int second = 1; second <= 10; second++) {
            more.release();
            assertTrue(wrote.tryAcquire(10, TimeUnit.SECONDS));
        }
        assertTrue(wire.writerWrites() >= 10, "the writer wrote them itself");
        long now = 10 * 1_000_000_000L;
        wire.room(1000); // the client's window is full at last: the writer's write falls short
        more.release();
        assertTrue(wrote.tryAcquire(10, TimeUnit.SECONDS));
        assertTrue(wakes.tryAcquire(10, TimeUnit.SECONDS), "the short write wakes the loop");
        s.pollCompletions(now);
        assertTrue(s.hasOutput(), "the rest is the loop's to write");
        ByteBuffer o = s.output();
        assertEquals(0, wire.loopWrite(o), "the socket is full: EAGAIN, EPOLLOUT armed");

        // A sweep comes now (another connection's deadline): this one was busy a moment ago.
        if (now - s.deadline() >= 0) {
            s.onTimeout(now);
        }
        assertFalse(s.closeAfterFlush(), "a download the client reads all along is not idle");
        assertTrue(s.hasOutput(), "its rest is still to be written");
        assertEquals(null, cut.get("/a"), "not cut");
        long later = now + idle + 1;
        assertTrue(later - s.deadline() >= 0, "the idle clock runs from the writer's last bytes: " + s.deadline());
        s.onTimeout(later);
        assertTrue(s.closeAfterFlush(), "a client that stops reading is idle, as before");
        assertEquals(Boolean.TRUE, cut.get("/a"), "logged cut");
    }
    /**
     * The client resets the connection while the writer holds the socket: its own write fails,
     * and the handler throws what it got. That is the client's going, not the app's failure: the
     * loop, had it written, would have closed the connection and the handler's failure would have
     * gone unreported (its answer forgotten). Logged cut; not a handler failure; closed. An app
     * that fails on its own after writing itself is still one.
     */
    @RepeatedTest(2)
    void aResetSeenByTheWriterIsTheClientsNotAHandlerFailure(org.junit.jupiter.api.RepetitionInfo r) throws Exception {
        boolean reset = r.getCurrentRepetition() == 1; // 2: the negative control, the app's own failure
        byte[] chunk = new byte[1000];
        CountDownLatch firstWritten = new CountDownLatch(1);
        CountDownLatch go = new CountDownLatch(1);
        ExchangeApp app = new ExchangeApp() {
            @Override
            public void serve(Exchange x) throws Exception {
                x.sendHead(200, Exchange.CHUNKED);
                OutputStream body = x.body();
                body.write(chunk);
                body.flush();
                firstWritten.countDown();
                assertTrue(go.await(10, TimeUnit.SECONDS)); // until all before is written: the socket is lent
                for (int i = 1; i < 100; i++) {
                    body.write(chunk);
                    body.flush();
                }
                throw new IllegalStateException("the app's own bug");
            }

            @Override
            public boolean gathersWrites() {
                return true;
            }
        };
        java.util.List<Throwable> failed = java.util.Collections.synchronizedList(new java.util.ArrayList<>());
        Map<String, Boolean> cut = new ConcurrentHashMap<>();
        ResponseObserver observer = (request, status, bodyBytes, startNanos, c) -> cut.put(request.path(), c);
        Wire wire = new Wire();
        java.util.concurrent.atomic.AtomicInteger direct = new java.util.concurrent.atomic.AtomicInteger();
        SocketWrites socket = (b, off, len) -> {
            if (reset && direct.incrementAndGet() > 3) {
                throw new IOException("writing the response: write: Connection reset by peer");
            }
            return wire.write(b, off, len);
        };
        HttpSession s = new HttpSession(HttpConfig.defaults(), app, pool, wakes::release, 1L, observer,
                new Scratch(64 * 1024), new Scratch(64 * 1024), (request, failure) -> failed.add(failure)).socket(socket);
        s.onBytes(ByteBuffer.wrap("GET /a HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1)), 1L);
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (!cut.containsKey("/a")) {
            assertTrue(System.nanoTime() - until < 0, "never answered");
            wakes.tryAcquire(50, TimeUnit.MILLISECONDS);
            s.pollCompletions(1L);
            ByteBuffer o;
            while ((o = s.output()) != null) {
                s.written(wire.loopWrite(o));
            }
            if (go.getCount() > 0 && firstWritten.getCount() == 0 && !s.hasOutput() && wire.all().length > chunk.length) {
                go.countDown(); // the head and the first write are out: the last look at the output lent the socket
            }
        }
        assertEquals(Boolean.TRUE, cut.get("/a"), "logged cut");
        assertTrue(s.closeAfterFlush(), "the connection closes");
        if (reset) {
            assertEquals(java.util.List.of(), failed, "the client's reset is no handler failure");
        } else {
            assertEquals(1, failed.size(), "the app's own failure is reported");
            assertTrue(wire.writerWrites() > 0, "the writer wrote itself before it failed");
        }
    }
}
