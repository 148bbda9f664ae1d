package m0.core;

import static m0.core.PageLayout.LEFT;
import static m0.core.PageLayout.NOT_STARTED;
import static m0.core.PageLayout.affineBit;

/**
 * The rebalance rules: when a worker hands one of its idle keep-alive connections to a sibling.
 * Pick places a connection once, at accept; a connection that landed unevenly (a cold start, a
 * sibling that crashed and whose clients reconnected to the survivors, a worker added by
 * SIGTTIN) would stay there for its whole life. Rebalance moves it, between requests, with the
 * same hand-off a leaver uses.
 *
 * <p>The rules, each against a failure it prevents:
 * <ul>
 *   <li><b>Dead band.</b> Move only while own load exceeds the lightest live sibling's by more
 *       than {@code deadBand} (one). Across a gap of one a move only swaps the two loads and the
 *       next look moves it back: ping-pong. Each move across a gap of two or more lowers the sum
 *       of squared loads, so moves stop, at {@code max - min <= 1} once nothing else happens.
 *   <li><b>Own load exact, siblings' high.</b> Own load is {@code open + pending - taken}, as
 *       pick reads it; a sibling's is {@link Siblings#load} (pending before active), which can
 *       count a connection twice for an instant but never misses one. An error makes a look
 *       move less, never more.
 *   <li><b>Heaviest only.</b> Move only while no live sibling reads heavier than own load. A
 *       middle worker two over the lightest could move too, but the heaviest must still move
 *       as often, so its move is one too many: 2 / 0 / 4 took three moves (the middle one gave
 *       one away and got one back from the heaviest) where two even it (ADR 0014, found by the
 *       simulator's REBALANCE-uneven). A sibling read high only makes a look move less.
 *   <li><b>Live and quick targets only.</b> LEFT, NOT_STARTED (nothing reads its channel yet)
 *       and a sibling inside one pass for over 2 ms are never targets.
 *   <li><b>Rate.</b> At most one move per {@code intervalNanos}: a skew of 32 drains in tens
 *       of milliseconds, yet the loop never spends a long stretch handing over.
 * </ul>
 *
 * <p>The swap (ADR 0057): loads even, a worker may still hold a connection whose client's
 * thread pairs with a sibling that holds one pairing with it: two clients crossed over two
 * workers, whose wake-ups cross CPUs. Then it hands that one over though the loads are even,
 * and the sibling, now two over, hands one back by the rules above, one that pairs with this
 * worker: counts end as they were, two connections placed. (From one over, the swap leaves the
 * loads within one and no return is due: one connection placed.) The rules that keep it finite:
 * <ul>
 *   <li><b>Both sides marked.</b> Move only where the sibling's AFFINE mark names this worker:
 *       it holds one to give back. A one-sided swap gets a connection back that pairs with the
 *       sibling, and the next look swaps again: ping-pong (the simulator's PAIR-one-sided).
 *   <li><b>Only in kind.</b> A swap moves only a connection that pairs with its target; none
 *       idle, no swap this look. Any other would hand over one already placed.
 *   <li><b>Give back in kind.</b> Every plain move takes an idle connection that pairs with
 *       its target when one is idle ({@link #affinityToMove}), else any (a busy one must not
 *       hold a plain move up for good); among equally light siblings it names one whose kind
 *       it holds. A return in kind places a connection; any other undoes the swap it answers.
 *   <li><b>The return comes back.</b> Only while every other live sibling, one in a slow pass
 *       too, reads at least own - 1: after the swap this worker is among the lightest, so the
 *       target, two over and the heaviest ("heaviest only" kept it not over us), returns here,
 *       among equals to the one whose kind it holds. At 16 / 16 / 14 with the third in a slow
 *       pass (no plain move to it now), a swap between the first two would be returned to it.
 * </ul>
 * Each swap and its return place two connections and leave the loads as they were; each plain
 * move lowers the sum of squared loads. With nothing arriving or closing, moves stop.
 *
 * <p>Keeping (ADR 0059): a worker whose arrivals close short keeps what it accepts (ADR 0041),
 * and under a mixed load its settled keep-alive connections would stay where the race landed
 * them. Its look ({@link #pickSettled}) still moves those, by the rules above with two changed:
 * <ul>
 *   <li><b>Settled loads only.</b> Loads are counted in <em>settled</em> connections (reused
 *       keep-alive, {@link m0.core.loop.Connections#settled}), published in the BUSY word. The
 *       open count of a keeping worker is mostly connections that close within a pass; compared
 *       in it, a look moves a settled connection to whichever sibling's churn reads lower at
 *       that instant, and the next look, the churn elsewhere, moves it back (the simulator's
 *       MIXED: mutant-keeping-counts-all). Settled connections change only when a client comes
 *       or goes, so each move lowers their sum of squares and moves stop.
 *   <li><b>Between the modes, both gaps.</b> A keeping look weighs every live sibling in
 *       settled connections and may target a balancing one; heaviest only is judged among
 *       keeping siblings (a balancing one moves by open counts). A balancing look ({@link #pick})
 *       targets a keeping sibling only when two over it in settled connections as well as in
 *       open ones. So every move between a keeping and a balancing worker goes from more settled
 *       connections to fewer, by two or more: after it the reverse move's settled gap cannot
 *       hold, and the open counts, a keeping worker's mostly churn, cannot pump a connection back
 *       and forth (the simulator's MIXED-fresh: mutant-balancing-ignores-settled). No swap while
 *       keeping.
 * </ul>
 * A sibling's settled load is its {@code pending} (read first) plus its published settled
 * count (read second): the receiver publishes a moved connection's settledness before its pass
 * end retires the receipt, so the two reads in this order count it once or twice, never zero
 * times (ADR 0012's argument). Own settled load is what it holds: a move lowers it at once, and
 * what is in flight to it is not counted, which only makes it move less.
 *
 * <p>One instance per worker (it remembers its last move); called from that worker's loop.
 */
