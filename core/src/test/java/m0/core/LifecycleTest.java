package m0.core;

import static m0.core.PageLayout.PARKED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** bind, start, passes and retires: NS, TAKEN, and "leave wins". */
class LifecycleTest {

    @Test
    void bindMarksNotStartedAndKeepsThePredecessorsCounts() {
        Fixture f = new Fixture(2).started();
        f.put(PageLayout.stateWord(1), PARKED);
        f.counts(1, 4, 1);
        f.w(1).bind();
        assertEquals(PageLayout.NOT_STARTED, f.state(1));
        assertEquals(4, f.pending(1));
        assertEquals(1, f.taken(1));
        assertEquals(0, f.w(0).pick(10), "NS: a bound, not started sibling is not picked");
    }

    @Test
    void startSubtractsTakenThenParks() {
        Fixture f = new Fixture(2);
        // The predecessor took 2 hand-offs and died before retiring them; 1 more is queued.
        f.counts(1, 3, 2);
        f.channel.send(1, "queued");
        f.log.clear();
        AcceptShare<String> replacement = f.w(1);
        replacement.bind();
        replacement.start();
        assertEquals(1, f.pending(1), "TAKEN: what the dead worker had taken is retired");
        assertEquals(0, f.taken(1));
        assertEquals(PARKED, f.state(1));
        // Taken and pending lowered in ONE word (a death leaves all of it or none), PARKED last.
        assertEquals(List.of("set state[1] 0", "add counts[1] p-2 t-2", "set state[1] -2"),
                f.page.writesTo("state[1]", "counts[1]"));
        // The queued one is then received and retired like any other: pending returns to 0.
        replacement.passStart();
        assertEquals("queued", replacement.receive());
        assertNull(replacement.receive());
        replacement.passEnd(1);
        assertEquals(0, f.pending(1));
        assertEquals(0, f.taken(1));
    }

    @Test
    void aReceivedConnectionIsTakenAtOnceAndRetiredAtTheEndOfItsPassInTheAddThatPublishesActive() {
        Fixture f = new Fixture(2).started();
        assertTrue(f.w(0).sendWith(1, "c"));
        AcceptShare<String> w1 = f.w(1);
        w1.passStart();
        f.log.clear();
        assertEquals("c", w1.receive());
        assertEquals(1, f.taken(1), "taken += 1 before admission");
        assertEquals(1, f.pending(1), "not retired on receipt: a sibling would under-count us");
        w1.passEnd(1);
        assertEquals(0, f.pending(1));
        assertEquals(0, f.taken(1));
        assertEquals(1, f.active(1));
        // One add moves it from pending to active (ADR 0040): no sibling can read it twice or not at all.
        assertEquals(List.of("add counts[1] t+1", "add counts[1] a+1 p-1 t-1", "set state[1] -2"),
                f.page.writesTo("state[1]", "counts[1]"));
    }

    @Test
    void aReceiptWithNoConnectionIsTakenRetiredAndCountedAsLost() {
        Fixture f = new Fixture(2).started();
        assertTrue(f.w(0).sendWith(1, "a"));
        assertTrue(f.w(0).sendWith(1, QueueChannel.LOST)); // its descriptor did not survive the trip
        assertTrue(f.w(0).sendWith(1, "b"));
        AcceptShare<String> w1 = f.w(1);
        w1.passStart();
        f.log.clear();
        assertEquals("a", w1.receive());
        assertEquals("b", w1.receive(), "the lost receipt is not handed to the loop");
        assertNull(w1.receive());
        assertEquals(3, f.taken(1), "the lost one was taken like any receipt");
        assertEquals(1, w1.lostCount());
        assertEquals(3, w1.receivedCount());
        w1.passEnd(2);
        assertEquals(0, f.pending(1), "retired with the rest: pending - taken does not drift");
        assertEquals(0, f.taken(1));
    }

