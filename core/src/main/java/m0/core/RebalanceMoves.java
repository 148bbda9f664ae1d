package m0.core;

/**
 * One worker's side of rebalance: the look (to whom it should hand one idle connection over
 * now, {@link Rebalance}'s rules) and the move (the same R5 + B25 hand-off as a fresh pass).
 * Never once it has left: a leaver hands everything over instead ({@link Leaving#handOver}).
 *
 * <p>Part of {@link AcceptShare}: not thread-safe, called from its worker's loop only.
 */
final class RebalanceMoves<C> {

    private final Clock clock;
    private final AcceptPolicy policy;
    private final Siblings siblings;
    private final HandOff<C> handOff;
    private final Rebalance rebalance;
    private final Leaving<C> leaving;
    private final int self;
    private final boolean sharing;

    private long rebalanced;

    RebalanceMoves(Clock clock, AcceptPolicy policy, Siblings siblings, HandOff<C> handOff,
                   Rebalance rebalance, Leaving<C> leaving, int self, boolean sharing) {
        this.clock = clock;
        this.policy = policy;
        this.siblings = siblings;
        this.handOff = handOff;
        this.rebalance = rebalance;
        this.leaving = leaving;
        this.self = self;
        this.sharing = sharing;
    }

    boolean rebalances() {
        return sharing && rebalance.on() && policy.movesConnections();
    }

    /**
     * Rebalance, the look: to whom this worker, holding {@code open} connections of which at
     * least one is idle, should hand one idle connection over now; {@code self} for nobody.
     * Call inside a pass (a move changes what {@link PassStamp#passEnd} publishes), at most once per
     * move. See {@link Rebalance} for the rules.
     */
    int rebalancePick(long open, long settled, long affinities) {
        if (!sharing || leaving.left() || !rebalance.on() || !policy.movesConnections()) {
            return self;
        }
        if (!policy.balancing()) {
            // Keeping (ADR 0041): arrivals close short, and a move counted in them would chase
            // them; the settled ones are still evened (ADR 0059).
            return policy.judgesShape() ? rebalance.pickSettled(siblings, self, settled, clock.nanoTime()) : self;
        }
        return rebalance.pick(siblings, self, open, settled, affinities & ~PageLayout.affineBit(self), clock.nanoTime());
    }

    boolean settledOnly() {
        return rebalance.settledOnly();
    }

    boolean swapping() {
        return rebalance.swapping();
    }

    /**
     * Rebalance, the move: hand the idle {@code connection} (between requests, nothing buffered,
     * nothing owed: all its state is in the kernel) to {@code target}, which admits it like a
     * fresh accept. The same R5 + B25 hand-off as a fresh pass: nothing lost, nothing doubled.
     *
     * @return true when the target's channel holds it (close our descriptor, forget it); false:
     *         keep serving it
     */
    boolean rebalance(int target, C connection) {
        if (!sharing || leaving.left() || target == self) {
            return false;
        }
        if (!handOff.sendWith(target, connection)) {
            return false;
        }
        rebalanced++;
        rebalance.moved(clock.nanoTime());
        return true;
    }

    /** Idle connections this worker handed over to even the load. */
    long rebalancedCount() {
        return rebalanced;
    }
}
