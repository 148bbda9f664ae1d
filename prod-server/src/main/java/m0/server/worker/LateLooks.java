package m0.server.worker;

import m0.core.ForwardingWorkerShare;
import m0.core.WorkerShare;

/**
 * A test fault's stand-in ({@code --dev-look-late-ms}): fountain's looks at a listener left to
 * an earlier worker come that much after the core's deadline, the negative control of the
 * takeover test. Chosen at start in place of the real protocol object; production never runs it.
 */
final class LateLooks<C> extends ForwardingWorkerShare<C> {

    private final long lateNanos;

    LateLooks(WorkerShare<C> share, long lateNanos) {
        super(share);
        this.lateNanos = lateNanos;
    }

    @Override
    public long listenDeadline() {
        return delegate.listenDeadline() + lateNanos;
    }
}
