package m0.core;

import static m0.core.BusyEstimator.FULL_BIT;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The fountain's listener rule and its place in AcceptShare, with the note's numbers. */
class FountainPolicyTest {

    private static final long MS = 1_000_000L;
    private static final long T0 = 1_000 * MS;

    private final FakeClock clock = new FakeClock(T0);
    private final AtomicLongArrayPage page = AtomicLongArrayPage.forWorkers(3);
    private final QueueChannel<String> channel = new QueueChannel<>(3, 16);
    private final List<AcceptShare<String>> w = new ArrayList<>();

    FountainPolicyTest() {
        for (int i = 0; i < 3; i++) {
            AcceptShare<String> s = new AcceptShare<>(page, channel, clock, AcceptPolicy.named("fountain"), 3, i);
            s.bind();
            s.start();
            w.add(s);
        }
    }

    private void full(int i) {
        page.setVolatile(PageLayout.busyWord(i), 900 | FULL_BIT);
    }

    private long busy(int i) {
        return page.getVolatile(PageLayout.busyWord(i));
    }

    @Test
    void itIsNamedAndShares() {
        AcceptPolicy p = AcceptPolicy.named("fountain");
        assertEquals("fountain", p.name());
        assertTrue(p.shares(), "it needs the state words on the page");
        assertFalse(p.movesConnections());
        assertTrue(AcceptPolicy.share().movesConnections());
    }

    @Test
    void workerZeroTakesWhileFreeWhateverItsPublishedWordSays() {
        assertTrue(w.get(0).takeListener(true));
        full(0);
        assertTrue(w.get(0).takeListener(true), "nobody is before it, and its own estimate is free");
    }

    /** Nine accepts at once: the surge makes worker {@code i} full. */
    private AcceptShare<String> turnFull(int i) {
        AcceptShare<String> s = w.get(i);
        for (int k = 0; k < 9; k++) {
            s.passOn("c" + k, k);
        }
        assertTrue(BusyEstimator.full(busy(i)));
        return s;
    }

    @Test
    void aFullWorkerLeavesTheListenerToTheFirstLaterFreeWorkerUnderTheSameLooks() {
        AcceptShare<String> w0 = turnFull(0);
        assertFalse(w0.takeListener(true), "w1 is free: the burst is its");
        assertEquals(T0 + MS, w0.listenDeadline(), "looked at again within 1 ms");
        clock.advance(MS);
        assertTrue(w0.takeListener(true), "still readable a look later and w1's words unchanged: stuck, taken");
        w.get(1).passStart(); // w1 moves: not stuck after all
        w.get(1).passEnd(1);
        assertFalse(w0.takeListener(true), "w1 took one: it is the one to leave to again");
    }

    @Test
    void aFullWorkerTakesWhenEveryLaterWorkerIsFullOrGone() {
        AcceptShare<String> w0 = turnFull(0);
        full(1);
        assertFalse(w0.takeListener(true), "w2 is free");
        page.setVolatile(PageLayout.stateWord(2), PageLayout.LEFT);
        assertTrue(w0.takeListener(true), "w1 full and w2 gone: every worker takes, w0 too");
    }

    @Test
    void aWorkerKeepsWhatItAcceptsAndCountsItForTheSurge() {
        AcceptShare<String> w0 = w.get(0);
        for (int k = 0; k < 8; k++) {
            assertFalse(w0.passOn("c" + k, k), "kept: no hand-off");
            assertFalse(BusyEstimator.full(busy(0)));
        }
        assertFalse(w0.passOn("c8", 8));
        assertEquals(900 | FULL_BIT, busy(0), "the ninth at once makes it full, published on its line");
        assertEquals(0, w0.sentCount());
        assertEquals(null, channel.receive(1));
        assertEquals(null, channel.receive(2));
    }

    @Test
    void theAcceptThatTurnsAWorkerFullEndsItsBatchAndTellsTheNextFreeWorker() {
        AcceptShare<String> w0 = w.get(0);
        for (int k = 0; k < 8; k++) {
            w0.passOn("c" + k, k);
            assertEquals(AcceptPolicy.GO_ON, w0.endBatch(), "not full after " + (k + 1));
        }
        w0.passOn("c8", 8);
        assertEquals(1, w0.endBatch(), "the ninth turns it full: w1 is told to look now");
        w0.passOn("c9", 9);
        assertEquals(AcceptPolicy.END_BATCH, w0.endBatch(), "still full: one accept a batch, nobody told again");
    }

