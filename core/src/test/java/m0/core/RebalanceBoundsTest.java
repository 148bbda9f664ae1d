package m0.core;

import static m0.core.AcceptShare.KEEPING_BIT;
import static m0.core.AcceptShare.REBALANCE_INTERVAL_NANOS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * The rebalance rules at their edges: what the switch and the constructor accept, a look that
 * costs nothing at or under the band, the swap's return rule under a wider band, and a keeping
 * worker's scan (every sibling, below it too; the first among equals).
 */
class RebalanceBoundsTest {

    private static final long PAIRS_WITH_0 = PageLayout.affineBit(0);
    private static final long PAIRS_WITH_1 = PageLayout.affineBit(1);

    /** Worker {@code i} published {@code open} at its last pass end. */
    private static void published(Fixture f, int i, long open) {
        f.w(i).passStart();
        f.w(i).passEnd(open);
    }

    /** Worker {@code i}'s gate sees a spell of churn and keeps (ADR 0044's early entry). */
    private static void keeping(Fixture f, int i) {
        long now = f.clock.nanoTime();
        f.w(i).shape(now, 0, 0);
        f.w(i).shape(now + 1, LoadShape.KEEP_MIN_SHORT, 0);
        assertTrue((f.get(PageLayout.busyWord(i)) & KEEPING_BIT) != 0, "w" + i + " keeps");
    }

    /** A keeping worker's pass end: {@code settled} settled connections published. */
    private static void settled(Fixture f, int i, long settled) {
        f.w(i).passStart();
        f.w(i).publishSettled(settled);
        f.w(i).passEnd(settled);
    }

    private static AcceptShare<String> withRebalance(Fixture f, int self, Rebalance rebalance) {
        return new AcceptShare<>(f.page, f.channel, f.clock, AcceptPolicy.share(), f.workers.size(), self,
                AcceptShare.LEAVE_DRAIN_NANOS, rebalance);
    }

    @Test
    void offMeansTheLoopNeverLooksAndTheBandAndIntervalAreTheOnesGiven() {
        Fixture f = new Fixture(2).started();
        assertFalse(Rebalance.off().on());
        assertFalse(withRebalance(f, 0, Rebalance.off()).rebalances(), "--rebalance off: no look at all");
        assertTrue(f.w(0).rebalances(), "share with the default: it looks");
        Rebalance r = new Rebalance(3, 0);
        assertTrue(r.on());
        assertEquals(3, r.deadBand());
        assertEquals(0, new Rebalance(0, 5).deadBand());
    }

    @Test
    void aZeroBandOrIntervalIsAcceptedANegativeOneIsNot() {
        Fixture f = new Fixture(2).started();
        AcceptShare<String> everyLook = withRebalance(f, 0, new Rebalance(1, 0)); // no rate limit: the checkers' arm
        assertEquals(1, everyLook.rebalancePick(10, 0, 0));
        assertTrue(everyLook.rebalance(1, "c1"));
        assertEquals(1, everyLook.rebalancePick(9, 0, 0), "interval 0: the next look may move at once");
        assertThrows(IllegalArgumentException.class, () -> new Rebalance(-1, 0));
        assertThrows(IllegalArgumentException.class, () -> new Rebalance(0, -1));
    }

    /**
     * At or under the band no sibling can be lighter by more than the band, and the look ends
     * before it reads a sibling's line: no move of either kind, a plain one or a swap, and no
     * shared cache line touched by a worker that holds one connection.
     */
    @Test
    void aLookAtOrUnderTheBandReadsNoSiblingAndMovesNothing() {
        Fixture f = new Fixture(2).started();
        published(f, 1, 1);
        f.w(1).publishAffinities(PAIRS_WITH_0); // w1 holds one that pairs with w0: a swap would be two-sided
        f.log.clear();
        assertEquals(0, f.w(0).rebalancePick(1, 0, PAIRS_WITH_1), "one connection: the band holds it");
        assertFalse(f.w(0).swapping());
        assertTrue(f.log.stream().noneMatch(e -> e.contains("[1]")), "no read of w1's line: " + f.log);

        Fixture g = new Fixture(2).started();
        keeping(g, 0);
        keeping(g, 1);
        g.log.clear();
        assertEquals(0, g.w(0).rebalancePick(1, 1, 0), "keeping, one settled connection");
        assertTrue(g.log.stream().noneMatch(e -> e.contains("[1]")), "no read of w1's line: " + g.log);
    }

    /**
     * The swap's return must come back here (ADR 0057): every live sibling other than its target
     * reads at least own - 1. With a band of 2 the target may itself be the lightest, and then
     * the second lightest decides.
     */
    @Test
    void aSwapWithTheLightestWaitsForTheSecondLightestToReadAtLeastOwnMinusOne() {
        Fixture f = new Fixture(3).started();
        AcceptShare<String> w0 = withRebalance(f, 0, new Rebalance(2, REBALANCE_INTERVAL_NANOS));
        published(f, 1, 14);
        f.w(1).publishAffinities(PAIRS_WITH_0);
        published(f, 2, 14);
        assertEquals(0, w0.rebalancePick(16, 0, PAIRS_WITH_1),
                "16 / 14 / 14, band 2: no plain move, and after a swap w1 (15) would return one to w2 (14)");
        assertFalse(w0.swapping());
        published(f, 2, 15);
        assertEquals(1, w0.rebalancePick(16, 0, PAIRS_WITH_1), "16 / 14 / 15: the return comes back here");
        assertTrue(w0.swapping());
    }

    /** The keeping look scans from self + 1 round to self - 1: a sibling below it is weighed and targeted. */
    @Test
    void aKeepingLookWeighsAndTargetsSiblingsBelowItsOwnIndex() {
        Fixture f = new Fixture(2).started();
        keeping(f, 0);
        keeping(f, 1);
        settled(f, 0, 0);
        assertEquals(0, f.w(1).rebalancePick(6, 6, 0), "w1 (6 settled) to w0 (0), scanned past the last line");
        settled(f, 0, 9);
        assertEquals(1, f.w(1).rebalancePick(6, 6, 0), "w0 is heavier and keeping: its moves are the needed ones, w1 names itself");
    }

    /** Among equally light siblings, the first after self in the scan: two heavy lookers tend to name different ones. */
    @Test
    void aKeepingLookNamesTheFirstOfEquallyLightSiblingsAfterItself() {
        Fixture f = new Fixture(3).started();
        for (int i = 0; i < 3; i++) {
            keeping(f, i);
        }
        settled(f, 0, 2);
        settled(f, 1, 2);
        settled(f, 2, 6);
        assertEquals(0, f.w(2).rebalancePick(6, 6, 0), "w2's scan: w0, then w1");
        settled(f, 2, 2);
        settled(f, 0, 6);
        assertEquals(1, f.w(0).rebalancePick(6, 6, 0), "w0's scan: w1, then w2");
    }
}
