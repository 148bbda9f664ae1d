package m0.sim;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import m0.core.BusyEstimator;
import m0.core.PageLayout;
import m0.core.Siblings;

/**
 * The listener as the epoll model sees it ({@link Epoll#wait}): whom a new connection wakes
 * ({@link ListenerWake}: one waiter for a policy that registers the listener EPOLLEXCLUSIVE,
 * every one for fountain), and the oracles about the listener and the fountain.
 *
 * <ul>
 *   <li>CAP: a worker accepts only below its connection cap ({@code --max-connections}).
 *   <li>WAIT: no connection waits in the backlog longer than {@link #waitBound} (fountain: 2 ms);
 *       only those that arrive from {@link #waitFrom} on (a world's burst may wait its turn).
 *   <li>HERD: with {@link #idleOracle}, time never moves on while a connection waits in the
 *       backlog and a worker that listens sits idle in epoll_wait.
 *   <li>FILL: with {@link #fillOracle}, worker i accepts only while every earlier worker is full
 *       or not taking (LEFT, NOT_STARTED, a pass over 2 ms, HELD), or turned taking (free, or its HELD mark gone) after i looked;
 *       OVERFILL: and, full itself, only while no later worker is taking. BATCH-END: a worker
 *       that did accept because the sibling turned taking after its look (free, or its HELD
 *       mark gone) accepts once more at most: the loop asks the core after each accept, and the
 *       core ends the batch (the loop's {@code endBatch}, issue 45).
 *   <li>FLAP: with {@link #flapOracle}, a busy word turns full only at 85 % or more, free only
 *       below 70 %, and never free twice within one 20 ms sample period.
 *   <li>TAKE-BACK: with {@link #takeBackBy} set, the last connection is served by that worker.
 * </ul>
 */
final class ListenerModel {

    private final Sim sim;
    private ListenerWake wake;
    long waitBound = -1;
    long waitFrom = Long.MIN_VALUE;
    boolean idleOracle;
    boolean fillOracle;
    boolean flapOracle;
    int takeBackBy = -1;
    /** Per index: the step of its latest look at the listener, and when it last turned full -> free. */
    final long[] lookStep;
    private final long[] freeAt;
    /** Per index: the step its busy word last turned taking (neither full nor HELD), of its latest accept. */
    private final long[] takingStep;
    private final long[] acceptStep;

    ListenerModel(Sim sim) {
        this.sim = sim;
        this.lookStep = new long[sim.workers];
        this.freeAt = new long[sim.workers];
        this.takingStep = new long[sim.workers];
        this.acceptStep = new long[sim.workers];
        Arrays.fill(takingStep, -1);
        Arrays.fill(acceptStep, -1);
        Arrays.fill(freeAt, Long.MIN_VALUE);
    }

    /**
     * How the workers registered the listener: as their policy asks ({@link
     * m0.core.AcceptPolicy#wakesOne()}); the protocol (a mutant) may differ.
     */
    private ListenerWake wake(Worker any) {
        if (wake == null) {
            wake = sim.protocol.listenerWake(any.share.policy().wakesOne() ? ListenerWake.EXCLUSIVE : ListenerWake.ALL);
        }
        return wake;
    }

    /** A zero-timeout look at the listener. */
    boolean readable() {
        Actor me = sim.me();
        sim.point(me, Footprint.bit(Footprint.LISTENER), 0);
        boolean r = !sim.backlog.isEmpty();
        sim.trace(me, "poll(listener) -> " + (r ? "readable" : "empty"));
        return r;
    }

    void onConnect(Actor me) {
        List<Worker> armed = new ArrayList<>();
        for (Worker w : sim.current) {
            if (w != null && w.accepts && w.armed && !w.dead && !w.exited && w.actor != null) {
                armed.add(w);
            }
        }
        if (!armed.isEmpty()) {
            wake(armed.get(0)).wake(armed, w -> sim.epoll.wake(me, w));
        }
    }

    /** What an accept reads for the FILL and OVERFILL oracles: every worker's state and busy words. */
    long acceptReads(Actor me) {
        if (!fillOracle || me.worker == null) {
            return 0;
        }
        long reads = 0;
        for (int j = 0; j < sim.workers; j++) {
            reads |= Footprint.bit(Footprint.state(j)) | Footprint.bit(Footprint.busy(j));
        }
        return reads;
    }

    void onAccept(Actor me, Conn c) {
        Worker w = me.worker;
        if (w != null && w.open() > w.maxConnections) {
            sim.violation("CAP", me + " accepted " + c + " holding " + (w.open() - 1) + " at its cap of "
                    + w.maxConnections);
            return;
        }
        if (waitBound >= 0 && c.arrivedAt - waitFrom >= 0 && sim.now - c.arrivedAt > waitBound) {
            sim.violation("WAIT", me + " accepted " + c + " after " + waited(c, sim.now) + " in the backlog");
            return;
        }
        if (fillOracle && me.worker != null) {
            fill(me, c);
            acceptStep[me.worker.index] = sim.step;
        }
    }

    private void fill(Actor me, Conn c) {
        int i = me.worker.index;
        for (int j = 0; j < i; j++) {
            Worker w = sim.current[j];
            long state = sim.raw.getVolatile(PageLayout.stateWord(j));
            if (w == null || w.dead || w.exited || !Siblings.live(state) || Siblings.slowPass(state, sim.now)) {
                continue;
            }
            long busy = sim.raw.getVolatile(PageLayout.busyWord(j));
            if (BusyEstimator.full(busy) || BusyEstimator.held(busy)) {
                continue;
            }
            if (takingStep[j] > lookStep[i]) {
                if (batchEnded(me, c, i, j)) {
                    return;
                }
                continue;
            }
            sim.violation("FILL", me + " accepted " + c + " while w" + j + " is free (busy "
                    + BusyEstimator.perMille(busy) + " per mille)");
            return;
        }
        overfill(me, c, i);
    }

