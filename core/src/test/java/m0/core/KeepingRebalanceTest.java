package m0.core;

import static m0.core.AcceptShare.KEEPING_BIT;
import static m0.core.AcceptShare.REBALANCE_INTERVAL_NANOS;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * A keeping worker's rebalance look (ADR 0059): settled connections only, among keeping
 * siblings only, each sibling read as its pending plus its published settled count.
 */
class KeepingRebalanceTest {

    /** Worker {@code i}'s gate sees a spell of churn and keeps (ADR 0044's early entry). */
    private static void keeping(Fixture f, int i) {
        long now = f.clock.nanoTime();
        f.w(i).shape(now, 0, 0);
        f.w(i).shape(now + 1, LoadShape.KEEP_MIN_SHORT, 0);
        assertTrue((f.get(PageLayout.busyWord(i)) & KEEPING_BIT) != 0, "w" + i + " keeps");
    }

    /** Worker {@code i}'s pass end: {@code settled} of its {@code open} connections settled, as the loop publishes them. */
    private static void published(Fixture f, int i, long open, long settled) {
        f.w(i).passStart();
        f.w(i).publishSettled(settled);
        f.w(i).passEnd(open);
    }

    @Test
    void theChurnInTheOpenCountsDecidesNothing() {
        Fixture f = new Fixture(2).started();
        keeping(f, 0);
        keeping(f, 1);
        published(f, 1, 30, 0); // 30 open, every one a connection-close client in flight
        assertEquals(1, f.w(0).rebalancePick(3, 3, 0), "3 settled against none: a move, whatever w1's churn");
        assertTrue(f.w(0).settledOnly(), "and it takes a settled one");
        Fixture g = new Fixture(2).started();
        keeping(g, 0);
        keeping(g, 1);
        published(g, 1, 0, 0);
        assertEquals(0, g.w(0).rebalancePick(30, 1, 0), "30 open but 1 settled against 0: a gap of one");
    }

    @Test
    void theDeadBandAndHeaviestOnlyHoldInSettledConnections() {
        Fixture f = new Fixture(3).started();
        for (int i = 0; i < 3; i++) {
            keeping(f, i);
        }
        published(f, 1, 2, 2);
        published(f, 2, 5, 5);
        assertEquals(0, f.w(0).rebalancePick(4, 3, 0), "a gap of one to w1");
        assertEquals(0, f.w(0).rebalancePick(4, 4, 0), "two over w1, but w2 is heavier: its moves are the needed ones");
        assertEquals(1, f.w(0).rebalancePick(5, 5, 0), "as heavy as the heaviest, three over the lightest");
    }

    @Test
    void aBalancingSiblingIsATargetButNeverAWeight() {
        Fixture f = new Fixture(3).started();
        keeping(f, 0);
        keeping(f, 2);
        published(f, 1, 4, 0); // w1 balances, four fresh keep-alive connections answered once
        published(f, 2, 4, 4);
        assertEquals(1, f.w(0).rebalancePick(5, 5, 0), "w1 holds no settled one: the target, whatever its open count");
        published(f, 1, 9, 9);
        published(f, 2, 1, 1);
        assertEquals(2, f.w(0).rebalancePick(5, 5, 0), "w1's 9 weigh nothing in heaviest only: w2 is the target");
    }

    /**
     * The other side of the rule: a balancing look targets a keeping sibling only when two over
     * it in settled connections as well as in open ones, so a move between the modes always
     * goes from more settled connections to fewer and neither look undoes the other's.
     */
    @Test
    void aBalancingLookTargetsAKeepingSiblingOnlyTwoOverInSettledConnectionsToo() {
        Fixture f = new Fixture(2).started();
        keeping(f, 1);
        published(f, 1, 0, 1); // its churn between two passes: no open connection, one settled
        assertEquals(0, f.w(0).rebalancePick(10, 2, 0), "ten over in open ones, one in settled ones: no move");
        assertEquals(1, f.w(0).rebalancePick(10, 3, 0), "two over in both");
        assertFalse(f.w(0).settledOnly(), "a balancing look's move takes any idle connection");
        f.counts(1, 1, 0); // one raised against w1, not yet received: read as settled
        f.clock.advance(REBALANCE_INTERVAL_NANOS);
        assertEquals(0, f.w(0).rebalancePick(10, 3, 0), "3 against 1 + 1 in flight");
    }

