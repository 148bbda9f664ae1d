package m0.server.worker;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.Arrays;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * The worker's bounded blocking pool, which also keeps its threads' cumulative busy time for
 * fountain's estimator (docs/adr/0029): a worker whose loop idles while every pool thread is
 * occupied is full, and only the pool can say so.
 *
 * <p>Cost on the request path: one {@code System.nanoTime()} and one release store before and
 * after each task, on the pool thread, to a word that thread alone writes. No lock, no shared
 * counter: the loop sums the words when it samples ({@link #busyNanos}).
 *
 * <p>Invariant of a thread's {@code word}: {@code (x << 1) | running}, where {@code x} is its
 * finished tasks' time, less the start of the one it runs (times relative to {@link #base}). So
 * its busy time at {@code now} is {@code x + running * now}, exact at every read: a task still
 * running counts up to now, and a read never sees half an update (one word).
 */
final class BlockingPool extends ThreadPoolExecutor {

    private static final VarHandle WORD;

    static {
        try {
            WORD = MethodHandles.lookup().findVarHandle(PoolThread.class, "word", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private final long base = System.nanoTime();
    /**
     * Every thread the pool made (one dies only on an Error; its time stays in the sum). Copied
     * on write by {@link #made} (rare), read by index: the loop's sum, every pass, allocates
     * nothing.
     */
    private volatile PoolThread[] threads = new PoolThread[0];
    private final int size;

    BlockingPool(int size, int queue, String name) {
        super(size, size, 0, TimeUnit.SECONDS, new ArrayBlockingQueue<>(queue));
        this.size = size;
        setThreadFactory(r -> {
            PoolThread t = new PoolThread(r, name);
            t.setDaemon(true);
            made(t);
            return t;
        });
    }

    /**
     * The factory runs outside the executor's lock, from the loop's execute and from a dying
     * pool thread's replacement: two at once must not lose a thread.
     */
    private synchronized void made(PoolThread t) {
        PoolThread[] a = Arrays.copyOf(threads, threads.length + 1);
        a[a.length - 1] = t;
        threads = a;
    }

    /** The pool's threads: the estimator's denominator. */
    int size() {
        return size;
    }

    /** The threads' cumulative time inside a task at {@code now} (a {@code System.nanoTime()}). */
    long busyNanos(long now) {
        long at = now - base;
        long sum = 0;
        PoolThread[] a = threads;
        for (int i = 0; i < a.length; i++) {
            long w = (long) WORD.getAcquire(a[i]);
            sum += (w >> 1) + (w & 1) * at;
        }
        return sum;
    }

    @Override
    protected void beforeExecute(Thread thread, Runnable task) {
        PoolThread t = (PoolThread) thread; // runs on t
        t.startedAt = System.nanoTime() - base;
        WORD.setRelease(t, ((t.done - t.startedAt) << 1) | 1);
    }

    @Override
    protected void afterExecute(Runnable task, Throwable thrown) {
        PoolThread t = (PoolThread) Thread.currentThread();
        t.done += System.nanoTime() - base - t.startedAt;
        WORD.setRelease(t, t.done << 1);
    }

    private static final class PoolThread extends Thread {
        /** Its own: written by this thread alone. */
        long done;
        long startedAt;
        /** Read by the loop: see the class invariant. */
        @SuppressWarnings("unused")
        long word;

        PoolThread(Runnable r, String name) {
            super(r, name);
        }
    }
}
