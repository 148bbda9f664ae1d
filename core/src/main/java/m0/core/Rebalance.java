package m0.core;

import static m0.core.PageLayout.LEFT;
import static m0.core.PageLayout.NOT_STARTED;

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
 * <p>One instance per worker (it remembers its last move); called from that worker's loop.
 */
public final class Rebalance {

    private final boolean on;
    private final long deadBand;
    private final long intervalNanos;
    private boolean moved;
    private long lastMoveAt;

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
     * band and the rate allows; {@code self} for nobody.
     */
    int pick(Siblings siblings, int self, long open, long now) {
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
            if (state > 0 && Siblings.slowPass(state, now)) {
                continue; // its load counts above, but it is no target
            }
            if (load < lightestLoad) {
                lightestLoad = load;
                lightest = i;
            }
        }
        if (lightest == self || own - lightestLoad <= deadBand) {
            return self;
        }
        return lightest;
    }

    /** A move happened at {@code now}: the next waits out the interval. */
    void moved(long now) {
        moved = true;
        lastMoveAt = now;
    }
}
