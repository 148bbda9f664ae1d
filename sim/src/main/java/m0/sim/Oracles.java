package m0.sim;

import m0.core.Counts;
import m0.core.PageLayout;
import m0.core.Siblings;

/**
 * The rules checked after every step and at each pick, send, receive and close; those judged
 * once the run is quiet are {@link QuiescenceOracles}'. Each verdict names the correction whose
 * property it breaks (DESIGN.md's table).
 *
 * <p>Every per-step oracle reads only objects in the footprint of the step that can change
 * its verdict (the acct group for R5, the picker's own reads and the reap mark for NS/RP/SLOW, the
 * state words a closing leaver reads for B25-idle), so partial-order reduction cannot hide a
 * violating state from it.
 */
final class Oracles {

    private Oracles() {
    }

    static long pending(Sim s, int i) {
        return Counts.pending(s.raw.getVolatile(PageLayout.countsWord(i)));
    }

    static long taken(Sim s, int i) {
        return Counts.taken(s.raw.getVolatile(PageLayout.countsWord(i)));
    }

    /**
     * R5: pending[i] - taken[i] is never below what is in flight to i. A heal that takes off a
     * raise still on its way is caught here too, at the step its datagram lands (or its
     * take-back lowers the count further).
     */
    static void afterStep(Sim s) {
        for (int i = 0; i < s.workers; i++) {
            long p = pending(s, i);
            long t = taken(s, i);
            int inFlight = s.channels[i].size();
            if (p - t < inFlight) {
                s.violation("R5", "pending[" + i + "]=" + p + " - taken[" + i + "]=" + t
                        + " is below the " + inFlight + " in flight to w" + i);
                return;
            }
            if (active(s, i)) {
                return;
            }
        }
    }

    /**
     * ACTIVE (ADR 0007): a live worker's published load, {@code active + pending}, never reads
     * below the connections it serves, mid-pass too: a connection it accepted is in it as soon as
     * the pick has decided to keep it ({@code kept}), one it received by the receipt's own raise.
     * The connection a pick is deciding about (accepted, not yet kept or sent) is not counted
     * yet. A sibling's pick that read it lower would hand it connections it does not need.
     */
    private static boolean active(Sim s, int i) {
        Worker w = s.current[i];
        if (w == null || w.actor == null || !w.started || w.dead || w.exited || w.left || !w.share.sharing()) {
            return false;
        }
        long state = s.raw.getVolatile(PageLayout.stateWord(i));
        if (!Siblings.live(state)) {
            return false;
        }
        long serves = w.actor.held.size() - (w.actor.deciding != null ? 1 : 0);
        long counts = s.raw.getVolatile(PageLayout.countsWord(i));
        long published = Counts.load(counts);
        if (published < serves) {
            s.violation("ACTIVE", w + " serves " + serves + " connection(s) and publishes a load of " + published
                    + " (active " + Counts.active(counts) + " + pending " + Counts.pending(counts) + ")");
            return true;
        }
        return false;
    }

    /** What the dead left in index i's pending - taken - queued: raises and receipts cut short. */
    static long orphaned(Sim s, int i) {
        long n = 0;
        for (Actor a : s.actors) {
            if (a.state == Actor.DEAD) {
                n += a.balance[i];
            }
        }
        return n;
    }

    /**
     * NS, RP and SLOW: a pick named a sibling whose state it read as not started, or after its
     * reap, or stamped over 2 ms before {@code batchBegan} (its batch's first pick, or a
     * rebalance look's clock read). SLOW checks the pick against the stamps the page shows; a
     * view that ran unstamped is not seen (WorkerLoopTest and EagerReadWorkTest pin the stamps).
     */
    static void checkPick(Sim s, Actor me, int target, long batchBegan) {
        long readStep = me.stateReadStep[target];
        if (readStep < 0) {
            return;
        }
        long value = me.stateRead[target];
        if (Siblings.slowPass(value, batchBegan)) {
            s.violation("SLOW", me + " picked w" + target + " reading it inside one pass since " + Sim.ms(value)
                    + ", over 2 ms before this batch's first pick at " + Sim.ms(batchBegan)
                    + ": a slow view running inline (the seed's rule)");
            return;
        }
        if (value == PageLayout.NOT_STARTED) {
            s.violation("NS", me + " picked w" + target + " reading its state NOT_STARTED (step "
                    + readStep + "): nothing reads that channel yet");
            return;
        }
        long reaped = s.reapStep[target];
        if (reaped >= 0 && reaped < readStep && s.bindStep[target] < reaped) {
            s.violation("RP", me + " picked w" + target + " reading " + PageLayout.stateName(value)
                    + " at step " + readStep + ", after its reap at step " + reaped);
        }
    }

