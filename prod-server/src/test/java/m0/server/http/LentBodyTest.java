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
