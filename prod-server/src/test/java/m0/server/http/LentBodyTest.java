package m0.server.http;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * ADR 0071 on an exchange's body: a large write is lent to the loop, not copied into the pipe;
 * the write returns once the loop has taken every byte, so the writer's array is its own again.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class LentBodyTest {

    @Test
    void aLargeWriteIsTakenFromTheWritersOwnArrayAndReturnsOnceTaken() throws Exception {
        // 16 takes of 64 KiB: the one that leaves the pipe with room also takes the array whole
        assertEquals(1, lendAndTake(64 * 1024), "the writer is woken once, not at each of 16 takes");
    }

    @Test
    void theWriterIsWokenWhenThePipeHasRoomAndWhenItsArrayIsTakenWhole() throws Exception {
        // 22 takes of 48 KiB: room again at the 21st (16 KiB left), the array whole at the 22nd
        assertEquals(2, lendAndTake(48 * 1024), "room, then the array: not each of 22 takes");
    }

    /**
     * The writer is interrupted while it waits for its array, and the loop gives the array back
     * (returnToWriter) before the writer wakes: the writer throws, so nobody writes the rest. The
     * write's bytes were already counted against the fixed length, so the close that follows
     * (try-with-resources) ends the body as if whole: without the fix the loop finds it complete,
     * not broken, and keeps the connection alive with a body short of its Content-Length (the
     * client waits for the rest, or reads the next answer as body). Broken: it closes after what went.
     */
    @Test
    void aWriterInterruptedAsItsArrayIsGivenBackBreaksTheBody() throws Exception {
        byte[] big = new byte[1 << 20];
        new Random(7).nextBytes(big);
        java.lang.reflect.Field f = PipedExchange.class.getDeclaredField("lock");
        f.setAccessible(true);
        for (int attempt = 0; ; attempt++) {
            assertTrue(attempt < 20, "the interrupt never landed in the writer's wait");
            LentSocketSessionTest.Wire wire = new LentSocketSessionTest.Wire();
            PipedExchange x = new PipedExchange(Request.of("GET", "/", new byte[0]), () -> { }, null, true, wire);
            java.util.concurrent.locks.ReentrantLock lock = (java.util.concurrent.locks.ReentrantLock) f.get(x);
            x.sendHead(200, big.length);
            java.util.concurrent.atomic.AtomicReference<Throwable> thrown = new java.util.concurrent.atomic.AtomicReference<>();
            Thread writer = new Thread(() -> {
                try (java.io.OutputStream body = x.body()) {
                    body.write(big);
                } catch (java.io.IOException e) {
                    thrown.set(e);
                }
            });
            writer.start();
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (!x.lends(big) || writer.getState() != Thread.State.TIMED_WAITING) {
                assertTrue(System.nanoTime() - until < 0, "the write never came");
                Thread.onSpinWait();
            }
            lock.lock(); // the loop's hold: the writer, interrupted, waits for it to re-check
            try {
                if (writer.getState() != Thread.State.TIMED_WAITING) {
                    continue; // its 100 ms re-check: not in its wait; again
                }
                writer.interrupt();
                while (writer.getState() == Thread.State.TIMED_WAITING) {
                    Thread.onSpinWait();
                }
                assertTrue(x.returnToWriter(), "the array goes back with the socket");
            } finally {
                lock.unlock();
            }
            writer.join(10_000);
            if (!(thrown.get() instanceof java.io.InterruptedIOException)) {
                assertArrayEquals(big, wire.all(), "not interrupted in its wait: it wrote the rest itself");
                continue;
            }
            HeldBytes out = new HeldBytes(null);
            assertTrue(x.moveTo(out, 64 * 1024), "the body ended: nothing more comes");
            assertTrue(wire.all().length + out.size() < big.length, "the rest was never written");
            assertTrue(x.broken(), "a body short of its length must end the connection, not keep it alive");
            return;
        }
    }

    /** A MiB written in one write, taken by the loop {@code take} bytes at a time: the takes that woke the writer. */
    private static int lendAndTake(int take) throws Exception {
        byte[] big = new byte[1 << 20];
        new Random(5).nextBytes(big);
        PipedExchange x = new PipedExchange(Request.of("GET", "/", new byte[0]), () -> { }, null);
        x.sendHead(200, big.length);
        CompletableFuture<Void> writer = CompletableFuture.runAsync(() -> {
            try {
                x.body().write(big);
            } catch (java.io.IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (!x.hasBytes()) {
            assertTrue(System.nanoTime() - until < 0, "the write never came");
            Thread.onSpinWait(); // the writer's thread queues it: polled, bounded
        }
        assertTrue(x.lends(big), "the bytes waiting are the writer's array itself: no copy into the pipe");
        HeldBytes out = new HeldBytes(null);
        byte[] got = new byte[big.length];
        int at = 0;
        while (at < big.length) {
            x.moveTo(out, take); // as the loop takes, a scratch's worth at a time
            System.arraycopy(out.bytes, out.rd, got, at, out.size());
            at += out.size();
            out.holdNothing();
        }
        writer.get(10, TimeUnit.SECONDS);
        assertArrayEquals(big, got);
        int signalled = x.takesSignalled();
        x.finish();
        assertTrue(x.moveTo(out, 1), "complete");
        assertEquals(0, out.size());
        assertFalse(x.lends(big));
        return signalled;
    }
}
