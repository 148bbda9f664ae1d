package m0.server.http;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A gathering body's writer writes the socket itself while the loop lends it (ADR 0071's last
 * addendum), and gives it back with the rest queued when the socket is full: the bytes stay in
 * order, the loop is not woken for what the writer wrote, and nothing is written to the socket
 * once the connection is aborted. This thread is the loop unless said otherwise.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class LentSocketTest {

    /** A socket that takes up to {@link #room} bytes, then is full. */
    static final class Wire implements SocketWrites {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        volatile int room = Integer.MAX_VALUE;
        int writes;

        @Override
        public synchronized int write(byte[] b, int off, int len) {
            int n = Math.min(len, room);
            room -= n;
            bytes.write(b, off, n);
            writes++;
            return n;
        }

        synchronized String text() {
            return bytes.toString(StandardCharsets.ISO_8859_1);
        }
    }

    private final AtomicInteger wakes = new AtomicInteger();

    private PipedExchange exchange(SocketWrites socket) {
        return new PipedExchange(Request.of("GET", "/", new byte[0]), wakes::incrementAndGet, null, true, socket);
    }

    private static String take(PipedExchange x) {
        HeldBytes out = new HeldBytes(null);
        x.moveTo(out, 1 << 20);
        return new String(out.bytes, out.rd, out.size(), StandardCharsets.ISO_8859_1);
    }

    private static byte[] ascii(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    @Test
    void whileLentTheWriterWritesTheSocketAndTheLoopIsNotWoken() throws IOException {
        Wire wire = new Wire();
        PipedExchange x = exchange(wire);
        x.sendHead(200, Exchange.CHUNKED);
        int woken = wakes.get();
        x.lendSocket();
        OutputStream body = x.body();
        body.write(ascii("first"));
        body.write(ascii("ab"));
        body.flush();
        assertEquals("5\r\nfirst\r\n2\r\nab\r\n", wire.text(), "written by the writer's own thread");
        assertEquals("", take(x), "nothing went through the pipe");
        assertEquals(woken, wakes.get(), "the loop was not woken for them");
        assertEquals(17, x.takeDirectBytes(), "counted as sent, for the access log");
        assertEquals(0, x.takeDirectBytes(), "once");
        x.finish();
        assertEquals("5\r\nfirst\r\n2\r\nab\r\n0\r\n\r\n", wire.text(), "the last chunk too");
        assertFalse(x.socketLent(), "the end gives the socket back: the next answer is the loop's");
        assertEquals(woken + 1, wakes.get(), "the end wakes the loop");
        assertTrue(x.moveTo(new HeldBytes(null), 1 << 20), "complete");
    }

    @Test
    void aFullSocketGivesItBackWithTheRestQueuedFirst() throws IOException {
        Wire wire = new Wire();
        PipedExchange x = exchange(wire);
        x.sendHead(200, Exchange.CHUNKED);
        x.lendSocket();
        wire.room = 4;
        int woken = wakes.get();
        OutputStream body = x.body();
        body.write(ascii("0123456789"));
        assertEquals("a\r\n0", wire.text(), "what the socket took");
        assertFalse(x.socketLent(), "a short write gives the socket back");
        assertEquals(woken + 1, wakes.get(), "the loop is woken for the rest");
        wire.room = Integer.MAX_VALUE;
        body.write(ascii("xy"));
        body.flush();
        assertEquals("a\r\n0", wire.text(), "not lent: a later write waits behind the rest");
        assertEquals("123456789\r\n2\r\nxy\r\n", take(x), "the rest first, then the later write");
        assertEquals(4, x.takeDirectBytes());
    }

    @Test
    void aLargeWriteCutShortIsLentToTheLoopAndWaitedFor() throws Exception {
        Wire wire = new Wire();
        PipedExchange x = exchange(wire);
        x.sendHead(200, 100_000);
        x.lendSocket();
        wire.room = 1000;
        byte[] big = new byte[100_000];
        for (int i = 0; i < big.length; i++) {
            big[i] = (byte) (i * 7);
        }
        CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
            try {
                x.body().write(big);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        HeldBytes out = new HeldBytes(null);
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (out.size() < big.length - 1000) {
            assertTrue(System.nanoTime() - until < 0, "the rest never reached the pipe");
            x.moveTo(out, 1 << 20);
            Thread.onSpinWait();
        }
        writer.get(10, TimeUnit.SECONDS);
        ByteArrayOutputStream all = new ByteArrayOutputStream();
        all.write(wire.bytes.toByteArray());
        all.write(out.bytes, out.rd, out.size());
        assertArrayEquals(big, all.toByteArray(), "what the socket took, then the rest, in order");
    }

    @Test
    void theSocketIsNotLentWhileBytesWaitInThePipe() throws IOException {
        Wire wire = new Wire();
        PipedExchange x = exchange(wire);
        x.sendHead(200, Exchange.CHUNKED);
        x.body().write(ascii("first")); // queued: the loop has not lent the socket
        x.lendSocket();
        assertFalse(x.socketLent(), "bytes wait: a write now would pass them");
        x.body().write(ascii("second"));
        x.body().flush();
        assertEquals("", wire.text());
        assertEquals("5\r\nfirst\r\n6\r\nsecond\r\n", take(x));
        x.lendSocket();
        assertTrue(x.socketLent(), "the pipe is empty: lent");
    }

    @Test
    void abortWaitsForAWriteInFlightAndNoWriteFollows() throws Exception {
        CountDownLatch inWrite = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        AtomicInteger writesEnded = new AtomicInteger();
        AtomicInteger writesBegun = new AtomicInteger();
        SocketWrites slow = (b, off, len) -> {
            writesBegun.incrementAndGet();
            inWrite.countDown();
            try {
                release.await();
            } catch (InterruptedException e) {
                throw new java.io.InterruptedIOException();
            }
            writesEnded.incrementAndGet();
            return len;
        };
        PipedExchange x = exchange(slow);
        x.sendHead(200, Exchange.CHUNKED);
        x.lendSocket();
        CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
            try {
                x.body().write(ascii("first"));
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        assertTrue(inWrite.await(10, TimeUnit.SECONDS));
        AtomicInteger endedWhenAbortReturned = new AtomicInteger(-1);
        Thread loop = new Thread(() -> {
            x.abort(); // the loop, before it closes the descriptor
            endedWhenAbortReturned.set(writesEnded.get());
        });
        loop.start();
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (loop.getState() != Thread.State.WAITING && loop.isAlive()) {
            assertTrue(System.nanoTime() - until < 0, "the loop's abort neither waited nor returned");
            Thread.onSpinWait();
        }
        release.countDown();
        loop.join(10_000);
        writer.get(10, TimeUnit.SECONDS);
        assertEquals(1, endedWhenAbortReturned.get(), "abort returned only after the write in flight ended");
        assertThrows(IOException.class, () -> {
            x.body().write(ascii("late")); // gathered
            x.body().flush();
        }, "the connection is gone");
        assertEquals(1, writesBegun.get(), "no write reached the socket after the abort");
    }
}
