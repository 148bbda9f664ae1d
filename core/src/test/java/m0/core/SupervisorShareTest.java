package m0.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** RP and RB: what the supervisor writes for a worker that can no longer write. */
class SupervisorShareTest {

    @Test
    void markReapedWritesLeftAndTheDeadWorkerIsNeverPickedAgain() {
        Fixture f = new Fixture(2).started(); // worker 1 parked, then SIGKILLed
        assertEquals(1, f.w(0).pick(5), "before the reap, dead-and-parked reads idle");
        f.supervisor.markReaped(1);
        assertEquals(PageLayout.LEFT, f.state(1));
        for (int k = 0; k < 4; k++) {
            assertEquals(0, f.w(0).pick(1000), "RP: nothing handed to a reaped worker");
        }
        assertFalse(f.w(0).sendWith(1, "c"), "a sender that picked it before the reap refuses now");
        assertEquals(0, f.pending(1));
    }

    @Test
    void aReplacementBindsOverTheMark() {
        Fixture f = new Fixture(2).started();
        f.supervisor.markReaped(1);
        f.w(1).bind();
        assertEquals(PageLayout.NOT_STARTED, f.state(1));
    }

    @Test
    void giveUpReHomesEveryQueuedConnectionAndRetires() {
        Fixture f = new Fixture(3).started();
        f.w(0).sendWith(1, "a");
        f.w(0).sendWith(1, "b");
        f.counts(1, 3, 1); // it had taken one more and died before retiring
        f.supervisor.markReaped(1);
        GiveUp<String> drain = f.supervisor.giveUp(1);
        List<String> closed = new ArrayList<>();
        assertFalse(drain.step(closed::add), "pending - taken - drained = 0: done in one step");
        assertEquals(List.of(), closed, "a live worker took each: none closed");
        assertEquals(2, drain.rehomed());
        assertEquals(2, f.channel.queued(0) + f.channel.queued(2));
        assertEquals(0, f.channel.queued(1));
        assertEquals(0, f.pending(1), "RB: pending -= taken + drained");
        assertEquals(0, f.taken(1));
        assertEquals(2, f.pending(0) + f.pending(2), "the re-homed raised their new homes");
    }

    @Test
    void giveUpDrainsALostReceiptWithoutWaitingOutItsBound() {
        Fixture f = new Fixture(3).started();
        f.w(0).sendWith(1, "a");
        f.w(0).sendWith(1, QueueChannel.LOST);
        f.supervisor.markReaped(1);
        GiveUp<String> drain = f.supervisor.giveUp(1);
        List<String> closed = new ArrayList<>();
        assertFalse(drain.step(closed::add), "both drained in the first step: nothing left in flight");
        assertEquals(2, drain.drained());
        assertEquals(1, drain.rehomed());
        assertEquals(1, drain.lost());
        assertEquals(List.of(), closed);
        assertEquals(0, f.pending(1));
        assertEquals(0, f.taken(1));
        assertEquals(1, f.pending(0) + f.pending(2), "only the real connection raised a new home");
    }

    @Test
    void giveUpWaitsForARaiseInFlightAndStopsAtItsBound() {
        Fixture f = new Fixture(2).started();
        f.w(0).sendWith(1, "a");
        f.midHandOff(0, 1); // and one raise whose datagram is not queued yet
        f.supervisor.markReaped(1);
        GiveUp<String> drain = f.supervisor.giveUp(1);
        List<String> closed = new ArrayList<>();
        assertTrue(drain.step(closed::add));
        assertEquals(1, drain.drained());
        f.clock.advance(SupervisorShare.GIVE_UP_DRAIN_NANOS - 1);
        assertTrue(drain.step(closed::add), "inside 250 ms: go on");
        f.clock.advance(1);
        assertFalse(drain.step(closed::add), "250 ms: stop");
        assertTrue(drain.done());
        assertEquals(1, f.pending(1), "the raise that never came stays counted: errs high");
        assertFalse(drain.step(closed::add), "done stays done");
    }

    @Test
    void giveUpClosesOnlyWhenNoLiveWorkerTakesTheConnection() {
        Fixture f = new Fixture(2).started();
        f.w(0).sendWith(1, "a");
        f.w(0).leave();
        f.supervisor.markReaped(1);
        List<String> closed = new ArrayList<>();
        assertFalse(f.supervisor.giveUp(1).step(closed::add));
        assertEquals(List.of("a"), closed);
        assertEquals(0, f.pending(1));
    }

    @Test
    void aLateDatagramIsCaughtByALaterStep() {
        Fixture f = new Fixture(2).started();
        f.midHandOff(0, 1);
        f.supervisor.markReaped(1);
        GiveUp<String> drain = f.supervisor.giveUp(1);
        List<String> closed = new ArrayList<>();
        assertTrue(drain.step(closed::add));
        f.clock.advanceMillis(100);
        f.landed(0, 1, "late");
        assertFalse(drain.step(closed::add));
        assertEquals(1, drain.rehomed());
        assertEquals(1, f.channel.queued(0));
        assertEquals(0, f.pending(1));
    }

    @Test
    void aSendStalledPastTheBoundIsReHomedByTheWatchNotStranded() {
        Fixture f = new Fixture(3).started();
        f.midHandOff(0, 1); // w0 raised against w1 and read it PARKED, then stalled
        f.supervisor.markReaped(1);
        GiveUp<String> drain = f.supervisor.giveUp(1);
        List<String> closed = new ArrayList<>();
        assertTrue(drain.step(closed::add));
        assertEquals(0, drain.watch(closed::add), "no watch before the drain is done");
        f.clock.advance(SupervisorShare.GIVE_UP_DRAIN_NANOS);
        assertFalse(drain.step(closed::add), "the bound passed: the drain is done");
        assertEquals(1, f.pending(1), "the stalled raise stays counted");
        f.landed(0, 1, "late"); // the GC pause ends: the datagram is queued after all
        assertEquals(1, drain.watch(closed::add));
        assertEquals(0, f.channel.queued(1), "nothing strands in the dead index's channel");
        assertEquals(1, f.channel.queued(0) + f.channel.queued(2), "re-homed to a live worker");
        assertEquals(0, f.pending(1), "and retired: the index is clean for a later bind");
        assertEquals(0, f.taken(1));
        assertEquals(List.of(), closed);
        assertEquals(1, drain.rehomed());
        assertEquals(0, drain.watch(closed::add), "EAGAIN: nothing more");
    }

    @Test
    void theWatchClosesALateConnectionOnlyWhenNoWorkerIsLive() {
        Fixture f = new Fixture(2).started();
        f.midHandOff(0, 1);
        f.supervisor.markReaped(1);
        f.w(0).leave();
        GiveUp<String> drain = f.supervisor.giveUp(1);
        List<String> closed = new ArrayList<>();
        f.clock.advance(SupervisorShare.GIVE_UP_DRAIN_NANOS);
        assertFalse(drain.step(closed::add));
        f.landed(0, 1, "late");
        assertEquals(1, drain.watch(closed::add));
        assertEquals(List.of("late"), closed);
        assertEquals(0, f.pending(1));
    }
}
