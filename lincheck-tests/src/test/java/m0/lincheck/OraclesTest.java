package m0.lincheck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import m0.core.PageLayout;
import org.junit.jupiter.api.Test;

/**
 * The oracles themselves, on fixed single-threaded runs (no Lincheck): they accept exactly the
 * raises a death orphans (taken is lowered before pending, so those err high) and nothing
 * else, and they reject pending below what is in flight.
 */
class OraclesTest {

    /** Worker 1 killed between the two words of passEnd's retire: taken lowered, pending not. */
    @Test
    void acceptsTheRaiseOrphanedByADeathInsideARetire() {
        World w = new World(2, 4);
        World.Actor a0 = w.actor("worker0", 0);
        World.Actor a1 = w.actor("worker1", 1);
        Worker w0 = new Worker(w, a0, 1);
        Worker w1 = new Worker(w, a1, 0);
        w.run(a0, w0.share::start);
        w.run(a1, w1.share::start);
        w.run(a0, () -> w0.acceptPass(Worker.CORE)); // c0 queued to worker 1
        w.run(a1, () -> {
            w1.share.passStart();
            w1.drain(); // took and served c0
            // passEnd: active, state, taken -= 1, then dies before pending -= 1
            w.killAfter(a1, 3);
            w1.share.passEnd(w1.open);
        });
        assertTrue(a1.dead);
        assertEquals(0, word(w, a0, PageLayout.takenWord(1)), "taken[1] was lowered before the death");
        assertEquals(1, pending(w, a0, 1), "the orphaned raise stays in pending[1]");
        w.assertQuiescent(0); // accepted: one orphan, counted from what worker 1 did
    }

    /** A sender killed between its raise and its send. */
    @Test
    void acceptsTheRaiseOrphanedByASenderKilledBeforeItsSend() {
        World w = new World(2, 4);
        World.Actor a0 = w.actor("worker0", 0);
        World.Actor a1 = w.actor("worker1", 1);
        Worker w0 = new Worker(w, a0, 1);
        Worker w1 = new Worker(w, a1, 0);
        w.run(a0, w0.share::start);
        w.run(a1, w1.share::start);
        // passStart, then pick: pending[0], rotation, state[1], pending[1], active[1]; then
        // sendWith's raise; it dies at the state read that follows.
        w.killAfter(a0, 7);
        w.run(a0, () -> w0.acceptPass(Worker.CORE));
        assertTrue(a0.dead);
        w.run(a1, w1::pass);
        assertEquals(1, pending(w, a1, 1));
        w.assertQuiescent(1); // the accepted connection is lost with worker 0; pending[1] = 1 orphan
    }

    /** The same high pending without a death to explain it is a violation. */
    @Test
    void rejectsAnUnexplainedRaise() {
        World w = new World(2, 4);
        World.Actor a0 = w.actor("worker0", 0);
        World.Actor a1 = w.actor("worker1", 1);
        Worker w1 = new Worker(w, a1, 0);
        w.run(a1, w1.share::start);
        w.run(a0, () -> a0.page.getAndAdd(PageLayout.pendingWord(1), 1)); // raised, never sent, alive
        AssertionError e = assertThrows(AssertionError.class, () -> w.assertQuiescent(1));
        assertTrue(e.getMessage().startsWith("SETTLE:"), e.getMessage());
    }

    /** A send with no raise before it leaves pending below in flight at that very step. */
    @Test
    void rejectsPendingBelowInFlightAtTheStep() {
        World w = new World(2, 4);
        World.Actor a0 = w.actor("worker0", 0);
        World.Actor a1 = w.actor("worker1", 1);
        Worker w0 = new Worker(w, a0, 1);
        Worker w1 = new Worker(w, a1, 0);
        w.run(a0, w0.share::start);
        w.run(a1, w1.share::start);
        w.run(a0, () -> w0.acceptPass(Mutants.R5_SEND_THEN_RAISE));
        AssertionError e = assertThrows(AssertionError.class, () -> w.assertQuiescent(0, 1));
        assertTrue(e.getMessage().startsWith("IN-FLIGHT:"), e.getMessage());
    }

    private static long pending(World w, World.Actor any, int i) {
        return word(w, any, PageLayout.pendingWord(i));
    }

    private static long word(World w, World.Actor any, int word) {
        long[] v = new long[1];
        w.run(any, () -> v[0] = any.page.getVolatile(word));
        return v[0];
    }
}