    /**
     * B25-idle: a never-served connection closed by a leaver while a sibling still serves.
     * WAIT-START: or while a sibling is starting (bound, not started), within the leaver's wait.
     */
    static void checkIdleClose(Sim s, Actor leaver, Conn c) {
        Worker starting = startingSibling(s, leaver);
        if (starting != null) {
            c.violation = "WAIT-START";
            s.violation("WAIT-START", leaver + " closed " + c + " unserved while " + starting + " is starting");
            return;
        }
        Worker w = servingSibling(s, leaver);
        if (w != null) {
            c.violation = "B25-idle";
            s.violation("B25-idle", leaver + " closed " + c + " unserved as idle while " + w + " serves");
        }
    }

    /**
     * CONN: a leaver closed one of its own keep-alive connections while a sibling still serves,
     * one that was serving already when the leaver began to hand it over. A sibling that started
     * during that scan may be missed by any scan that reads one state at a time (seed 1589: the
     * leaver read w2 LEFT, stalled 2.6 ms, and w2 was reaped and respawned meanwhile); the close
     * was decided when no sibling was live or starting.
     */
    static void checkLeaveClose(Sim s, Actor leaver, Conn c) {
        Worker w = servingSibling(s, leaver, leaver.worker == null ? Long.MAX_VALUE : leaver.worker.handOverStep);
        if (w != null) {
            c.violation = "CONN";
            s.violation("CONN", leaver + " closed its idle " + c + " while " + w + " serves: the client loses it");
        }
    }

    /** A sibling bound and not yet started, within the leaver's wait for one (WAIT-START). */
    private static Worker startingSibling(Sim s, Actor leaver) {
        int self = leaver.worker == null ? -1 : leaver.worker.index;
        for (int j = 0; j < s.workers; j++) {
            Worker w = s.current[j];
            if (j != self && w != null && w.bound && !w.started && !w.dead && leaver.worker != null
                    && s.now - leaver.worker.leftAt < m0.core.AcceptShare.START_WAIT_NANOS) {
                return w;
            }
        }
        return null;
    }

    private static Worker servingSibling(Sim s, Actor leaver) {
        return servingSibling(s, leaver, Long.MAX_VALUE);
    }

    /** A sibling that serves now and had started by step {@code since}. */
    private static Worker servingSibling(Sim s, Actor leaver, long since) {
        int self = leaver.worker == null ? -1 : leaver.worker.index;
        for (int j = 0; j < s.workers; j++) {
            Worker w = s.current[j];
            if (j == self || w == null || !w.started || w.dead || w.exited || w.left || w.startedStep > since) {
                continue;
            }
            if (Siblings.live(s.raw.getVolatile(PageLayout.stateWord(j)))) {
                return w;
            }
        }
        return null;
    }

    /** RB: the give-up drain closes only what no live worker (with room) would take. */
    static void checkGiveUpClose(Sim s, Conn c) {
        for (int j = 0; j < s.workers; j++) {
            Worker w = s.current[j];
            if (w != null && w.started && !w.dead && !w.exited && !w.left
                    && Siblings.live(s.raw.getVolatile(PageLayout.stateWord(j)))
                    && s.channels[j].size() < s.channelCapacity) {
                c.violation = "RB";
                s.violation("RB", "give-up closed " + c + " while " + w + " could serve it");
                return;
            }
        }
    }

    /**
     * RB: what the give-up drain takes, it takes within 250 ms of the give-up. After the drain
     * has finished, the watch takes what a stalled sender queued late: that is the late path
     * working, not a slow drain (LATE-SEND judges whether it was re-homed).
     */
    static void onReceive(Sim s, Actor me, int index, Conn c) {
        if (s.movedOracle && c.served && me.worker != null && c.servedBy != me.worker.index) {
            s.violation("MOVED", me + " received " + c + ", served by w" + c.servedBy
                    + ": established connections never move");
            return;
        }
        if (me.worker != null && me.worker.index == index) {
            return;
        }
        if (s.givenUp[index] && s.giveUpDoneStep[index] < 0 && s.now - s.giveUpAt[index] > Sim.giveUpBound()) {
            s.violation("RB", c + " taken off given-up w" + index + "'s channel "
                    + (s.now - s.giveUpAt[index]) / Sim.MS + " ms after the give-up");
        }
    }

    /**
     * B25-send: nothing is queued to a worker that has left and exited within its drain bound
     * (the handshake makes the leaver wait for every raise it could miss).
     */
    static void onSend(Sim s, Actor me, int target, Conn c) {
        if (c.handshakeBegun) {
            c.violation = "PINNED";
            s.violation("PINNED", me + " moved " + c + " to w" + target + " after its TLS handshake began there:"
                    + " its session is in " + me + "'s memory, the sibling cannot serve it");
        }
        Worker w = s.current[target];
        if (w != null && w.left && w.exited && !w.dead
                && s.now - w.leftAt < m0.core.AcceptShare.LEAVE_DRAIN_NANOS) {
            c.violation = "B25-send";
            s.violation("B25-send", me + " queued " + c + " to " + w + ", which left at "
                    + Sim.ms(w.leftAt) + " and has exited: nothing will read it");
        }
    }

    static void unservedAtExit(Sim s, Actor a, Conn c) {
        c.violation = "STRANDED";
        s.violation("STRANDED", a + " exited holding " + c + " unserved");
    }
}
