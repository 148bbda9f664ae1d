package m0.server.stats;

import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import m0.core.PageLayout;

/**
 * The witness for a round that did not split evenly: samples a server's page every ~100 µs
 * while it runs and keeps, per worker, the longest pass it saw (pick skips a sibling over 2 ms
 * into one pass when the picker's batch began: on a busy machine, a worker descheduled mid-pass
 * is one) and how often two workers were inside a pass at once. What it sees is the page's
 * stamps: under share a pass that only accepts or receives is not stamped (ADR 0052), so it
 * sees passes that served or moved connections, not the accept batches of two acceptors.
 */
public final class PassWatch implements AutoCloseable {

    /** Often enough to see a 2 ms pass many times, rarely enough to cost the workers little CPU. */
    private static final long SAMPLE_NANOS = 100_000;

    private final SupervisorPage page;
    private final Thread thread;
    private final long[] longestPassNanos;
    private final long[] slowSamples;
    private volatile boolean stop;
    private long samples;
    private long overlapping;

    /** Starts sampling the first {@code workers} lines of {@code page}. */
    public PassWatch(SupervisorPage page, int workers) {
        this.page = page;
        this.longestPassNanos = new long[workers];
        this.slowSamples = new long[workers];
        this.thread = new Thread(this::run, "pass-watch");
        thread.setDaemon(true);
        thread.start();
    }

    private void run() {
        while (!stop) {
            PageSnapshot s = page.read();
            int inPass = 0;
            for (WorkerLine w : s.workers()) {
                if (w.index() < longestPassNanos.length && PageLayout.inPass(w.state())) {
                    inPass++;
                    long age = s.readAtNanos() - w.state();
                    longestPassNanos[w.index()] = Math.max(longestPassNanos[w.index()], age);
                    if (age > PageLayout.SLOW_PASS_NANOS) {
                        slowSamples[w.index()]++;
                    }
                }
            }
            samples++;
            if (inPass > 1) {
                overlapping++;
            }
            LockSupport.parkNanos(SAMPLE_NANOS);
        }
    }

    /** Stops sampling (the results below are then final). */
    @Override
    public void close() throws InterruptedException {
        stop = true;
        thread.join(TimeUnit.SECONDS.toMillis(5));
    }

    /** After close: true when some worker was seen inside one pass for over 2 ms (pick skips it then). */
    public boolean sawSlowPass() {
        for (long n : slowSamples) {
            if (n > 0) {
                return true;
            }
        }
        return false;
    }

    /** After close: the longest pass seen per worker, in ms, e.g. "w0 0.41 w1 3.87*" (* past 2 ms). */
    public String longestPasses() {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < longestPassNanos.length; i++) {
            out.append(i == 0 ? "" : " ").append(String.format("w%d %.2f%s", i, longestPassNanos[i] / 1e6,
                    slowSamples[i] > 0 ? "*" : ""));
        }
        return out.toString();
    }

    /** After close: one line for a failure message. */
    public String summary() {
        StringBuilder out = new StringBuilder("page sampled ").append(samples).append(" times; two in a pass at once ")
                .append(overlapping).append(';');
        for (int i = 0; i < longestPassNanos.length; i++) {
            out.append(String.format(" w%d longest pass %.2f ms (%d samples past 2 ms)", i,
                    longestPassNanos[i] / 1e6, slowSamples[i]));
        }
        return out.toString();
    }
}
