package m0.lincheck;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import m0.core.Counts;
import m0.core.PageLayout;
import org.junit.jupiter.api.Test;

/**
 * The oracles themselves, on fixed single-threaded runs (no Lincheck): they accept exactly the
 * raises a death orphans (taken is lowered before pending, so those err high) and nothing
 * else, and they reject pending below what is in flight.
 */
class OraclesTest {

    /** Worker 1 killed between its recvmsg and its receipt (taken + 1): the raise is orphaned. */
    @Test
    void acceptsTheRaiseOrphanedByAReceiverKilledBeforeItsReceipt() {
        World w = new World(2, 4);
        World.Actor a0 = w.actor("worker0", 0);
        World.Actor a1 = w.actor("worker1", 1);
        Worker w0 = new Worker(w, a0, 1);
        Worker w1 = new Worker(w, a1, 0);
        w.run(a0, w0.share::start);
        w.run(a1, w1.share::start);
        w.run(a0, () -> w0.acceptPass(Worker.CORE)); // c0 queued to worker 1
        // passStart (state), the receive of c0, then it dies at its receipt.
        w.killAfter(a1, 2);
        w.run(a1, w1::pass);
        assertTrue(a1.dead);
        assertEquals(1, pending(w, a0, 1), "the orphaned raise stays in pending[1]");
        assertEquals(0, taken(w, a0, 1), "never published in taken");
        w.assertQuiescent(0); // accepted: one orphan, counted from what worker 1 did
    }

    /** The same orphan, healed by the replacement after the reap: accepted exactly, healed once. */
    @Test
    void acceptsTheHealOfThatOrphanAfterTheReap() {
        World w = new World(2, 4);
        World.Actor a0 = w.actor("worker0", 0);
        World.Actor a1 = w.actor("worker1", 1);
        World.Actor sup = w.actor("supervisor", -1);
        World.Actor next = w.actor("worker1'", 1);
        Worker w0 = new Worker(w, a0, 1);
        Worker w1 = new Worker(w, a1, 0);
        w.run(a0, w0.share::start);
        w.run(a1, w1.share::start);
        w.run(a0, () -> w0.acceptPass(Worker.CORE));
        w.killAfter(a1, 2);
        w.run(a1, w1::pass);
        w.run(sup, () -> new m0.core.SupervisorShare<>(sup.page, sup.channel, w.clock(), 2, true).markReaped(1, true));
        w.reaped(1);
        w.respawned(1);
        Worker replacement = new Worker(w, next, 0);
        w.run(next, () -> {
            replacement.share.bind();
            replacement.share.start();
            replacement.pass();
        });
        assertEquals(0, pending(w, a0, 1), "healed at the replacement's first EAGAIN");
        w.assertQuiescent(0, 1);
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
        // passStart, then pick: counts[0], state[1], counts[1], active[1]; then sendWith's
        // SENDING and raise; it dies at the state read that follows.
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
        w.run(a0, () -> a0.page.getAndAdd(PageLayout.countsWord(1), Counts.RAISE)); // raised, never sent, alive
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
        return Counts.pending(word(w, any, PageLayout.countsWord(i)));
    }

    private static long taken(World w, World.Actor any, int i) {
        return Counts.taken(word(w, any, PageLayout.countsWord(i)));
    }

    private static long word(World w, World.Actor any, int word) {
        long[] v = new long[1];
        w.run(any, () -> v[0] = any.page.getVolatile(word));
        return v[0];
    }
}