    @Test
    void aFullWorkerGoesOnWhenEveryLaterWorkerIsFullAndTellsPastOnesThatAreFull() {
        AcceptShare<String> w0 = w.get(0);
        full(1);
        for (int k = 0; k < 9; k++) {
            w0.passOn("c" + k, k);
        }
        assertEquals(2, w0.endBatch(), "w1 is full: w2 is the next free one");
        full(2);
        w0.passOn("c9", 9);
        assertEquals(AcceptPolicy.GO_ON, w0.endBatch(), "all full: every worker takes, w0 too");
    }

    @Test
    void aFullWorkerBehindAnEarlierFreeOneEndsItsBatchEvenWithNobodyLater() {
        // w2 is last: no later worker to tell. It took over from w1 (found stuck, or still
        // waking on a busy machine) and the ninth turns it full; w0 is full, w1 free. Going on
        // would take the whole backlog here, and w1 would wake to nothing (a 47/9/8/0 burst).
        full(0);
        AcceptShare<String> w2 = turnFull(2);
        assertEquals(AcceptPolicy.END_BATCH, w2.endBatch(), "w1 is before it and free: it has the listener");
        assertFalse(w2.takeListener(true), "and it is left to w1 under the looks");
        full(1);
        assertEquals(AcceptPolicy.GO_ON, w2.endBatch(), "every other worker full: all take, w2 too");
        page.setVolatile(PageLayout.stateWord(1), PageLayout.LEFT);
        page.setVolatile(PageLayout.busyWord(1), 0);
        assertEquals(AcceptPolicy.GO_ON, w2.endBatch(), "a free worker that left does not hold the batch");
    }

    @Test
    void aFullWorkerThatTookOverFromAStuckHeadGoesOnWhileThatHeadStaysStuck() {
        AcceptShare<String> w2 = w.get(2);
        full(0);
        assertFalse(w2.takeListener(true), "w1 is the head: left to it");
        clock.advance(MS);
        assertTrue(w2.takeListener(true), "a look later, readable and w1 unmoved: stuck, taken");
        turnFull(2);
        assertEquals(AcceptPolicy.GO_ON, w2.endBatch(),
                "w1 is skipped while stuck: ending the batch would leave the backlog to nobody");
    }

    @Test
    void aWorkerThatLeftOrNeverStartedIsNotTold() {
        page.setVolatile(PageLayout.stateWord(1), PageLayout.LEFT);
        page.setVolatile(PageLayout.stateWord(2), PageLayout.NOT_STARTED);
        AcceptShare<String> w0 = w.get(0);
        for (int k = 0; k < 9; k++) {
            w0.passOn("c" + k, k);
        }
        assertTrue(BusyEstimator.full(busy(0)));
        assertEquals(AcceptPolicy.GO_ON, w0.endBatch(), "nobody later can take: the batch goes on");
    }

    @Test
    void shareAndRaceNeverEndABatch() {
        for (String name : List.of("share", "race")) {
            AcceptShare<String> s = new AcceptShare<>(page, channel, clock, AcceptPolicy.named(name), 3, 0);
            assertEquals(AcceptPolicy.GO_ON, s.endBatch(), name);
        }
    }

    @Test
    void establishedConnectionsNeverMove() {
        w.get(1).passStart();
        w.get(1).passEnd(0);
        assertEquals(0, w.get(0).rebalancePick(40, 0, 0), "share would move one to w1; fountain moves none");
    }

    @Test
    void aLaterWorkerLeavesTheListenerAndTakesItWhenTwoLooksAMillisecondApartSeeNoProgress() {
        AcceptShare<String> w1 = w.get(1);
        assertFalse(w1.takeListener(true), "w0 is free: its connection");
        assertEquals(T0 + MS, w1.listenDeadline(), "look again in 1 ms");
        clock.advance(MS - 1);
        assertFalse(w1.takeListener(true), "0.999999 ms: too soon to judge");
        assertEquals(T0 + MS, w1.listenDeadline(), "the first look stays the baseline");
        clock.advance(1);
        assertTrue(w1.takeListener(true), "still there 1 ms later and w0 did nothing (stopped while parked)");
    }

