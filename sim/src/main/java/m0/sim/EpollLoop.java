package m0.sim;

import java.util.function.LongUnaryOperator;
import m0.core.BusyEstimator;

/**
 * A worker's loop in the epoll model: it blocks in epoll_wait (woken by the listener as
 * {@link ListenerWake} says, or by its timeout) instead of polling each tick, keeps the
 * listener in its epoll or takes it out as the policy's {@code takeListener} says, and keeps its
 * busy time the way m0serve's loop does: time inside passes, in virtual time.
 *
 * <p>Work is virtual time spent inside a pass: {@link #acceptCost} per connection accepted (its
 * first request), and request passes every {@link #REQUEST_PERIOD} as long as {@link #load}
 * says (per mille of the period at that time: the requests of connections the scenario does
 * not model one by one). The loop reads its busy counter into the policy at every wake-up, and
 * wakes at least every 20 ms to do so. Hand-offs are the tick loops' business
 * ({@link Worker#serveUntil}): a connection this loop accepts, it serves.
 */
public final class EpollLoop {

    /** Request passes start this far apart. */
    public static final long REQUEST_PERIOD = 2 * Sim.MS;

    private final Sim sim;
    private final Worker w;
    /** Virtual time spent serving each accepted connection's first request, inside the pass. */
    long acceptCost;
    /** Request load, per mille of each request period, by virtual time (null: none). */
    LongUnaryOperator load;
    /** Connections taken per pass, at most (m0serve accepts in batches). */
    int batch = 4;
    private boolean samples;
    private long busyNanos;
    private long lookAt;
    private long nextRequest;
    private long dropAt = -1;

    public EpollLoop(Sim sim, Worker w) {
        this.sim = sim;
        this.w = w;
    }

    /** Feed the busy counter to the policy (fountain's estimator) and wake every 20 ms for it. */
    public EpollLoop sampling() {
        this.samples = true;
        return this;
    }

    public EpollLoop acceptCost(long nanos) {
        this.acceptCost = nanos;
        return this;
    }

    public EpollLoop load(LongUnaryOperator perMilleAt) {
        this.load = perMilleAt;
        return this;
    }

    /** At {@code t}, every connection this worker serves is closed by its client. */
    public EpollLoop clientsLeaveAt(long t) {
        this.dropAt = t;
        return this;
    }

    /** Serves until virtual time {@code until}. */
    public void run(long until) {
        nextRequest = sim.now();
        long sampleAt = sim.now();
        while (sim.now() < until && !w.terminate) {
            long now = sim.now();
            if (samples) {
                // at every wake-up and pass end, as m0serve's loop: the core samples every 20 ms
                w.ops.sample(busyNanos);
                if (now - sampleAt >= 0) {
                    sampleAt = now + BusyEstimator.SAMPLE_NANOS;
                }
            }
            if (dropAt >= 0 && now - dropAt >= 0) {
                dropAt = -1;
                clientsLeave();
            }
            boolean look = !w.armed && now - lookAt >= 0;
            boolean take = false;
            if (w.accepts && (w.armed || look)) {
                boolean readable = sim.listener.readable();
                if (readable || look) {
                    // epoll found it readable, or the look the last answer asked for is due
                    sim.listener.lookStep[w.index] = sim.step;
                    w.armed = w.ops.takeListener(readable);
                    take = w.armed && readable;
                    if (!w.armed) {
                        lookAt = w.ops.listenDeadline();
                        sim.trace(sim.me(), "leaves the listener until " + Sim.ms(lookAt));
                    }
                }
            }
            boolean request = false;
            if (load != null && now - nextRequest >= 0) {
                nextRequest = now + REQUEST_PERIOD;
                request = load.applyAsLong(now) > 0;
            }
            if (take || request) {
                pass(take, request);
                continue;
            }
            long wake = until;
            if (samples) {
                wake = Math.min(wake, sampleAt);
            }
            if (!w.armed) {
                wake = Math.min(wake, lookAt);
            }
            if (load != null) {
                wake = Math.min(wake, nextRequest);
            }
            if (dropAt >= 0) {
                wake = Math.min(wake, dropAt);
            }
            sim.listener.epollWait(w, wake);
        }
    }

    private void pass(boolean accept, boolean request) {
        long start = sim.now();
        w.ops.passStart();
        if (w.slowPass > 0) {
            long d = w.slowPass;
            w.slowPass = 0;
            sim.sleep(d); // stuck inside a pass
        }
        int accepted = 0;
        for (int k = 0; accept && k < batch; k++) {
            Conn c = sim.accept();
            if (c == null) {
                break;
            }
            accepted++;
            int target = sim.pick(w, w.open() - 1);
            if (target == w.index || !w.ops.sendWith(target, c)) {
                w.admit(c);
            }
        }
        long work = accepted * acceptCost;
        if (request) {
            work += REQUEST_PERIOD * load.applyAsLong(start) / 1000;
        }
        if (work > 0) {
            sim.sleep(work);
        }
        w.ops.passEnd(w.open());
        busyNanos += sim.now() - start;
    }

    private void clientsLeave() {
        Actor me = sim.me();
        for (Conn c : java.util.List.copyOf(me.held)) {
            sim.release(me, c);
            c.eof = "closed by its client";
            sim.trace(me, c + " closed by its client");
        }
    }
}
