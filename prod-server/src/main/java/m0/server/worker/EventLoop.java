package m0.server.worker;

import m0.core.loop.WorkerLoop;
import m0.server.jnr.Epoll;
import m0.server.share.Accepted;

/**
 * The worker's cycle, like nginx's worker process cycle around one events-and-timers call: wait
 * in epoll at most as long as the core's loop allows, hand each connection's event to its I/O
 * and the pool's answers to theirs, send the answers they made, and let the loop
 * ({@link WorkerLoop}) run the rest of the pass (the channel, the listener, the stop, the timers,
 * rebalance, the heal, the pass end).
 * Ends when the loop says the worker has left and holds nothing.
 */
final class EventLoop {

    private static final int MAX_EVENTS = 256;

    private final Epoll epoll;
    private final WorkerLoop<Accepted> loop;
    private final ConnectionIo io;
    private final PassStats stats;
    /** Null without metrics or an access log. */
    private final RequestRecorder recorder;
    private final int parentFd;
    /** A VirtualMachineError in a pass retires the worker through it (ADR 0061). */
    private final FailedHandlers failed;

    EventLoop(Epoll epoll, WorkerLoop<Accepted> loop, ConnectionIo io, PassStats stats, RequestRecorder recorder,
              int parentFd, FailedHandlers failed) {
        this.failed = failed;
        this.epoll = epoll;
        this.loop = loop;
        this.io = io;
        this.stats = stats;
        this.recorder = recorder;
        this.parentFd = parentFd;
    }

    static Epoll epoll() {
        return new Epoll(MAX_EVENTS);
    }

    /**
     * One pass per wake-up, until the worker has left. A VirtualMachineError out of a pass (out
     * of memory, a stack overflow in the loop's own code) makes the worker leave as at SIGTERM,
     * from the next pass on: its connections are handed over where they can be, and the
     * supervisor replaces it. A second one while leaving ends the process.
     */
    void run() {
        for (;;) {
            try {
                if (!pass()) {
                    return;
                }
            } catch (VirtualMachineError e) {
                failed.loopFailed(e);
            }
        }
    }

    /** One pass; false once the worker has left and holds nothing. */
    private boolean pass() {
        int n = epoll.awaitNanos(loop.timeout());
        loop.begin();
        long now = loop.now();
        boolean channel = false;
        boolean listener = false;
        io.batchSends();
        for (int i = 0; i < n; i++) {
            long data = epoll.data(i);
            if (EventTags.connection(data)) {
                io.onEvent((int) data, epoll.events(i), now);
            } else if (data == EventTags.LISTENER) {
                listener = true;
            } else if (data == EventTags.CHANNEL) {
                channel = true;
            } else if (data == EventTags.WAKE) {
                io.onWake(now); // the pool's answers (a signal's wake-up reads nothing more)
            } else if (data == EventTags.PARENT) {
                loop.requestStop(); // the supervisor is gone: leave as on SIGTERM
                epoll.delete(parentFd);
            }
        }
        io.sendDue(now); // the events' answers in one system call (ADR 0049), before the pass counts
        if (!loop.end(channel, listener)) {
            return false;
        }
        stats.endOfPass(now);
        if (recorder != null) {
            recorder.endOfPass();
        }
        return true;
    }
}
