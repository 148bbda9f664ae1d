package m0.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Worlds explored exhaustively on the array page: each mutant found, named by its rule and
 * replayed; each world passes every interleaving under the real core. A subclass names its
 * mutants and worlds. Per class, so that the sources can be the subclass's own methods.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class ExhaustiveWorlds {

    /** Scenario, mutant, the rule it breaks. */
    abstract Stream<Arguments> mutants();

    /** Scenario, the real protocol it runs under. */
    abstract Stream<Arguments> worlds();

    @ParameterizedTest(name = "{0} finds {1}")
    @MethodSource("mutants")
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void checkerFindsTheMutant(Scenarios.Scenario scenario, Protocol mutant, String rule) {
        Explorer.Report r = Explorer.exhaustive(scenario, mutant, true);
        assertNotNull(r.first, scenario + " / " + mutant.name() + ": no violation in " + r.executions + " runs");
        Violation v = r.first.violations.get(0);
        System.out.println("== " + scenario + " / " + mutant.name() + ": found after " + r.executions + " runs: " + v);
        assertEquals(rule, v.rule, v.toString());
        RunResult again = Explorer.replay(scenario, mutant, r.first.schedule);
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
}