    @Test
    void aConnectionArrivingJustAfterAnEmptyLookIsTakenFromAStuckHeadWithin2ms() {
        AcceptShare<String> w1 = w.get(1);
        assertFalse(w1.takeListener(false), "nothing waits: stay away, look again");
        assertEquals(T0 + MS, w1.listenDeadline());
        clock.advance(MS);
        assertFalse(w1.takeListener(true), "the first look that finds it");
        assertEquals(T0 + 2 * MS, w1.listenDeadline());
        clock.advance(MS);
        assertTrue(w1.takeListener(true), "2 ms after the empty look");
    }

    @Test
    void aFullLeftNotStartedOrSlowEarlierWorkerIsNotTaking() {
        AcceptShare<String> w1 = w.get(1);
        full(0);
        assertTrue(w1.takeListener(true), "w0 full");
        page.setVolatile(PageLayout.busyWord(0), 0);
        w.get(0).leave();
        assertTrue(w1.takeListener(true), "w0 LEFT");
        page.setVolatile(PageLayout.stateWord(0), PageLayout.NOT_STARTED);
        assertTrue(w1.takeListener(true), "w0 NOT_STARTED");
        page.setVolatile(PageLayout.stateWord(0), T0 - 2 * MS - 1);
        assertTrue(w1.takeListener(true), "w0 inside one pass for over 2 ms");
        page.setVolatile(PageLayout.stateWord(0), T0 - 2 * MS);
        assertFalse(w1.takeListener(true), "exactly 2 ms is not over 2 ms");
    }

    @Test
    void aHeadInAPassIsLeftOnlyUntilThePassTurnsSlow() {
        page.setVolatile(PageLayout.stateWord(0), T0 - 3 * MS / 2);
        AcceptShare<String> w1 = w.get(1);
        assertFalse(w1.takeListener(true));
        assertEquals(T0 + MS / 2 + 1, w1.listenDeadline(), "0.5 ms from now, not 1");
        clock.advance(MS / 2 + 1);
        assertTrue(w1.takeListener(true), "a pass over 2 ms: not taking");
    }

    @Test
    void theHeadIsTheFirstTakingWorkerBeforeMe() {
        full(0);
        AcceptShare<String> w2 = w.get(2);
        assertFalse(w2.takeListener(true), "w0 is full, w1 is free: w1's turn");
        full(1);
        assertTrue(w2.takeListener(true), "both before it full: w2 fills");
    }

    @Test
    void aHeadThatMakesProgressIsTakingNotStuck() {
        AcceptShare<String> w1 = w.get(1);
        assertFalse(w1.takeListener(true));
        clock.advance(MS / 2);
        w.get(0).passStart();
        w.get(0).passOn("c", 0); // publishes active = 1
        w.get(0).passEnd(1);
        clock.advance(MS / 2);
        assertFalse(w1.takeListener(true), "w0 took one: a new connection, a new first look");
        assertEquals(T0 + 2 * MS, w1.listenDeadline());
    }

    @Test
    void aStuckHeadCostsOnlyTheFirstConnectionItsWait() {
        AcceptShare<String> w1 = w.get(1);
        assertFalse(w1.takeListener(true));
        clock.advance(MS);
        assertTrue(w1.takeListener(true), "the first waited");
        assertTrue(w1.takeListener(false), "w0 stuck: w1 listens, empty or not");
        clock.advance(5 * MS);
        assertTrue(w1.takeListener(true), "w0 still shows nothing new: skipped at once");
        w.get(0).passStart();
        w.get(0).passOn("c", 0);
        w.get(0).passEnd(1);
        assertFalse(w1.takeListener(true), "w0 accepted again: it is back, its turn again");
    }

    @Test
    void aHeadBackFromAStopIsTheHeadAgainWhenItsIdleWordsReturn() {
        AcceptShare<String> w1 = w.get(1);
        AcceptShare<String> w0 = w.get(0);
        assertFalse(w1.takeListener(true));
        clock.advance(MS);
        assertTrue(w1.takeListener(true), "w0 stopped while parked with nothing open: found stuck");
        w0.passStart(); // continued: it accepts a connection (active 1) ...
        w0.passOn("c", 0);
        w0.passEnd(1);
        assertFalse(w1.takeListener(true), "w0 is back: its turn");
        clock.advance(MS);
        w0.passStart(); // ... and its client leaves: PARKED with nothing open, the words it stopped with
        w0.passEnd(0);
        assertFalse(w1.takeListener(true), "idle w0 is the head, not the stuck worker it once was");
        assertEquals(T0 + 3 * MS, w1.listenDeadline(), "a first look: stuck only after a second finds no progress");
    }