public final class Rebalance {

    /** A move that may take any idle connection: no affinity asked for, or none known. */
    public static final int ANY_AFFINITY = -1;

    private final boolean on;
    private final long deadBand;
    private final long intervalNanos;
    private boolean moved;
    private long lastMoveAt;
    /** The last pick named a swap, not a plain move. */
    private boolean swapping;
    /** The last pick was a keeping worker's: its move takes a settled connection only. */
    private boolean settledOnly;

    /**
     * @param deadBand      move only while own load exceeds the lightest sibling's by more
     * @param intervalNanos at least this long between two moves
     */
    public Rebalance(long deadBand, long intervalNanos) {
        if (deadBand < 0 || intervalNanos < 0) {
            throw new IllegalArgumentException("dead band and interval must be >= 0");
        }
        this.on = true;
        this.deadBand = deadBand;
        this.intervalNanos = intervalNanos;
    }

    private Rebalance() {
        this.on = false;
        this.deadBand = Long.MAX_VALUE;
        this.intervalNanos = 0;
    }

    /** No moves at all: {@code --rebalance off}, the A/B arm. */
    public static Rebalance off() {
        return new Rebalance();
    }

    public boolean on() {
        return on;
    }

    public long deadBand() {
        return deadBand;
    }

    /**
     * To whom {@code self}, holding {@code open} connections, should hand one idle connection
     * now: the lightest live sibling that is not in a slow pass, when the gap is over the dead
     * band and the rate allows; else, loads even, a sibling to swap with ({@code affinities}:
     * bit j while a held connection pairs with worker j, own bit clear); {@code self} for nobody.
     */
    int pick(Siblings siblings, int self, long open, long settled, long affinities, long now) {
        swapping = false;
        settledOnly = false;
        if (!on || (moved && now - lastMoveAt < intervalNanos)) {
            return self;
        }
        long own = open + siblings.inFlight(self);
        if (own <= deadBand) {
            return self; // no sibling can be lighter by more than the band
        }
        int workers = siblings.workers();
        int lightest = self;
        long lightestLoad = Long.MAX_VALUE;
        int swap = self;
        // The two lowest loads of live siblings, slow ones too, and whose the lowest is: the
        // swap's return must come back here (every sibling but its target at least own - 1).
        long lowest = Long.MAX_VALUE;
        long secondLowest = Long.MAX_VALUE;
        int lowestAt = self;
        // A scan from self + 1, so that two heavy workers looking at once tend to name
        // different siblings among equals; no rotation word: a look is not worth a shared write.
        for (int k = 1; k < workers; k++) {
            int i = self + k < workers ? self + k : self + k - workers;
            long state = siblings.state(i);
            if (state == LEFT || state == NOT_STARTED) {
                continue;
            }
            long load = siblings.load(i);
            if (load > own) {
                return self; // its moves are the needed ones: heaviest only, above
            }
            if (load < lowest) {
                secondLowest = lowest;
                lowest = load;
                lowestAt = i;
            } else if (load < secondLowest) {
                secondLowest = load;
            }
            if (state > 0 && Siblings.slowPass(state, now)) {
                continue; // its load counts above, but it is no target
            }
            if (!evensSettled(siblings, i, settled)) {
                continue; // keeping, and not two under in settled ones: its look would move it back (ADR 0059)
            }
            // Among equals, one whose kind we hold: a swap's return lands where it places one.
            if (load < lightestLoad || load == lightestLoad && holds(affinities, i) && !holds(affinities, lightest)) {
                lightestLoad = load;
                lightest = i;
            }
            if (swap == self && holds(affinities, i) && (siblings.affine(i) & affineBit(self)) != 0) {
                swap = i; // both sides marked; heaviest only (above) keeps it not over us
            }
        }
        if (lightest != self && own - lightestLoad > deadBand) {
            return lightest;
        }
        if (swap != self && (lowestAt == swap ? secondLowest : lowest) >= own - 1) {
            swapping = true;
            return swap;
        }
        return self;
    }

