package m0.server.worker;

import m0.server.http.HandlerFailures;
import m0.server.http.Request;
import m0.server.log.RateLimitedLog;

/**
 * What a worker does when app code fails (ADR 0061): the session has answered 500, or cut the
 * answer; this logs the throwable with its causes (rate limited: a handler that fails under load
 * prints one line a second, with the count of the rest), counts it for the metrics, and retires
 * the worker, the way a SIGTERM does, on an error after which the process should not go on: an
 * OutOfMemoryError (or another VirtualMachineError) from a handler, or any VirtualMachineError in
 * the loop itself. A StackOverflowError from a handler is that request's fault: its stack is gone
 * with it, and the worker goes on. The supervisor replaces a worker that leaves unasked.
 *
 * <p>The loop thread's only.
 */
final class FailedHandlers implements HandlerFailures {

    /** Frames printed per throwable of a chain, and throwables per chain: a line a second stays short. */
    static final int FRAMES = 12;
    static final int CAUSES = 8;

    private final RateLimitedLog log;
    private final Runnable leave;
    private long count;
    private boolean retiring;

    FailedHandlers(RateLimitedLog log, Runnable leave) {
        this.log = log;
        this.leave = leave;
    }

    @Override
    public void failed(Request request, Throwable failure) {
        count++;
        String what = request == null ? "-" : request.method() + " " + request.target();
        if (retiresFromHandler(failure)) {
            retire("a handler of " + what + " threw " + failure, failure);
            return;
        }
        log.log(() -> "handler of " + what + " failed: " + chain(failure));
    }

    /** An error thrown by the loop's own code (outside any handler): the worker leaves. */
    void loopFailed(VirtualMachineError e) {
        if (retiring) {
            throw e; // a second one while leaving: the process ends here, and is replaced
        }
        retire("the loop threw " + e, e);
    }

    private void retire(String why, Throwable failure) {
        if (retiring) {
            log.log(() -> why); // already leaving: counted, printed at most once a second
            return;
        }
        retiring = true;
        // Once per process, never suppressed: the reason the worker is being replaced.
        log.logAlways(why + "; leaving as at SIGTERM, to be replaced: " + chain(failure));
        leave.run();
    }

    /** A handler's throwable that should recycle the process, not only fail its request. */
    static boolean retiresFromHandler(Throwable t) {
        return t instanceof VirtualMachineError && !(t instanceof StackOverflowError);
    }

    /** Failures so far (the worker's counters). */
    long count() {
        return count;
    }

    /** A VirtualMachineError made the worker leave: it exits non-zero. */
    boolean retiring() {
        return retiring;
    }

    /** The throwable, its first frames, and each cause's, bounded. */
    static String chain(Throwable t) {
        StringBuilder b = new StringBuilder(512);
        java.util.Set<Throwable> seen = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        for (int k = 0; t != null && k < CAUSES && seen.add(t); k++, t = t.getCause()) {
            b.append(k == 0 ? "" : "\n  Caused by: ").append(t);
            StackTraceElement[] at = t.getStackTrace();
            for (int f = 0; f < Math.min(FRAMES, at.length); f++) {
                b.append("\n\tat ").append(at[f]);
            }
            if (at.length > FRAMES) {
                b.append("\n\t... ").append(at.length - FRAMES).append(" more");
            }
        }
        return b.toString();
    }
}