    @Test
    void theReplacementOfAStuckHeadIsTheHead() {
        AcceptShare<String> w1 = w.get(1);
        assertFalse(w1.takeListener(true));
        clock.advance(MS);
        assertTrue(w1.takeListener(true), "w0 dead, not yet reaped: found stuck");
        page.setVolatile(PageLayout.stateWord(0), PageLayout.LEFT); // reaped
        assertTrue(w1.takeListener(true), "no head");
        AcceptShare<String> replacement = new AcceptShare<>(page, channel, clock, AcceptPolicy.named("fountain"), 3, 0);
        replacement.bind();
        assertTrue(w1.takeListener(true), "still starting");
        replacement.start(); // PARKED with nothing open: the words its predecessor was found stuck with
        assertFalse(w1.takeListener(true), "the replacement takes connections, not w1");
    }

    @Test
    void anEmptyLookEndsTheWait() {
        AcceptShare<String> w1 = w.get(1);
        assertFalse(w1.takeListener(true));
        clock.advance(MS / 2);
        assertFalse(w1.takeListener(false), "w0 took it: w1 stays away from the listener");
        assertEquals(T0 + 3 * MS / 2, w1.listenDeadline(), "and looks again in 1 ms");
        clock.advance(MS);
        assertFalse(w1.takeListener(true), "a new connection: its own first look");
        assertEquals(T0 + 5 * MS / 2, w1.listenDeadline());
    }

    @Test
    void aFreeWorkerWithNoTakingHeadListens() {
        full(0);
        assertTrue(w.get(1).takeListener(false), "w0 full: w1 is a taker, keep the listener in epoll");
    }

    @Test
    void startForgetsAPredecessorsFullFlag() {
        full(1);
        AcceptShare<String> replacement = new AcceptShare<>(page, channel, clock, AcceptPolicy.fountain(), 3, 1);
        replacement.bind();
        replacement.start();
        assertEquals(0, busy(1));
    }

    @Test
    void samplesArePublishedWithHysteresis() {
        AcceptShare<String> w0 = w.get(0);
        long busyNanos = 0;
        w0.sample(busyNanos);
        for (int k = 1; k <= 3; k++) {
            clock.advance(20 * MS);
            busyNanos += 20 * MS;
            w0.sample(busyNanos);
        }
        assertEquals(875 | FULL_BIT, busy(0), "100 % busy: 500, 750, 875 per mille, full");
        clock.advance(10 * MS);
        w0.sample(busyNanos);
        assertEquals(875 | FULL_BIT, busy(0), "10 ms later: no sample");
        clock.advance(10 * MS);
        busyNanos += 10 * MS;
        w0.sample(busyNanos);
        assertEquals(687, busy(0), "(875 + 500) / 2 = 687 < 700: free");
    }

    @Test
    void shareAndRaceAlwaysTakeTheListenerAndIgnoreSamples() {
        for (AcceptPolicy p : new AcceptPolicy[] {AcceptPolicy.share(), AcceptPolicy.race()}) {
            AtomicLongArrayPage pg = AtomicLongArrayPage.forWorkers(2);
            AcceptShare<String> w1 = new AcceptShare<>(pg, new QueueChannel<>(2, 4), clock, p, 2, 1);
            w1.bind();
            w1.start();
            assertTrue(w1.takeListener(true), p.name());
            assertTrue(w1.takeListener(false), p.name());
            w1.sample(5 * MS);
            clock.advance(40 * MS);
            w1.sample(45 * MS);
            assertEquals(0, pg.getVolatile(PageLayout.busyWord(1)), p.name());
            assertThrows(IllegalStateException.class, w1::listenDeadline, p.name() + " never leaves it");
        }
    }

    /**
     * Worker 0's loop 10 % busy for three samples while {@code poolBusyThreads} of its 4 pool
     * threads are occupied; then worker 1, which had left the listener to it, looks again.
     */
    private boolean workerOneTakesAfterWorkerZerosPoolAt(int poolBusyThreads) {
        AcceptShare<String> w0 = w.get(0);
        AcceptShare<String> w1 = w.get(1);
        assertFalse(w1.takeListener(false), "w0 is free: leave it the listener");
        long loop = 0;
        long pool = 0;
        w0.sample(loop, pool, 4);
        for (int k = 0; k < 3; k++) {
            clock.advance(20 * MS);
            loop += 2 * MS;
            pool += 20 * MS * poolBusyThreads;
            w0.sample(loop, pool, 4);
        }
        return w1.takeListener(true); // the first look that finds one: only a full w0 gives it up now
    }