    @Test
    void aLeaverTakesALostReceiptAndItsDrainEnds() {
        Fixture f = new Fixture(3).started();
        assertTrue(f.w(0).sendWith(1, QueueChannel.LOST));
        AcceptShare<String> w1 = f.w(1);
        w1.leave();
        List<String> admitted = new java.util.ArrayList<>();
        assertFalse(w1.leaveStep(admitted::add), "nothing left in flight once the lost one is taken");
        assertEquals(List.of(), admitted);
        assertEquals(1, w1.lostCount());
        assertEquals(0, w1.forwardedCount(), "nothing to forward");
        assertEquals(0, f.pending(1));
        assertEquals(0, f.taken(1));
    }

    @Test
    void passStartPublishesTheTimeAndPassEndParks() {
        Fixture f = new Fixture(2).started();
        f.w(1).passStart();
        assertEquals(Fixture.T0, f.state(1));
        f.w(1).passEnd(3);
        assertEquals(PARKED, f.state(1));
        assertEquals(3, f.active(1));
    }

    @Test
    void leaveWinsOverEveryLaterPass() {
        Fixture f = new Fixture(2).started();
        AcceptShare<String> w1 = f.w(1);
        w1.leave();
        f.log.clear();
        w1.passStart();
        w1.passEnd(2);
        assertEquals(PageLayout.LEFT, f.state(1));
        assertEquals(List.of(), f.page.writesTo("state[1]", "counts[1]"));
    }

    @Test
    void aWakeUpThatFindsNoWorkStaysParkedEvenWhenDescheduled() {
        Fixture f = new Fixture(2).started();
        AcceptShare<String> w1 = f.w(1);
        f.log.clear();
        // Woken for the listener, lost the accept race, descheduled for 5 ms before parking.
        f.clock.advance(5_000_000L);
        assertEquals(PARKED, f.state(1), "no stamp without work: pick must not read it as slow");
        assertEquals(1, f.w(0).pick(3), "an idle sibling is a target, not 'inside a slow pass'");
        w1.passEnd(0);
        assertEquals(PARKED, f.state(1));
    }

    @Test
    void workStampsThePassOnceAndASlowWorkingPassIsSkipped() {
        Fixture f = new Fixture(2).started();
        AcceptShare<String> w1 = f.w(1);
        w1.work();
        assertEquals(Fixture.T0, f.state(1));
        f.clock.advance(1_000L);
        w1.work();
        assertEquals(Fixture.T0, f.state(1), "the pass's first work is its start");
        f.clock.advance(PageLayout.SLOW_PASS_NANOS);
        assertEquals(0, f.w(0).pick(3), "the seed's promise: a slow inline view is skipped");
        w1.passEnd(1);
        f.clock.advance(1_000L);
        w1.work();
        assertEquals(f.clock.nanoTime(), f.state(1), "a new pass stamps again");
    }

    /**
     * ADR 0069, addendum: a TLS handshake is its connection's admission. Under share it stamps
     * nothing, so a worker 5 ms into a pass of handshakes is still a target (a storm landed 44/20
     * when it stamped); under fountain, whose admissions are busy, it stamps as one does.
     */
    @Test
    void aHandshakeStampsOnlyWhereAnAdmissionDoes() {
        Fixture f = new Fixture(2).started();
        f.w(1).handshaking();
        f.clock.advance(5_000_000L);
        assertEquals(PARKED, f.state(1), "share: a handshake is no view");
        assertEquals(1, f.w(0).pick(3), "a sibling inside its handshakes is a target");
        Fixture g = new Fixture(2, AcceptPolicy::fountain).started();
        g.w(1).handshaking();
        assertEquals(Fixture.T0, g.state(1), "fountain: an admission is busy, and so is a handshake");
    }

    @Test
    void startResetsThePredecessorsActive() {
        Fixture f = new Fixture(2).started();
        f.w(1).passEnd(40); // the predecessor had 40 open, then was killed
        f.put(PageLayout.stateWord(1), PageLayout.LEFT);
        AcceptShare<String> replacement = new AcceptShare<>(f.page, f.channel, f.clock, AcceptPolicy.share(), 2, 1);
        replacement.bind();
        replacement.start();
        assertEquals(0, f.active(1), "its connections died with it");
        assertEquals(1, f.w(0).pick(5), "the idle replacement is the lightest");
    }
}
