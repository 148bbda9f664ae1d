package m0.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The loop's timers and pass-end order (issue 45, {@link LoopOracles}): each port mutant found in
 * its world, named by its rule and replayed; every world passes every interleaving under the real
 * core. The loop's source edits of the same decisions run in {@link LoopSourceMutantsTest}.
 */
class LoopWorldsTest {

    static final Protocol FOUNTAIN = Policies.named("fountain");

    /** scenario, real protocol, mutant (null: a source edit only), the rule it breaks. */
    static final Object[][] PAIRS = {
        {LoopScenarios.HEAL_IDLE, Protocol.core(), LoopMutants.NO_HEAL_LOOK, "HEAL-LOOK"},
        {LoopScenarios.SETTLED, Protocol.core(), LoopMutants.SETTLED_AFTER_RETIRE, "SETTLED-SEEN"},
        {LoopScenarios.SAMPLE_IDLE, FOUNTAIN, null, "SAMPLE"},
    };

    static Stream<Arguments> mutants() {
        return Stream.of(PAIRS).filter(p -> p[2] != null).map(p -> Arguments.of(p[0], p[2], p[3]));
    }

    static Stream<Arguments> worlds() {
        return Stream.of(PAIRS).map(p -> Arguments.of(p[0], p[1]));
    }

    @ParameterizedTest(name = "{0} finds {1}")
    @MethodSource("mutants")
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void checkerFindsTheMutant(Scenarios.Scenario scenario, Protocol mutant, String rule) {
        Explorer.Report r = Explorer.exhaustive(scenario, mutant, true);
        assertNotNull(r.first, scenario + " / " + mutant.name() + ": no violation in " + r.executions + " runs");
        Violation v = r.first.violations.get(0);
        System.out.println("== " + scenario + " / " + mutant.name() + ": found after " + r.executions + " runs: " + v);
        assertEquals(rule, v.rule, v.toString());
        Sim.Result again = Explorer.replay(scenario, mutant, r.first.schedule);
        assertFalse(again.ok());
        assertEquals(r.first.trace(), again.trace(), "the schedule replays the trace byte for byte");
    }

    @ParameterizedTest(name = "{0} under {1} passes every interleaving")
    @MethodSource("worlds")
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void realCorePasses(Scenarios.Scenario scenario, Protocol real) {
        Explorer.Report r = Explorer.exhaustive(scenario, real, false);
        System.out.println(r.row());
        assertTrue(r.complete);
        assertTrue(r.executions > 0);
        assertEquals(0, r.violations, () -> r.first.violations + "\n" + r.first.trace());
    }

    /**
     * The heal look is reached, not assumed: some run of LOOP-HEAL-IDLE has the kill between w0's
     * raise and its send, and the idle w1 heals that orphan (otherwise HEAL-LOOK judged nothing).
     */
    @org.junit.jupiter.api.Test
    void anIdleWorkerHealsAnOrphanAtItsHealLook() {
        Explorer.Report r = Explorer.exhaustive(LoopScenarios.HEAL_IDLE, Protocol.core(), false);
        System.out.println("LOOP-HEAL-IDLE: " + r.healedRuns + " of " + r.executions + " runs heal an orphan");
        assertTrue(r.healedRuns > 0);
        assertEquals(0, r.orphanRuns);
    }
}