    @Test
    void aWorkerWhosePoolIsSaturatedIsFullAndTheNextTakes() {
        assertTrue(workerOneTakesAfterWorkerZerosPoolAt(4));
        assertEquals(875 | FULL_BIT, busy(0), "loop 10 %, pool 4 of 4: max is 100 %: 500, 750, 875");
    }

    @Test
    void aPoolAtHalfLeavesTheConnectionsToWorkerZero() {
        assertFalse(workerOneTakesAfterWorkerZerosPoolAt(2));
        assertEquals(437, busy(0), "max(100, 500): 250, 375, 437, not full");
    }

    // ---- issue 25: what a worker holds out, later workers that are not taking, one mark each

    @Test
    void aHeadThatHoldsItsListenerOutIsNotTakingAndTheNextTakesAtOnce() {
        AcceptShare<String> w1 = w.get(1);
        assertFalse(w1.takeListener(true), "w0 free: its connection");
        w.get(0).holdListener(true); // at its cap, or backing off after EMFILE
        assertTrue(BusyEstimator.held(busy(0)), "published on its busy word");
        assertFalse(BusyEstimator.full(busy(0)), "and nothing else about it changed");
        assertTrue(w1.takeListener(true), "at once: no look waits on a head that will not take");
        w.get(0).holdListener(false);
        assertFalse(w1.takeListener(true), "back: the head again");
    }

    @Test
    void aFullWorkerDoesNotLeaveTheListenerToALaterOneThatHoldsItsOwnOut() {
        AcceptShare<String> w0 = turnFull(0);
        w.get(1).holdListener(true);
        assertFalse(w0.takeListener(true), "w1 holds its listener out: w2 is the one to leave to");
        w.get(2).holdListener(true);
        assertTrue(w0.takeListener(true), "nobody later takes: w0 does, full or not");
    }

    @Test
    void endBatchPassesOverLaterWorkersThatAreNotTaking() {
        AcceptShare<String> w0 = w.get(0);
        page.setVolatile(PageLayout.stateWord(1), T0 - 3 * MS); // in a pass for 3 ms: stopped, or slow
        w.get(2).holdListener(true);
        for (int k = 0; k < 9; k++) {
            w0.passOn("c" + k, k);
        }
        assertTrue(BusyEstimator.full(busy(0)));
        assertEquals(AcceptPolicy.GO_ON, w0.endBatch(), "nobody later takes: ending the batch would strand it");
        w.get(2).holdListener(false);
        w0.passOn("c9", 9);
        assertEquals(2, w0.endBatch(), "w2 takes again: the batch ends and w2 is told (w1 still slow)");
    }

    @Test
    void aWorkerStuckLaterIsMarkedBesideAStuckHeadAndNeitherCostsAnotherWait() {
        // w1 full, between w0 (stopped while parked) and w2 (stopped while parked).
        AcceptShare<String> w1 = turnFull(1);
        assertFalse(w1.takeListener(true), "w0 is the head");
        clock.advance(MS);
        assertTrue(w1.takeListener(true), "w0 unmoved a look later: stuck, taken");
        assertFalse(w1.takeListener(true), "full, w0 skipped: w2 is the one to leave to");
        clock.advance(MS);
        assertTrue(w1.takeListener(true), "w2 unmoved: stuck too, taken");
        for (int k = 0; k < 5; k++) {
            clock.advance(MS / 4);
            assertTrue(w1.takeListener(true), "both stay marked: no connection waits again (look " + k + ")");
        }
        w.get(0).passStart();
        w.get(0).passEnd(1); // w0 continued and moved
        assertFalse(w1.takeListener(true), "w0's mark is forgotten once its words move: the head again");
    }

    @Test
    void aFountainLeaverHandsNoConnectionOver() {
        AcceptShare<String> w1 = w.get(1);
        w1.leave();
        assertFalse(w1.handOver("k1"), "established connections never move, a leaver's neither");
        assertEquals(null, channel.receive(0));
        assertEquals(null, channel.receive(2));
    }
}
