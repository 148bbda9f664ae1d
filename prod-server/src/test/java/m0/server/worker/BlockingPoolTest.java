package m0.server.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** The pool's busy time (docs/adr/0029): running tasks count up to now, finished ones stay put. */
@Timeout(value = 30, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class BlockingPoolTest {

    private static final long S = 1_000_000_000L;

    @Test
    void runningTasksCountUpToNowAndFinishedOnesStay() throws InterruptedException {
        BlockingPool pool = new BlockingPool(4, 16, "test-blocking");
        long t0 = System.nanoTime();
        assertEquals(0, pool.busyNanos(t0), "no thread yet");
        CountDownLatch started = new CountDownLatch(2);
        CountDownLatch release = new CountDownLatch(1);
        for (int k = 0; k < 2; k++) {
            pool.execute(() -> {
                started.countDown();
                try {
                    release.await();
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
        }
        assertTrue(started.await(20, TimeUnit.SECONDS));
        long now = System.nanoTime();
        long b = pool.busyNanos(now);
        assertEquals(2 * S, pool.busyNanos(now + S) - b, "two tasks running: 2 s of busy time per s of wall time");
        assertTrue(b >= 0 && b <= 2 * (now - t0), b + " ns: no more than two threads' wall time");
        release.countDown();
        pool.shutdown();
        assertTrue(pool.awaitTermination(20, TimeUnit.SECONDS));
        long end = System.nanoTime();
        long done = pool.busyNanos(end);
        assertEquals(done, pool.busyNanos(end + S), "nothing runs: the sum no longer moves");
        assertTrue(done >= b && done <= 2 * (end - t0), done + " ns after " + b);
        assertEquals(4, pool.size());
    }

    @Test
    void aTaskThatThrowsStillEndsItsInterval() throws InterruptedException {
        BlockingPool pool = new BlockingPool(1, 4, "test-blocking");
        pool.execute(() -> {
            throw new IllegalStateException("an app's bug: its thread dies, printed, and is replaced");
        });
        pool.shutdown();
        assertTrue(pool.awaitTermination(20, TimeUnit.SECONDS));
        long end = System.nanoTime();
        assertEquals(pool.busyNanos(end), pool.busyNanos(end + S), "the thrown task's interval ended");
    }
}
