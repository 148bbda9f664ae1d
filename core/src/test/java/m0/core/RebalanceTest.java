package m0.core;

import static m0.core.AcceptShare.REBALANCE_INTERVAL_NANOS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The rebalance rules, one at a time, and a whole rebalance from a cold skew to even. */
class RebalanceTest {

    /** Worker {@code i} published {@code open} at its last pass end. */
    private static void published(Fixture f, int i, long open) {
        f.w(i).passStart();
        f.w(i).passEnd(open);
    }

    @Test
    void movesToTheLightestSiblingOnlyAcrossAGapOfMoreThanOne() {
        Fixture f = new Fixture(3).started();
        published(f, 1, 4);
        published(f, 2, 3);
        assertEquals(0, f.w(0).rebalancePick(3), "lighter than one sibling, equal to the other");
        assertEquals(0, f.w(0).rebalancePick(4), "a gap of one: a move would only swap the loads");
        assertEquals(2, f.w(0).rebalancePick(5), "a gap of two to the lightest (3)");
    }

    @Test
    void onlyAHeaviestWorkerMoves() {
        Fixture f = new Fixture(3).started();
        published(f, 1, 0);
        published(f, 2, 4);
        assertEquals(0, f.w(0).rebalancePick(2), "two over the lightest, but a sibling is heavier");
        assertEquals(1, f.w(0).rebalancePick(4), "as heavy as the heaviest: it may move");
        f.w(2).work();
        f.clock.advance(PageLayout.SLOW_PASS_NANOS + 1);
        assertEquals(0, f.w(0).rebalancePick(2), "a slow sibling is no target, but its load still counts");
    }

    @Test
    void aMoveIsAHandOffAndTheNextWaitsOutTheInterval() {
        Fixture f = new Fixture(2).started();
        AcceptShare<String> w0 = f.w(0);
        assertEquals(1, w0.rebalancePick(10));
        assertTrue(w0.rebalance(1, "idle-1"));
        assertEquals(1, f.pending(1), "raised like any hand-off (R5)");
        assertEquals("idle-1", f.channel.receive(1));
        assertEquals(1, w0.rebalancedCount());
        assertEquals(0, w0.rebalancePick(9), "rate: one move per interval");
        f.clock.advance(REBALANCE_INTERVAL_NANOS);
        assertEquals(1, w0.rebalancePick(9));
    }

    @Test
    void ownLoadCountsWhatIsInFlightToUs() {
        Fixture f = new Fixture(2).started();
        f.counts(0, 3, 0); // three raised against worker 0, none received yet
        assertEquals(1, f.w(0).rebalancePick(0), "0 open + 3 in flight against an idle sibling");
    }

    @Test
    void neverATargetThatHasLeftHasNotStartedOrIsInASlowPass() {
        Fixture f = new Fixture(4).started();
        f.put(PageLayout.stateWord(1), PageLayout.LEFT);
        f.put(PageLayout.stateWord(2), PageLayout.NOT_STARTED);
        f.w(3).work();
        f.clock.advance(PageLayout.SLOW_PASS_NANOS + 1);
        assertEquals(0, f.w(0).rebalancePick(20));
        f.w(3).passEnd(0);
        assertEquals(3, f.w(0).rebalancePick(20), "the same sibling once its pass ended");
    }

    /**
     * "Heaviest only" weighs live siblings: one that left (or a replacement not yet started)
     * shows the count its dead predecessor last published, which is no load.
     */
    @Test
    void aSiblingThatLeftOrHasNotStartedHoldsNoMoveBackWhateverItsWordsSay() {
        Fixture f = new Fixture(3).started();
        published(f, 1, 9);
        f.put(PageLayout.stateWord(1), PageLayout.LEFT); // reaped: its active still reads 9
        assertEquals(2, f.w(0).rebalancePick(4), "w1's 9 died with it: w0 (4) is the heaviest live one");
        f.put(PageLayout.stateWord(1), PageLayout.NOT_STARTED); // its replacement, bound, not started
        assertEquals(2, f.w(0).rebalancePick(4), "the replacement's words are its predecessor's");
    }

    @Test
    void aRefusedMoveKeepsTheConnectionAndCountsNothing() {
        Fixture f = new Fixture(2, 0).started(); // a channel that holds nothing: every send refused
        assertEquals(1, f.w(0).rebalancePick(10));
        assertFalse(f.w(0).rebalance(1, "idle-1"));
        assertEquals(0, f.pending(1), "the raise is taken back");
        assertEquals(0, f.w(0).rebalancedCount());
    }

    @Test
    void offLeavingAndSelfNeverMove() {
        Fixture f = new Fixture(2).started();
        AcceptShare<String> off = new AcceptShare<>(f.page, f.channel, f.clock, AcceptPolicy.share(), 2, 0,
                AcceptShare.LEAVE_DRAIN_NANOS, Rebalance.off());
        assertEquals(0, off.rebalancePick(30));
        assertFalse(f.w(0).rebalance(0, "c"), "never to self");
        f.w(0).leave();
        assertEquals(0, f.w(0).rebalancePick(30), "a leaver hands over everything anyway");
        assertFalse(f.w(0).rebalance(1, "c"));
    }

    @Test
    void aColdSkewOf32To0EndsEvenInExactlyTheExcessMoves() {
        Fixture f = new Fixture(2).started();
        long[] open = {32, 0};
        long moves = 0;
        for (int round = 0; round < 100; round++) {
            for (int i = 0; i < 2; i++) {
                AcceptShare<String> w = f.w(i);
                w.work();
                while (w.receive() != null) {
                    open[i]++;
                }
                int target = w.rebalancePick(open[i]);
                if (target != i && w.rebalance(target, "c")) {
                    open[i]--;
                    moves++;
                }
                w.passEnd(open[i]);
            }
            f.clock.advance(REBALANCE_INTERVAL_NANOS);
        }
        assertEquals(16, open[0]);
        assertEquals(16, open[1]);
        assertEquals(16, moves, "no ping-pong: every move was part of the excess");
    }

    @Test
    void withoutTheDeadBandTwoWorkersPingPongForEver() {
        Fixture f = new Fixture(2).started();
        Rebalance noBand = new Rebalance(0, REBALANCE_INTERVAL_NANOS);
        AcceptShare<String> w0 = new AcceptShare<>(f.page, f.channel, f.clock, AcceptPolicy.share(), 2, 0,
                AcceptShare.LEAVE_DRAIN_NANOS, noBand);
        AcceptShare<String> w1 = new AcceptShare<>(f.page, f.channel, f.clock, AcceptPolicy.share(), 2, 1,
                AcceptShare.LEAVE_DRAIN_NANOS, new Rebalance(0, REBALANCE_INTERVAL_NANOS));
        long[] open = {17, 16};
        long moves = 0;
        for (int round = 0; round < 10; round++) {
            AcceptShare<String>[] ws = new AcceptShare[] {w0, w1};
            for (int i = 0; i < 2; i++) {
                ws[i].work();
                while (ws[i].receive() != null) {
                    open[i]++;
                }
                int target = ws[i].rebalancePick(open[i]);
                if (target != i && ws[i].rebalance(target, "c")) {
                    open[i]--;
                    moves++;
                }
                ws[i].passEnd(open[i]);
            }
            f.clock.advance(REBALANCE_INTERVAL_NANOS);
        }
        assertTrue(moves >= 10, "the mutant moves one connection back and forth: " + moves);
    }
}