    /**
     * A keeping worker's look (see the class comment): to whom {@code self}, holding
     * {@code settled} settled connections, should hand one of them now; {@code self} for nobody.
     */
    int pickSettled(Siblings siblings, int self, long settled, long now) {
        swapping = false;
        settledOnly = true;
        if (!on || (moved && now - lastMoveAt < intervalNanos) || settled <= deadBand) {
            return self;
        }
        int workers = siblings.workers();
        int lightest = self;
        long lightestLoad = Long.MAX_VALUE;
        for (int k = 1; k < workers; k++) {
            int i = self + k < workers ? self + k : self + k - workers;
            long state = siblings.state(i);
            if (state == LEFT || state == NOT_STARTED) {
                continue;
            }
            long counts = siblings.counts(i); // first: see the class comment
            long busy = siblings.busy(i);
            long load = Counts.pending(counts) + (busy & AcceptShare.SETTLED_MASK);
            boolean keeping = (busy & AcceptShare.KEEPING_BIT) != 0;
            if (keeping && load > settled) {
                return self; // heaviest only, among the keeping
            }
            if (state > 0 && Siblings.slowPass(state, now)) {
                continue;
            }
            if (load < lightestLoad) {
                lightestLoad = load;
                lightest = i;
            }
        }
        return lightest != self && settled - lightestLoad > deadBand ? lightest : self;
    }

    /**
     * Whether a balancing look may target sibling {@code i} (its counts just read by
     * {@link Siblings#load}) holding {@code settled} settled connections itself: any balancing
     * sibling; a keeping one only when two under in settled connections too (ADR 0059).
     */
    private boolean evensSettled(Siblings siblings, int i, long settled) {
        long busy = siblings.busy(i); // after its counts: see the class comment
        return (busy & AcceptShare.KEEPING_BIT) == 0
                || settled - (Counts.pending(siblings.seen(i)) + (busy & AcceptShare.SETTLED_MASK)) > deadBand;
    }

    /** True when the last pick was {@link #pickSettled}'s: its move takes a settled connection only. */
    boolean settledOnly() {
        return settledOnly;
    }

    /** True when the last {@link #pick} named a swap: its move takes only a connection of the target's kind. */
    boolean swapping() {
        return swapping;
    }

    private static boolean holds(long affinities, int i) {
        return (affinities & affineBit(i)) != 0;
    }

    /**
     * Which connection a move to {@code target} takes: one whose client pairs with the target
     * while this worker holds one ({@code affinities}' bit), so a swap's return places one
     * instead of undoing the swap; else any idle one ({@link #ANY_AFFINITY}).
     */
    static int affinityToMove(int target, long affinities) {
        return (affinities & affineBit(target)) != 0 ? target : ANY_AFFINITY;
    }

    /** A move happened at {@code now}: the next waits out the interval. */
    void moved(long now) {
        moved = true;
        lastMoveAt = now;
    }
}
