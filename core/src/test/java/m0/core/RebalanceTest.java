package m0.core;

import static m0.core.AcceptShare.REBALANCE_INTERVAL_NANOS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
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
        assertEquals(0, f.w(0).rebalancePick(3, 0, 0), "lighter than one sibling, equal to the other");
        assertEquals(0, f.w(0).rebalancePick(4, 0, 0), "a gap of one: a move would only swap the loads");
        assertEquals(2, f.w(0).rebalancePick(5, 0, 0), "a gap of two to the lightest (3)");
    }

    @Test
    void onlyAHeaviestWorkerMoves() {
        Fixture f = new Fixture(3).started();
        published(f, 1, 0);
        published(f, 2, 4);
        assertEquals(0, f.w(0).rebalancePick(2, 0, 0), "two over the lightest, but a sibling is heavier");
        assertEquals(1, f.w(0).rebalancePick(4, 0, 0), "as heavy as the heaviest: it may move");
        f.w(2).work();
        f.clock.advance(PageLayout.SLOW_PASS_NANOS + 1);
        assertEquals(0, f.w(0).rebalancePick(2, 0, 0), "a slow sibling is no target, but its load still counts");
    }

    @Test
    void aMoveIsAHandOffAndTheNextWaitsOutTheInterval() {
        Fixture f = new Fixture(2).started();
        AcceptShare<String> w0 = f.w(0);
        assertEquals(1, w0.rebalancePick(10, 0, 0));
        assertTrue(w0.rebalance(1, "idle-1"));
        assertEquals(1, f.pending(1), "raised like any hand-off (R5)");
        assertEquals("idle-1", f.channel.receive(1));
        assertEquals(1, w0.rebalancedCount());
        assertEquals(0, w0.rebalancePick(9, 0, 0), "rate: one move per interval");
        f.clock.advance(REBALANCE_INTERVAL_NANOS);
        assertEquals(1, w0.rebalancePick(9, 0, 0));
    }

    @Test
    void ownLoadCountsWhatIsInFlightToUs() {
        Fixture f = new Fixture(2).started();
        f.counts(0, 3, 0); // three raised against worker 0, none received yet
        assertEquals(1, f.w(0).rebalancePick(0, 0, 0), "0 open + 3 in flight against an idle sibling");
    }

    @Test
    void neverATargetThatHasLeftHasNotStartedOrIsInASlowPass() {
        Fixture f = new Fixture(4).started();
        f.put(PageLayout.stateWord(1), PageLayout.LEFT);
        f.put(PageLayout.stateWord(2), PageLayout.NOT_STARTED);
        f.w(3).work();
        f.clock.advance(PageLayout.SLOW_PASS_NANOS + 1);
        assertEquals(0, f.w(0).rebalancePick(20, 0, 0));
        f.w(3).passEnd(0);
        assertEquals(3, f.w(0).rebalancePick(20, 0, 0), "the same sibling once its pass ended");
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
        assertEquals(2, f.w(0).rebalancePick(4, 0, 0), "w1's 9 died with it: w0 (4) is the heaviest live one");
        f.put(PageLayout.stateWord(1), PageLayout.NOT_STARTED); // its replacement, bound, not started
        assertEquals(2, f.w(0).rebalancePick(4, 0, 0), "the replacement's words are its predecessor's");
    }

    @Test
    void aRefusedMoveKeepsTheConnectionAndCountsNothing() {
        Fixture f = new Fixture(2, 0).started(); // a channel that holds nothing: every send refused
        assertEquals(1, f.w(0).rebalancePick(10, 0, 0));
        assertFalse(f.w(0).rebalance(1, "idle-1"));
        assertEquals(0, f.pending(1), "the raise is taken back");
        assertEquals(0, f.w(0).rebalancedCount());
    }

    @Test
    void offLeavingAndSelfNeverMove() {
        Fixture f = new Fixture(2).started();
        AcceptShare<String> off = new AcceptShare<>(f.page, f.channel, f.clock, AcceptPolicy.share(), 2, 0,
                AcceptShare.LEAVE_DRAIN_NANOS, Rebalance.off());
        assertEquals(0, off.rebalancePick(30, 0, 0));
        assertFalse(f.w(0).rebalance(0, "c"), "never to self");
        f.w(0).leave();
        assertEquals(0, f.w(0).rebalancePick(30, 0, 0), "a leaver hands over everything anyway");
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
                int target = w.rebalancePick(open[i], 0, 0);
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
                int target = ws[i].rebalancePick(open[i], 0, 0);
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

    // ---- the swap (ADR 0057)

    private static final long PAIRS_WITH_0 = PageLayout.affineBit(0);
    private static final long PAIRS_WITH_1 = PageLayout.affineBit(1);

    @Test
    void swapsOnlyWhereBothSidesAreMarkedAndNotOverTheSibling() {
        Fixture f = new Fixture(2).started();
        published(f, 1, 16);
        assertEquals(0, f.w(0).rebalancePick(16, 0, PAIRS_WITH_1), "w1 holds none that pairs with w0: a swap would be one-sided");
        f.w(1).publishAffinities(PAIRS_WITH_0 | PAIRS_WITH_1);
        assertEquals(PAIRS_WITH_0, f.get(PageLayout.affineWord(1)), "a worker's own bit is never published");
        assertEquals(1, f.w(0).rebalancePick(16, 0, PAIRS_WITH_1), "both marked, loads even: swap");
        assertEquals(1, f.w(0).rebalancePick(17, 0, PAIRS_WITH_1), "one over: the swap places one, the loads stay within one, and no return is due");
        assertEquals(0, f.w(0).rebalancePick(15, 0, PAIRS_WITH_1), "under the sibling: a move would leave it three over");
        assertEquals(0, f.w(0).rebalancePick(16, 0, PAIRS_WITH_0), "only its own kind held: nothing to place");
        assertEquals(0, f.w(0).rebalancePick(16, 0, 0), "no affinity known: nothing to place");
    }

    @Test
    void aSwapIsMadeOnlyWhereItsReturnComesBack() {
        Fixture f = new Fixture(3).started();
        published(f, 1, 16);
        published(f, 2, 14);
        f.w(1).publishAffinities(PAIRS_WITH_0);
        f.w(2).work();
        f.clock.advance(PageLayout.SLOW_PASS_NANOS + 1); // w2 in a slow pass: no plain move to it now
        assertEquals(0, f.w(0).rebalancePick(16, 0, PAIRS_WITH_1),
                "16 / 16 / 14: after the swap w1 (17) would return one to w2 (14), not here");
        assertFalse(f.w(0).swapping());
        f.w(2).passEnd(15);
        assertEquals(1, f.w(0).rebalancePick(16, 0, PAIRS_WITH_1),
                "16 / 16 / 15: w0 and w2 tie at 15 after it, and w1 holds w0's kind");
        assertTrue(f.w(0).swapping(), "its move takes only one of w1's kind");
        assertEquals(2, f.w(0).rebalancePick(17, 0, PAIRS_WITH_1), "two over w2: a plain move first");
        assertFalse(f.w(0).swapping());
    }

    @Test
    void amongEquallyLightSiblingsAMoveGoesWhereItPlacesOne() {
        Fixture f = new Fixture(3).started();
        published(f, 0, 15);
        published(f, 2, 15);
        assertEquals(2, f.w(1).rebalancePick(17, 0, 0), "no kind held: the first in the scan");
        assertEquals(0, f.w(1).rebalancePick(17, 0, PAIRS_WITH_0), "w0's kind held: to w0, the swap's return");
    }

    @Test
    void aCpuPairsWithALiveWorkerByRank() {
        Fixture f = new Fixture(5).started();
        f.put(PageLayout.stateWord(2), PageLayout.NOT_STARTED); // spare lines, as m0serve's 2N + 1
        f.put(PageLayout.stateWord(3), PageLayout.NOT_STARTED);
        f.put(PageLayout.stateWord(4), PageLayout.NOT_STARTED);
        assertEquals(0, f.w(0).pairedWorker(0));
        assertEquals(1, f.w(0).pairedWorker(1));
        assertEquals(0, f.w(1).pairedWorker(2), "4 CPUs over 2 workers: CPU 2 pairs with w0, not a spare line");
        assertEquals(1, f.w(1).pairedWorker(3));
        f.put(PageLayout.stateWord(0), PageLayout.LEFT); // a reload: w0 and w1 replaced on 2 and 3
        f.put(PageLayout.stateWord(1), PageLayout.LEFT);
        f.put(PageLayout.stateWord(2), PageLayout.PARKED);
        f.put(PageLayout.stateWord(3), PageLayout.PARKED);
        assertEquals(2, f.w(2).pairedWorker(0));
        assertEquals(3, f.w(2).pairedWorker(1));
    }

    @Test
    void aMoveTakesOneThatPairsWithItsTargetWhileOneIsHeld() {
        Fixture f = new Fixture(2).started();
        assertEquals(1, f.w(0).affinityToMove(1, PAIRS_WITH_0 | PAIRS_WITH_1));
        assertEquals(Rebalance.ANY_AFFINITY, f.w(0).affinityToMove(1, PAIRS_WITH_0), "none of its kind: any idle one");
    }

    @Test
    void aReplacementsStartClearsItsPredecessorsMark() {
        Fixture f = new Fixture(2).started();
        f.w(1).publishAffinities(PAIRS_WITH_0);
        published(f, 1, 16);
        f.put(PageLayout.stateWord(1), PageLayout.LEFT); // reaped
        AcceptShare<String> r = new AcceptShare<>(f.page, f.channel, f.clock, AcceptPolicy.share(), 2, 1);
        r.bind();
        r.start();
        assertEquals(0, f.get(PageLayout.affineWord(1)), "the predecessor's connections died with it");
        r.passStart();
        r.passEnd(16);
        assertEquals(0, f.w(0).rebalancePick(16, 0, PAIRS_WITH_1), "loads even, and the replacement marks none");
    }

    @Test
    void aLeaverPublishesNoMark() {
        Fixture f = new Fixture(2).started();
        f.w(1).leave();
        f.w(1).publishAffinities(PAIRS_WITH_0);
        assertEquals(0, f.get(PageLayout.affineWord(1)));
    }

    /**
     * Two clients crossed over two workers, 8 of each on each ("A" pairs with w0, "B" with w1):
     * eight swaps pair them, 16 moves, and the loads never part by more than two.
     */
    @Test
    void crossedClientsEndPairedWithTheLoadsAsTheyWere() {
        Fixture f = new Fixture(2).started();
        List<List<String>> held = List.of(new ArrayList<>(), new ArrayList<>());
        for (int k = 0; k < 8; k++) {
            for (int i = 0; i < 2; i++) {
                held.get(i).add("A" + i + "." + k);
                held.get(i).add("B" + i + "." + k);
            }
        }
        long moves = runSwaps(f, held, 200);
        assertEquals(16, moves, "eight swaps, two moves each, no more");
        assertTrue(held.get(0).stream().allMatch(c -> c.startsWith("A")), "w0 holds " + held.get(0));
        assertTrue(held.get(1).stream().allMatch(c -> c.startsWith("B")), "w1 holds " + held.get(1));
    }

    /** w0 holds one of B's, but w1 none of A's: no swap would place anything, and none is made. */
    @Test
    void aOneSidedStrangerStaysPut() {
        Fixture f = new Fixture(2).started();
        List<List<String>> held = List.of(new ArrayList<>(), new ArrayList<>());
        held.get(0).add("B0");
        for (int k = 1; k < 16; k++) {
            held.get(0).add("A" + k);
        }
        for (int k = 0; k < 16; k++) {
            held.get(1).add("B" + (16 + k));
        }
        assertEquals(0, runSwaps(f, held, 50));
    }

    private static long affinities(List<String> held) {
        long mask = 0;
        for (String c : held) {
            mask |= c.startsWith("A") ? PAIRS_WITH_0 : PAIRS_WITH_1;
        }
        return mask;
    }

    /** Rounds of both workers' passes as the loop makes them: receive, look, move in kind, publish. */
    private static long runSwaps(Fixture f, List<List<String>> held, int rounds) {
        for (int i = 0; i < 2; i++) { // published as at a pass end before the first look
            f.w(i).passStart();
            f.w(i).publishAffinities(affinities(held.get(i)));
            f.w(i).passEnd(held.get(i).size());
        }
        long moves = 0;
        for (int round = 0; round < rounds; round++) {
            for (int i = 0; i < 2; i++) {
                AcceptShare<String> w = f.w(i);
                List<String> mine = held.get(i);
                w.work();
                String got;
                while ((got = w.receive()) != null) {
                    mine.add(got);
                }
                long kinds = affinities(mine);
                int target = w.rebalancePick(mine.size(), 0, kinds);
                if (target != i) {
                    String prefix = w.affinityToMove(target, kinds) == 0 ? "A" : w.affinityToMove(target, kinds) == 1 ? "B" : "";
                    String c = mine.stream().filter(x -> x.startsWith(prefix)).findFirst().orElseThrow();
                    if (w.rebalance(target, c)) {
                        mine.remove(c);
                        moves++;
                    }
                }
                assertTrue(Math.abs(held.get(0).size() - held.get(1).size()) <= 2, "never more than two apart: " + held);
                w.publishAffinities(affinities(mine));
                w.passEnd(mine.size());
            }
            f.clock.advance(REBALANCE_INTERVAL_NANOS);
        }
        return moves;
    }
}
