package m0.sim;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadInfo;
import java.time.Duration;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * Runs a piece of a test on a daemon thread of its own and fails fast, naming it, when it
 * outlives its limit. A hung simulator run is parked for good: JUnit's interrupt cannot end
 * it, so the test thread must stop waiting rather than wait for the run to notice.
 */
final class Bounded {

    private Bounded() {
    }

    /** The body outlived its limit; the message names it and says where the threads wait. */
    static final class Hung extends AssertionError {
        private static final long serialVersionUID = 1L;

        Hung(String message) {
            super(message);
        }
    }

    /**
     * Runs {@code body}; fails fast, naming it, when no simulator run has ended for
     * {@code stall} (a lost turn parks a run for good: the hang), or when it is still going
     * after {@code cap} (not hung, but too slow to wait for). Slowness is not a hang: on a
     * loaded machine an exploration of tens of thousands of runs may take a minute and more.
     */
    static <T> T within(Duration stall, Duration cap, String name, Callable<T> body) {
        CompletableFuture<T> result = new CompletableFuture<>();
        Thread t = new Thread(() -> {
            try {
                result.complete(body.call());
            } catch (Throwable e) {
                result.completeExceptionally(e);
            }
        }, "bounded: " + name);
        t.setDaemon(true);
        long start = System.nanoTime();
        long seen = Scheduler.runsEnded;
        long movedAt = start;
        t.start();
        try {
            for (;;) {
                try {
                    return result.get(200, TimeUnit.MILLISECONDS);
                } catch (TimeoutException e) {
                    long now = System.nanoTime();
                    long runs = Scheduler.runsEnded;
                    if (runs != seen) {
                        seen = runs;
                        movedAt = now;
                    } else if (now - movedAt > stall.toNanos()) {
                        throw new Hung(name + " ended no simulator run for " + stall.toMillis() + " ms (hung)\n" + dump());
                    }
                    if (now - start > cap.toNanos()) {
                        throw new Hung(name + " did not end within " + cap.toMillis()
                                + " ms, still ending runs (too slow)\n" + dump());
                    }
                }
            }
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            if (c instanceof Error) {
                throw (Error) c;
            }
            if (c instanceof RuntimeException) {
                throw (RuntimeException) c;
            }
            throw new AssertionError(name + " threw " + c, c);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError(name + " interrupted", e);
        }
    }

    /** The simulator's threads, for the failure message: where each one waits. */
    static String dump() {
        StringBuilder sb = new StringBuilder();
        for (ThreadInfo ti : ManagementFactory.getThreadMXBean().dumpAllThreads(false, false)) {
            String n = ti.getThreadName();
            if (!n.startsWith("sim-carrier") && !n.startsWith("bounded")) {
                continue;
            }
            sb.append('"').append(n).append("\" ").append(ti.getThreadState()).append('\n');
            StackTraceElement[] st = ti.getStackTrace();
            for (int k = 0; k < Math.min(st.length, 12); k++) {
                sb.append("    at ").append(st[k]).append('\n');
            }
        }
        for (Thread t : Carrier.all()) {
            if (!t.getName().startsWith("sim-carrier-v")) {
                continue; // a platform carrier: listed above
            }
            sb.append('"').append(t.getName()).append("\" ").append(t.getState()).append(" (virtual)\n");
            StackTraceElement[] st = t.getStackTrace();
            for (int k = 0; k < Math.min(st.length, 12); k++) {
                sb.append("    at ").append(st[k]).append('\n');
            }
        }
        return sb.toString();
    }
}
