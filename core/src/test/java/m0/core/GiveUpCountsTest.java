package m0.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * {@link GiveUp}: what its counters say it did with each connection, that it names its index,
 * and that a heal asked of a given-up index (a later reap) is carried out, during the drain and
 * after it.
 */
class GiveUpCountsTest {

    @Test
    void aGiveUpNamesItsIndexAndIsNotDoneWhileItWaits() {
        Fixture f = new Fixture(3).started();
        f.midHandOff(0, 2); // a live sender's raise against w2, not queued yet
        f.supervisor.markReaped(2);
        GiveUp<String> drain = f.supervisor.giveUp(2);
        assertEquals(2, drain.index());
        assertTrue(drain.step(c -> { }));
        assertFalse(drain.done(), "waiting for the raise in flight");
    }

    @Test
    void aGiveUpWithNothingInFlightLeavesTheChannelAlone() {
        Fixture f = new Fixture(3).started();
        f.supervisor.markReaped(1);
        GiveUp<String> drain = f.supervisor.giveUp(1);
        f.log.clear();
        assertFalse(drain.step(c -> { }), "pending - taken = 0: nothing to take");
        assertEquals(-1, f.first("receive 1"), "the channel is read only while something is in flight: " + f.log);
    }

    @Test
    void whatNoLiveWorkerTakesIsClosedAndCountedSo() {
        Fixture f = new Fixture(2).started();
        f.w(0).sendWith(1, "a");
        f.supervisor.markReaped(0);
        f.supervisor.markReaped(1);
        GiveUp<String> drain = f.supervisor.giveUp(1);
        List<String> closed = new ArrayList<>();
        assertFalse(drain.step(closed::add));
        assertTrue(drain.done());
        assertEquals(List.of("a"), closed);
        assertEquals(1, drain.drained());
        assertEquals(1, drain.closed());
        assertEquals(0, drain.rehomed());
    }

    @Test
    void aLateArrivalIsReHomedToWorkerZeroAndNotClosed() {
        Fixture f = new Fixture(2).started();
        f.midHandOff(0, 1); // w0 read w1 PARKED, raised, and stalls past the drain's bound
        f.supervisor.markReaped(1);
        GiveUp<String> drain = f.supervisor.giveUp(1);
        List<String> closed = new ArrayList<>();
        assertTrue(drain.step(closed::add));
        f.clock.advance(SupervisorShare.GIVE_UP_DRAIN_NANOS);
        assertFalse(drain.step(closed::add), "the bound is over");
        f.landed(0, 1, "late");
        assertEquals(1, drain.watch(closed::add));
        assertEquals(List.of(), closed, "w0 took it: it is not closed as well");
        assertEquals(1, drain.rehomed());
        assertEquals(0, drain.closed());
        assertEquals(1, drain.drained());
        assertEquals(1, f.channel.queued(0));
        assertEquals(0, f.pending(1), "the late receipt retired");
    }

    @Test
    void lateArrivalsAreCountedByWhatBecameOfThem() {
        Fixture f = new Fixture(3).started();
        f.supervisor.markReaped(1);
        GiveUp<String> drain = f.supervisor.giveUp(1);
        List<String> closed = new ArrayList<>();
        assertFalse(drain.step(closed::add), "nothing in flight: done at once");
        f.midHandOff(0, 1);
        f.landed(0, 1, QueueChannel.LOST);
        f.midHandOff(0, 1);
        f.landed(0, 1, "x");
        f.supervisor.markReaped(0);
        f.supervisor.markReaped(2);
        f.midHandOff(-1, 1); // nobody live any more: what arrives now is closed
        f.landed(-1, 1, "y");
        assertEquals(3, drain.watch(closed::add));
        assertEquals(3, drain.drained());
        assertEquals(1, drain.lost());
        assertEquals(0, drain.rehomed());
        assertEquals(2, drain.closed());
        assertEquals(List.of("x", "y"), closed);
        assertEquals(0, f.pending(1));
    }

    /**
     * The give-up's own heal is over (it took off an orphan the dead left) when a live sender
     * raises against the given-up index; then that sender is killed before its take-back: its
     * reap asks for a heal, and the drain carries it out and ends, without waiting out its bound.
     */
    @Test
    void aHealAskedDuringTheDrainEndsItWithoutWaitingOutItsBound() {
        Fixture f = new Fixture(3).started();
        f.counts(1, 1, 0); // the dead w1 died holding a receipt it never took
        f.supervisor.markReaped(1);
        GiveUp<String> drain = f.supervisor.giveUp(1);
        // Reads of w1's counts in the first step: the settle, the loop's look, the heal's, and
        // the look after the heal completed: w2 raises just before that one.
        f.page.before("get counts[1]", 4, () -> f.midHandOff(2, 1));
        List<String> closed = new ArrayList<>();
        assertTrue(drain.step(closed::add), "w2's raise is in flight");
        assertEquals(1, f.pending(1), "the orphan is off; w2's raise stands");
        f.supervisor.markReaped(2); // w2 dies holding it: SENDING cleared, w1's heal asked
        assertFalse(drain.step(closed::add), "the reap's heal took the orphan off: the drain is over");
        assertEquals(0, f.pending(1));
        assertFalse(Counts.healRequested(f.get(PageLayout.countsWord(1))));
        assertEquals(List.of(), closed);
    }

    @Test
    void aHealAskedOfAGivenUpIndexAfterItsDrainIsCarriedOutByTheWatch() {
        Fixture f = new Fixture(3).started();
        f.counts(1, 1, 0); // the give-up's own heal takes this orphan off
        f.supervisor.markReaped(1);
        GiveUp<String> drain = f.supervisor.giveUp(1);
        List<String> closed = new ArrayList<>();
        assertFalse(drain.step(closed::add));
        assertEquals(0, f.pending(1));
        f.midHandOff(2, 1); // w2 read w1 before its reap, raised, and dies before its take-back
        f.supervisor.markReaped(2);
        assertEquals(0, drain.watch(closed::add), "nothing arrived");
        assertEquals(0, f.pending(1), "the dead sender's raise is taken off");
        assertFalse(Counts.healRequested(f.get(PageLayout.countsWord(1))));
    }
}
