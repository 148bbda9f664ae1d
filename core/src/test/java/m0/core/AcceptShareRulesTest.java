package m0.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * {@link AcceptShare}'s smaller rules: which index it may be, what a worker that does not share
 * answers, the in-pass stamp at any clock reading, the load a keep publishes mid-pass, the start
 * wait measured from the leave, and what it reports (sends, leaving, a heal asked for).
 */
class AcceptShareRulesTest {

    @Test
    void aWorkerIndexOutsideTheServerIsRejected() {
        Page page = AtomicLongArrayPage.forWorkers(2);
        QueueChannel<String> channel = new QueueChannel<>(2, 4);
        FakeClock clock = new FakeClock(Fixture.T0);
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> new AcceptShare<>(page, channel, clock, AcceptPolicy.share(), 2, 2));
        assertEquals("worker index 2 not in 0..1", e.getMessage());
        assertThrows(IllegalArgumentException.class,
                () -> new AcceptShare<>(page, channel, clock, AcceptPolicy.share(), 2, -1));
    }

    @Test
    void aWorkerThatDoesNotShareKeepsEverythingAtItsOwnIndex() {
        Page page = AtomicLongArrayPage.forWorkers(3);
        AcceptShare<String> w2 = new AcceptShare<>(page, new QueueChannel<>(3, 4), new FakeClock(Fixture.T0),
                AcceptPolicy.race(), 3, 2);
        w2.bind();
        w2.start();
        assertEquals(2, w2.pick(0), "the bare race: self");
        assertTrue(w2.keptIfUnchanged(0), "nothing to hold a keep to");
        assertEquals(2, w2.rebalancePick(5, 5, 0), "nobody to move to");
    }

    @Test
    void aLeaverMovesNothingToEvenTheLoad() {
        Fixture f = new Fixture(3).started();
        f.active(0, 0);
        f.w(1).leave();
        assertEquals(1, f.w(1).rebalancePick(20, 20, 0), "self: its connections go by handOver, not by moves");
    }

    @Test
    void aPassStampedAtTheClocksZeroOrBelowStillReadsInAPass() {
        for (long origin : new long[] {0, -7}) {
            Page page = AtomicLongArrayPage.forWorkers(2);
            AcceptShare<String> w0 = new AcceptShare<>(page, new QueueChannel<>(2, 4), new FakeClock(origin),
                    AcceptPolicy.share(), 2, 0);
            w0.bind();
            w0.start();
            w0.passStart();
            long state = page.getVolatile(PageLayout.stateWord(0));
            assertTrue(PageLayout.inPass(state), "origin " + origin + ": " + PageLayout.stateName(state));
        }
    }

    @Test
    void aKeepMidPassCountsEachConnectionOnce() {
        Fixture f = new Fixture(2).started();
        f.w(1).sendWith(0, "passed");
        assertEquals("passed", f.w(0).receive()); // admitted: open 1, still in pending until the pass end
        f.w(0).kept(1); // a fresh accept kept beside it: two open
        assertEquals(2, Counts.load(f.page.peek(PageLayout.countsWord(0))), "active 1 (the keep) + pending 1");
        f.w(0).passEnd(2);
        assertEquals(2, Counts.load(f.page.peek(PageLayout.countsWord(0))), "active 2, nothing pending");
    }

    @Test
    void theStartWaitRunsFromTheLeaveWhateverTheClockReads() {
        Fixture f = new Fixture(2).started();
        f.clock.advance(3 * AcceptShare.START_WAIT_NANOS); // the server has run a while
        f.supervisor.markReaped(0);
        f.supervisor.spawning(0); // w0's replacement is starting
        f.w(1).leave();
        assertTrue(f.w(1).awaitingStart(), "just left, a sibling starting");
        f.clock.advance(AcceptShare.START_WAIT_NANOS - 1);
        assertTrue(f.w(1).awaitingStart());
        f.clock.advance(1);
        assertFalse(f.w(1).awaitingStart(), "the wait is over");
    }

    @Test
    void sendsAreCountedAndLeavingIsReported() {
        Fixture f = new Fixture(3).started();
        AcceptShare<String> w0 = f.w(0);
        assertTrue(w0.sendWith(1, "a"));
        assertEquals(2, w0.pick(5), "w2, the lightest (w1 holds one in flight)");
        assertEquals(HandOff.SENT, w0.sendPicked(2, "b"));
        assertEquals(2, w0.sentCount());
        assertFalse(w0.left());
        w0.leave();
        assertTrue(w0.left());
    }

    @Test
    void aHealRequestIsReportedOnlyOnceSeenAndUntilDone() {
        Fixture f = new Fixture(3).started();
        assertFalse(f.w(1).healRequested(), "nobody asked");
        f.midHandOff(0, 1);
        f.supervisor.markReaped(0); // w0 dies with its raise against w1: w1's heal is asked
        assertFalse(f.w(1).healRequested(), "not seen yet: no page access");
        assertTrue(f.w(1).healDue());
        assertTrue(f.w(1).healRequested());
        assertEquals(null, f.w(1).receive()); // EAGAIN: the heal takes the orphan off
        assertFalse(f.w(1).healRequested());
        assertEquals(0, f.pending(1));
    }
}
