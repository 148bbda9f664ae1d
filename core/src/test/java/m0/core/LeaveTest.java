package m0.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** B25, leaver side: LEFT first, a drain bounded in time, and forwarding. */
class LeaveTest {

    @Test
    void leaveWritesLeftBeforeItsFirstReceive() {
        Fixture f = new Fixture(2).started();
        f.w(1).leave();
        f.w(1).leaveStep(c -> { });
        int left = f.first("set state[1] -1");
        int firstReceive = f.first("receive 1");
        assertTrue(left >= 0 && firstReceive >= 0, f.log.toString());
        assertTrue(left < firstReceive, "LEFT must be stored before the drain's first receive: " + f.log);
    }

    @Test
    void theDrainGoesOnWhileARaiseIsInFlightAndStopsWhenItArrives() {
        Fixture f = new Fixture(3).started();
        // A sender raised worker 1's pending and read its state before LEFT: in flight.
        f.midHandOff(0, 1);
        AcceptShare<String> w1 = f.w(1);
        w1.leave();
        List<String> admitted = new ArrayList<>();
        assertTrue(w1.leaveStep(admitted::add), "pending - taken = 1: go on");
        f.clock.advanceMillis(10);
        assertTrue(w1.leaveStep(admitted::add), "still in flight: go on");
        f.landed(0, 1, "late"); // the sender's datagram lands
        assertFalse(w1.leaveStep(admitted::add), "arrived: done");
        assertEquals(List.of(), admitted, "forwarded, not admitted: siblings serve");
        assertEquals(1, f.channel.queued(0) + f.channel.queued(2));
        assertEquals(0, f.pending(1), "what it forwarded is retired like any receipt");
        assertEquals(0, f.taken(1));
        assertEquals(1, w1.forwardedCount());
    }

    @Test
    void theDrainStopsAtItsBoundWhenARaiseNeverArrives() {
        Fixture f = new Fixture(2).started();
        f.counts(1, 1, 0); // orphaned: its sender died after raising
        AcceptShare<String> w1 = f.w(1);
        w1.leave();
        assertTrue(w1.leaveStep(c -> { }));
        f.clock.advance(AcceptShare.LEAVE_DRAIN_NANOS - 1);
        assertTrue(w1.leaveStep(c -> { }), "just inside the bound");
        f.clock.advance(1);
        assertFalse(w1.leaveStep(c -> { }), "bound reached");
    }

    @Test
    void noDrainIsNeededWhenNothingIsInFlight() {
        Fixture f = new Fixture(2).started();
        f.w(1).leave();
        assertFalse(f.w(1).leaveStep(c -> { }));
    }

    @Test
    void aLeaverForwardsToALiveSiblingAndAdmitsOnlyWhenNoneIsLeft() {
        Fixture f = new Fixture(3).started();
        f.w(0).sendWith(2, "a");
        f.w(2).leave();
        List<String> admitted = new ArrayList<>();
        f.w(2).leaveStep(admitted::add);
        assertEquals(List.of(), admitted);
        assertEquals(1, f.channel.queued(0) + f.channel.queued(1));

        // Now every sibling has left: what arrives is served here, never dropped.
        f.w(0).sendWith(2, "b"); // worker 2 is LEFT: refused, worker 0 keeps it
        assertEquals(0, f.channel.queued(2));
        f.channel.send(2, "c"); // one a sender queued before it read LEFT
        f.counts(2, 1, 0);
        f.w(0).leave();
        f.w(1).leave();
        f.w(2).leaveStep(admitted::add);
        assertEquals(List.of("c"), admitted);
    }

    @Test
    void aForwardRefusedByOneSiblingTriesTheNext() {
        Fixture f = new Fixture(3, 1).started();
        f.channel.send(0, "filler"); // worker 0's channel is full
        f.active(1, 5); // and it is the lighter one
        f.w(0).sendWith(2, "x");
        f.w(2).leave();
        List<String> admitted = new ArrayList<>();
        f.w(2).leaveStep(admitted::add);
        assertEquals(List.of(), admitted);
        assertEquals(1, f.channel.queued(1), "refused by 0, taken by 1");
        assertEquals(0, f.pending(0), "the refused raise was taken back");
        assertEquals(1, f.pending(1));
    }

    @Test
    void aLeaverHandsItsIdleConnectionsToALiveSiblingOrBackToBeClosed() {
        Fixture f = new Fixture(3).started();
        assertFalse(f.w(2).handOver("idle"), "only a leaver hands its connections over");
        f.w(2).leave();
        assertTrue(f.w(2).handOver("idle"));
        assertEquals(1, f.channel.queued(0) + f.channel.queued(1), "a live sibling has it");
        assertEquals(1, f.pending(0) + f.pending(1), "raised like any hand-off");
        assertEquals(0, f.pending(2), "never raised against the leaver");
        assertEquals(1, f.w(2).forwardedCount());
        f.w(0).leave();
        f.w(1).leave();
        assertFalse(f.w(2).handOver("last"), "no live sibling: the caller closes it");
    }

    @Test
    void aLiveWorkerReceivesForItselfAndForwardsNothing() {
        Fixture f = new Fixture(2).started();
        f.w(0).sendWith(1, "c");
        assertEquals("c", f.w(1).receive());
        assertEquals(0, f.w(1).forwardedCount());
    }

    /**
     * Pick skips a sibling inside one pass for over 2 ms; a leaver's forward must not: when the
     * only live sibling is slow it still gets the hand-off (it serves it late), because the
     * alternative is the leaver admitting a fresh connection and closing it as idle (B25-idle).
     * A sibling that is not slow is still preferred.
     */
    @Test
    void aLeaverForwardsToASiblingInALongPassWhenNoOtherIsLive() {
        Fixture f = new Fixture(3).started();
        f.put(PageLayout.stateWord(0), Fixture.T0); // worker 0 entered a pass at T0 ...
        f.clock.advanceMillis(5); // ... and is still inside it 5 ms later
        f.w(0).sendWith(2, "first");
        f.w(2).leave();
        List<String> admitted = new ArrayList<>();
        f.w(2).leaveStep(admitted::add);
        assertEquals(1, f.channel.queued(1), "the parked sibling is preferred to the slow one");

        f.w(1).leave(); // now the slow worker 0 is the only live sibling
        f.channel.send(2, "second");
        f.counts(2, 1, 0);
        f.w(2).leaveStep(admitted::add);
        assertEquals(List.of(), admitted, "never admitted (and closed as idle) while a sibling serves");
        assertEquals(1, f.channel.queued(0), "the slow sibling has it");
    }
}
