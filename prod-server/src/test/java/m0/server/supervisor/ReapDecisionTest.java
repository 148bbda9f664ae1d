package m0.server.supervisor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import m0.server.jnr.Processes.WaitStatus;
import org.junit.jupiter.api.Test;

/** The reap's rules one by one, and that only a death nobody asked for is put to the budget. */
class ReapDecisionTest {

    private static final WaitStatus EXIT_0 = exited(0);
    private static final WaitStatus EXIT_1 = exited(1);
    private static final WaitStatus EXIT_78 = exited(78);
    private static final WaitStatus KILLED = new WaitStatus(100, 9); // SIGKILL: raw status is the signal

    private static WaitStatus exited(int code) {
        return new WaitStatus(100, code << 8);
    }

    /** A budget that counts how often it is asked and answers {@code why}. */
    private static final class FakeBudget implements ReapDecision.Budget {
        final String why;
        int asked;

        FakeBudget(String why) {
            this.why = why;
        }

        @Override
        public String onDeath() {
            asked++;
            return why;
        }
    }

    private static FakeBudget allowing() {
        return new FakeBudget(null);
    }

    @Test
    void stoppingGivesUpQuietlyWhateverElseHolds() {
        for (WaitStatus st : new WaitStatus[] {EXIT_0, EXIT_1, EXIT_78, KILLED}) {
            FakeBudget b = allowing();
            ReapDecision d = ReapDecision.decide(true, true, true, st, b);
            assertFalse(d.respawn(), st.toString());
            assertEquals("stopping", d.whyNot());
            assertTrue(d.quiet(), "a stop's reaps are expected: " + st);
            assertEquals(0, b.asked, "a stop spends no budget");
        }
    }

    @Test
    void aWorkerAskedToLeaveIsNotReplacedAndSaysSoUnlessItLeftCleanly() {
        FakeBudget b = allowing();
        ReapDecision clean = ReapDecision.decide(false, true, false, EXIT_0, b);
        assertEquals("it was asked to leave", clean.whyNot());
        assertTrue(clean.quiet(), "exit 0 is what a leaver asked to leave does");
        ReapDecision killed = ReapDecision.decide(false, true, false, KILLED, b);
        assertEquals("it was asked to leave", killed.whyNot());
        assertFalse(killed.quiet(), "killed (past the grace, or by someone else): worth a line");
        ReapDecision failed = ReapDecision.decide(false, true, true, EXIT_1, b);
        assertEquals("it was asked to leave", failed.whyNot(), "retiring is read before the reload step");
        assertFalse(failed.quiet());
        assertEquals(0, b.asked, "a leaver spends no budget");
    }

    @Test
    void aReloadStepsOldWorkerIsNotReplaced() {
        FakeBudget b = allowing();
        for (WaitStatus st : new WaitStatus[] {EXIT_0, EXIT_1, KILLED}) {
            ReapDecision d = ReapDecision.decide(false, false, true, st, b);
            assertEquals("a reload is replacing it", d.whyNot(), st.toString());
            assertFalse(d.quiet());
        }
        assertEquals(0, b.asked);
    }

    @Test
    void exit78IsNeverReplaced() {
        FakeBudget b = allowing();
        ReapDecision d = ReapDecision.decide(false, false, false, EXIT_78, b);
        assertEquals("it exited 78", d.whyNot());
        assertFalse(d.quiet());
        assertEquals(0, b.asked, "a configuration that cannot serve is no death to count");
    }

    @Test
    void aSpentBudgetGivesTheIndexUpWithItsReason() {
        FakeBudget b = new FakeBudget("5 deaths in a row, each within a second of its start");
        ReapDecision d = ReapDecision.decide(false, false, false, EXIT_1, b);
        assertFalse(d.respawn());
        assertEquals("5 deaths in a row, each within a second of its start", d.whyNot());
        assertFalse(d.quiet(), "giving up on a crashing index is worth a line");
        assertEquals(1, b.asked);
    }

    @Test
    void aCrashWithinTheBudgetIsRespawned() {
        for (WaitStatus st : new WaitStatus[] {EXIT_1, KILLED, exited(143)}) {
            FakeBudget b = allowing();
            ReapDecision d = ReapDecision.decide(false, false, false, st, b);
            assertTrue(d.respawn(), st.toString());
            assertNull(d.whyNot());
            assertEquals(1, b.asked, "counted once: " + st);
        }
    }

    /** docs/adr/0010: exit 0 that the supervisor did not ask for (a stray SIGTERM) is replaced. */
    @Test
    void exit0NotAskedForIsRespawnedAndCounted() {
        FakeBudget b = allowing();
        ReapDecision d = ReapDecision.decide(false, false, false, EXIT_0, b);
        assertTrue(d.respawn());
        assertEquals(1, b.asked, "it goes through the budget like a crash");
    }

    /** With the real budget: leavers do not spend it, so the one respawn it allows is still there. */
    @Test
    void onlyDeathsNobodyAskedForSpendTheRealBudget() {
        RespawnBudget budget = new RespawnBudget(3, 1);
        long now = TimeUnit.SECONDS.toNanos(1_000);
        long startedAt = now - TimeUnit.SECONDS.toNanos(30);
        ReapDecision.Budget forIndex1 = () -> budget.onDeath(1, now, startedAt, 2);
        assertFalse(ReapDecision.decide(false, true, false, EXIT_0, forIndex1).respawn());
        assertFalse(ReapDecision.decide(false, false, true, EXIT_0, forIndex1).respawn());
        assertFalse(ReapDecision.decide(false, false, false, EXIT_78, forIndex1).respawn());
        assertFalse(ReapDecision.decide(true, false, false, EXIT_1, forIndex1).respawn());
        assertEquals(0, budget.respawns());
        assertTrue(ReapDecision.decide(false, false, false, EXIT_1, forIndex1).respawn(), "the one respawn allowed");
        ReapDecision spent = ReapDecision.decide(false, false, false, EXIT_1, forIndex1);
        assertEquals("--dev-max-respawns 1 spent", spent.whyNot());
    }
}