    /**
     * OVERFILL (ADR 0031): a worker that is full takes a new connection only while no later
     * worker is taking (live, not in a pass over 2 ms, neither full nor holding its listener out)
     * or one turned taking after its look: the accept that turns it full ends its batch.
     */
    private void overfill(Actor me, Conn c, int i) {
        if (!BusyEstimator.full(sim.raw.getVolatile(PageLayout.busyWord(i)))) {
            return;
        }
        for (int j = i + 1; j < sim.workers; j++) {
            Worker w = sim.current[j];
            long state = sim.raw.getVolatile(PageLayout.stateWord(j));
            if (w == null || w.dead || w.exited || !Siblings.live(state) || Siblings.slowPass(state, sim.now)) {
                continue;
            }
            long busy = sim.raw.getVolatile(PageLayout.busyWord(j));
            if (BusyEstimator.full(busy) || BusyEstimator.held(busy)) {
                continue;
            }
            if (takingStep[j] > lookStep[i]) {
                if (batchEnded(me, c, i, j)) {
                    return;
                }
                continue;
            }
            sim.violation("OVERFILL", me + " accepted " + c + " while full, with w" + j + " free to take it");
            return;
        }
    }

    /**
     * BATCH-END: w{@code j} turned taking after w{@code i}'s look, and w{@code i}, full, has
     * accepted since: the core's endBatch after that accept read w{@code j} taking and ended the
     * batch, so this accept is one past the end (true: violation said). A free worker's batch
     * goes on (the fill order is judged at looks); its own word changes only at its accepts'
     * picks within a batch, so full now is full at that endBatch.
     */
    private boolean batchEnded(Actor me, Conn c, int i, int j) {
        if (acceptStep[i] <= takingStep[j] || !BusyEstimator.full(sim.raw.getVolatile(PageLayout.busyWord(i)))) {
            return false; // the first accept since (its endBatch is the one that ends the batch), or free
        }
        sim.violation("BATCH-END", me + " accepted " + c + " in the batch it went on with after w" + j
                + " turned taking at step " + takingStep[j] + " and its own accept at step " + acceptStep[i]);
        return true;
    }

    void onPageWrite(Actor me, int word, long old, long value) {
        if (word < PageLayout.HEADER_WORDS
                || (word - PageLayout.HEADER_WORDS) % PageLayout.LINE_WORDS != PageLayout.BUSY_OFFSET) {
            return;
        }
        int i = (word - PageLayout.HEADER_WORDS) / PageLayout.LINE_WORDS;
        boolean was = BusyEstimator.full(old);
        boolean is = BusyEstimator.full(value);
        if ((was || BusyEstimator.held(old)) && !is && !BusyEstimator.held(value)) {
            takingStep[i] = sim.step;
        }
        int perMille = BusyEstimator.perMille(value);
        if (was && !is) {
            if (flapOracle && perMille >= BusyEstimator.FREE_BELOW) {
                sim.violation("FLAP", me + " turned free at " + perMille + " per mille, not below "
                        + BusyEstimator.FREE_BELOW);
            } else if (flapOracle && freeAt[i] != Long.MIN_VALUE && sim.now - freeAt[i] < BusyEstimator.SAMPLE_NANOS) {
                sim.violation("FLAP", me + " turned free again " + (sim.now - freeAt[i]) / 1000
                        + " us after the last time: faster than its 20 ms samples");
            }
            freeAt[i] = sim.now;
        } else if (!was && is && flapOracle && perMille < BusyEstimator.FULL_FROM) {
            sim.violation("FLAP", me + " turned full at " + perMille + " per mille, below " + BusyEstimator.FULL_FROM);
        }
    }

    /** Time is about to move on to {@code t}: the WAIT and HERD oracles. */
    void beforeTimeAdvance(long t) {
        if (sim.backlog.isEmpty()) {
            return;
        }
        Conn first = sim.backlog.peekFirst();
        Conn judged = first;
        if (waitFrom != Long.MIN_VALUE) {
            judged = null;
            for (Conn c : sim.backlog) {
                if (c.arrivedAt - waitFrom >= 0) {
                    judged = c;
                    break;
                }
            }
        }
        if (waitBound >= 0 && judged != null && t - judged.arrivedAt > waitBound) {
            first = judged;
            sim.violation("WAIT", first + " is still in the backlog after " + waited(first, t)
                    + " (bound " + waitBound / 1000 + " us)");
            return;
        }
        if (idleOracle) {
            for (Worker w : sim.current) {
                if (w != null && w.inEpoll && w.armed && w.accepts && !w.dead && !w.actor.stopped) {
                    sim.violation("HERD", first + " waits in the backlog while " + w + " sits idle in epoll_wait");
                    return;
                }
            }
        }
    }

    void atQuiescence() {
        if (takeBackBy < 0) {
            return;
        }
        Conn last = null;
        for (Conn c : sim.conns) {
            if (c.served && (last == null || c.arrivedAt >= last.arrivedAt)) {
                last = c;
            }
        }
        if (last == null || last.servedBy != takeBackBy) {
            sim.violation("TAKE-BACK", "the last connection " + last + " was served by w"
                    + (last == null ? "-" : last.servedBy) + ", not by free w" + takeBackBy);
        }
    }

    private static String waited(Conn c, long t) {
        return (t - c.arrivedAt) / 1000 + " us";
    }
}
