package m0.core.loop;

import static m0.core.loop.LoopRig.MS;
import static m0.core.loop.LoopRig.limits;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Fountain's look at the listener (ADR 0019, 0038) from a worker that left it to the head:
 * when it looks, what a look that finds the listener its own does, that the meter counts the
 * looks, that a nudge makes the look due whatever the clock's origin, and that a leaver's
 * listener wakes nothing.
 */
class ListenerLookTest {

    private static final long T0 = 1_000 * MS;

    /** Two fountain workers at {@code t0}; w1 woken by the listener leaves it to the free head, w0. */
    private static LoopRig leftToTheHead(long t0) {
        LoopRig rig = new LoopRig(t0, 2, "fountain", limits(64, 100));
        rig.backlog(1);
        LoopRig.Worker w1 = rig.worker(1);
        w1.pass(false, true);
        assertFalse(w1.listener.in, "left to w0");
        assertEquals(List.of("in", "out"), w1.listener.events);
        return rig;
    }

    @Test
    void aWorkerThatLeftTheListenerLooksAtTheCoresDeadlineAndNotBefore() {
        LoopRig rig = leftToTheHead(T0);
        LoopRig.Worker w1 = rig.worker(1);
        long deadline = w1.loop.interest().wakeAt();
        assertTrue(deadline > T0, "a deadline ahead");
        rig.clock.advance(deadline - T0 - 1);
        w1.pass(false, false);
        assertEquals(List.of("in", "out"), w1.listener.events, "not yet: no poll");
        assertEquals(0, w1.loop.meter().looks());
        rig.clock.advance(1);
        w1.pass(false, false);
        assertEquals(List.of("in", "out", "poll"), w1.listener.events.subList(0, 3), "at the deadline: one zero-timeout poll");
        assertEquals(1, w1.loop.meter().looks(), "counted for the worker's stats");
    }

    /** The head stopped taking (at its cap: HELD): the look finds the listener w1's. */
    @Test
    void aLookThatFindsTheListenerItsOwnTakesItBackAndAcceptsWhatWaits() {
        LoopRig rig = leftToTheHead(T0);
        LoopRig.Worker w1 = rig.worker(1);
        rig.worker(0).share.holdListener(true);
        rig.clock.advance(w1.loop.interest().wakeAt() - T0);
        w1.pass(false, false);
        assertEquals(List.of("in", "out", "poll", "in"), w1.listener.events, "back in the interest set");
        assertTrue(w1.listener.in);
        assertFalse(w1.loop.interest().outFor(ListenerInterest.LEFT_TO_HEAD));
        assertEquals(List.of("admit c1"), w1.connections.log, "and what the poll saw is accepted in the same pass");
        assertEquals(Long.MAX_VALUE, w1.loop.interest().wakeAt(), "no look pending");
    }

    /** nanoTime's origin is arbitrary (it may read negative): the nudge still makes the look due at once. */
    @Test
    void aNudgeMakesTheLookDueAtOnceWhateverTheClocksOrigin() {
        long t0 = -1_000 * MS;
        LoopRig rig = leftToTheHead(t0);
        LoopRig.Worker w1 = rig.worker(1);
        assertTrue(w1.loop.interest().wakeAt() > t0, "a look ahead, on a clock that reads negative");
        w1.channels.nudged = true;
        w1.pass(true, false);
        assertEquals(List.of("in", "out", "poll"), w1.listener.events, "the look ran in the nudge's pass");
    }

    /** Leaving closes the listener for good: neither a look nor a back-off's end wakes the loop for it. */
    @Test
    void aLeaversListenerWakesTheLoopForNothingEvenInABackOff() {
        LoopRig rig = new LoopRig(T0, 2, "fountain", limits(64, 100));
        LoopRig.Worker w0 = rig.worker(0);
        rig.backlog(1);
        w0.listener.emfile = true;
        w0.pass(false, true);
        assertEquals(T0 + WorkerLoop.ACCEPT_BACKOFF_NANOS, w0.loop.interest().wakeAt(), "backing off");
        w0.connections.hold("busy");
        w0.connections.held.get(0).idle = false; // mid-request: the leave takes several passes
        w0.loop.requestStop();
        assertTrue(w0.pass(false, false));
        assertTrue(w0.loop.interest().outFor(ListenerInterest.CLOSED));
        assertEquals(Long.MAX_VALUE, w0.loop.interest().wakeAt(), "closed: no wake-up for the listener");
    }
}