    /**
     * A connection moved to a sibling is in its pending until the pass end that retires it, and
     * in its settled count from that pass end's publish, which comes first: read in that order,
     * it is counted once or twice, never missed.
     */
    @Test
    void aSiblingsPendingCountsAsSettled() {
        Fixture f = new Fixture(2).started();
        keeping(f, 0);
        keeping(f, 1);
        f.counts(1, 2, 0); // two moves raised against w1, not yet received
        assertEquals(0, f.w(0).rebalancePick(3, 3, 0), "3 against 0 + 2 in flight: a gap of one");
        f.counts(1, 2, 2); // received, admitted, published settled, not yet retired
        f.w(1).publishSettled(2);
        assertEquals(0, f.w(0).rebalancePick(4, 4, 0), "counted twice for an instant: a move less, never more");
    }

    @Test
    void neverATargetThatHasLeftHasNotStartedOrIsInASlowPass() {
        Fixture f = new Fixture(4).started();
        for (int i = 0; i < 4; i++) {
            keeping(f, i);
        }
        published(f, 3, 0, 0);
        f.put(PageLayout.stateWord(1), PageLayout.LEFT); // reaped: its words read no load
        f.put(PageLayout.stateWord(2), PageLayout.NOT_STARTED); // a replacement, not reading its channel yet
        f.w(3).work();
        f.clock.advance(PageLayout.SLOW_PASS_NANOS + 1);
        assertEquals(0, f.w(0).rebalancePick(6, 6, 0), "w3 is inside one pass for over 2 ms");
        f.w(3).passEnd(0);
        assertEquals(3, f.w(0).rebalancePick(6, 6, 0), "w3 once its pass ended; never w1 or w2");
    }

    @Test
    void oneMovePerIntervalAndNoneAtOne() {
        Fixture f = new Fixture(2).started();
        keeping(f, 0);
        keeping(f, 1);
        published(f, 1, 0, 0);
        assertEquals(0, f.w(0).rebalancePick(1, 1, 0), "one settled never moves");
        assertEquals(1, f.w(0).rebalancePick(6, 6, 0));
        assertTrue(f.w(0).rebalance(1, "settled-1"));
        assertEquals(0, f.w(0).rebalancePick(5, 5, 0), "rate: one move per interval");
        f.clock.advance(REBALANCE_INTERVAL_NANOS);
        assertEquals(1, f.w(0).rebalancePick(5, 5, 0));
    }

    @Test
    void theBusyWordCarriesTheModeAndTheSettledCount() {
        Fixture f = new Fixture(2).started();
        f.w(0).publishSettled(7);
        assertEquals(7, f.get(PageLayout.busyWord(0)), "balancing: the count alone");
        keeping(f, 0);
        assertEquals(KEEPING_BIT | 7, f.get(PageLayout.busyWord(0)), "the mode's change keeps the count");
        f.w(0).publishSettled(3);
        assertEquals(KEEPING_BIT | 3, f.get(PageLayout.busyWord(0)));
        f.w(0).leave();
        f.w(0).publishSettled(9);
        assertEquals(KEEPING_BIT | 3, f.get(PageLayout.busyWord(0)), "a leaver publishes nothing");
    }

    @Test
    void aBalancingWorkerLooksAsBeforeAndRaceAndFountainPublishNoSettledCount() {
        Fixture f = new Fixture(2).started();
        published(f, 1, 0, 0);
        assertEquals(1, f.w(0).rebalancePick(4, 0, 0), "balancing: open counts, settled or not");
        assertFalse(f.w(0).settledOnly());
        Fixture fountain = new Fixture(2, AcceptPolicy::fountain).started();
        fountain.w(0).publishSettled(5);
        assertEquals(0, fountain.get(PageLayout.busyWord(0)), "fountain's BUSY word is its own");
        Fixture race = new Fixture(2, AcceptPolicy::race).started();
        race.w(0).publishSettled(5);
        assertEquals(0, race.get(PageLayout.busyWord(0)), "race shares nothing");
    }
}
