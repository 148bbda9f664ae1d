package m0.sim;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import m0.core.BusyEstimator;
import m0.core.PageLayout;
import m0.core.Siblings;

/**
 * The listener as the epoll model sees it ({@link EpollLoop}): who is blocked in epoll_wait,
 * whom a new connection wakes ({@link ListenerWake}), and the oracles about the listener and
 * the fountain. Unused, and silent, unless a scenario calls {@link #use}.
 *
 * <ul>
 *   <li>WAIT: no connection waits in the backlog longer than {@link #waitBound} (fountain: 2 ms).
 *   <li>HERD: with {@link #idleOracle}, time never moves on while a connection waits in the
 *       backlog and a worker that listens sits idle in epoll_wait.
 *   <li>FILL: with {@link #fillOracle}, worker i accepts only while every earlier worker is full
 *       or not taking (LEFT, NOT_STARTED, a pass over 2 ms), or turned free after i looked.
 *   <li>FLAP: with {@link #flapOracle}, a busy word turns full only at 85 % or more, free only
 *       below 70 %, and never free twice within one 20 ms sample period.
 *   <li>TAKE-BACK: with {@link #takeBackBy} set, the last connection is served by that worker.
 * </ul>
 */
final class ListenerModel {

    private final Sim sim;
    private ListenerWake wake;
    long waitBound = -1;
    boolean idleOracle;
    boolean fillOracle;
    boolean flapOracle;
    int takeBackBy = -1;
    /** Per index: the step of its latest look at the listener, of its latest full -> free, when. */
    final long[] lookStep;
    private final long[] freeStep;
    private final long[] freeAt;

    ListenerModel(Sim sim) {
        this.sim = sim;
        this.lookStep = new long[sim.workers];
        this.freeStep = new long[sim.workers];
        this.freeAt = new long[sim.workers];
        Arrays.fill(freeStep, -1);
        Arrays.fill(freeAt, Long.MIN_VALUE);
    }

    /** The scenario's server registers the listener so; the protocol (a mutant) may differ. */
    void use(ListenerWake registered) {
        this.wake = sim.protocol.listenerWake(registered);
    }

    /** epoll_wait until {@code until}: returns at once if the listener it holds is readable. */
    void epollWait(Worker w, long until) {
        Actor me = sim.me();
        if (w.armed) {
            sim.point(me, Footprint.bit(Footprint.LISTENER), 0);
            if (!sim.backlog.isEmpty()) {
                sim.trace(me, "epoll -> listener ready");
                return;
            }
        }
        if (until - sim.now <= 0) {
            return;
        }
        w.inEpoll = true;
        me.state = Actor.SLEEPING;
        me.wakeAt = until;
        sim.trace(me, "epoll_wait" + (w.armed ? "" : " (listener out)") + " until " + Sim.ms(until));
        sim.turn.yieldFrom(me);
        w.inEpoll = false;
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
        if (wake == null) {
            return;
        }
        List<Worker> armed = new ArrayList<>();
        for (Worker w : sim.current) {
            if (w != null && w.accepts && w.armed && !w.dead && !w.exited && w.actor != null) {
                armed.add(w);
            }
        }
        wake.wake(armed, w -> wakeUp(me, w));
    }

    private void wakeUp(Actor waker, Worker w) {
        Actor a = w.actor;
        if (!w.inEpoll || a.state != Actor.SLEEPING) {
            return;
        }
        w.inEpoll = false;
        a.state = Actor.READY;
        a.reads = Footprint.bit(Footprint.LISTENER);
        a.writes = Footprint.bit(Footprint.proc(a.id));
        sim.source.onWake(waker.id, a.id);
        sim.trace(waker, "wakes " + w);
    }

    /** What an accept reads for the FILL oracle: the earlier workers' state and busy words. */
    long acceptReads(Actor me) {
        if (!fillOracle || me.worker == null) {
            return 0;
        }
        long reads = 0;
        for (int j = 0; j < me.worker.index; j++) {
            reads |= Footprint.bit(Footprint.state(j)) | Footprint.bit(Footprint.busy(j));
        }
        return reads;
    }

    void onAccept(Actor me, Conn c) {
        if (waitBound >= 0 && sim.now - c.arrivedAt > waitBound) {
            sim.violation("WAIT", me + " accepted " + c + " after " + waited(c, sim.now) + " in the backlog");
            return;
        }
        if (fillOracle && me.worker != null) {
            fill(me, c);
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
            if (BusyEstimator.full(busy) || freeStep[j] > lookStep[i]) {
                continue;
            }
            sim.violation("FILL", me + " accepted " + c + " while w" + j + " is free (busy "
                    + BusyEstimator.perMille(busy) + " per mille)");
            return;
        }
    }

    void onPageWrite(Actor me, int word, long old, long value) {
        if (word < PageLayout.HEADER_WORDS
                || (word - PageLayout.HEADER_WORDS) % PageLayout.LINE_WORDS != PageLayout.BUSY_OFFSET) {
            return;
        }
        int i = (word - PageLayout.HEADER_WORDS) / PageLayout.LINE_WORDS;
        boolean was = BusyEstimator.full(old);
        boolean is = BusyEstimator.full(value);
        int perMille = BusyEstimator.perMille(value);
        if (was && !is) {
            freeStep[i] = sim.step;
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
        if (wake == null || sim.backlog.isEmpty()) {
            return;
        }
        Conn first = sim.backlog.peekFirst();
        if (waitBound >= 0 && t - first.arrivedAt > waitBound) {
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
