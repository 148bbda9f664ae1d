package m0.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.provider.Arguments;

/**
 * The loop's timers and pass-end order (issue 45, {@link LoopOracles}): each port mutant found in
 * its world, named by its rule and replayed; every world passes every interleaving under the real
 * core ({@link ExhaustiveWorlds}). The loop's source edits of the same decisions run in
 * {@link LoopSourceMutantsTest}.
 */
class LoopWorldsTest extends ExhaustiveWorlds {

    static final Protocol FOUNTAIN = Policies.named("fountain");

    /** scenario, real protocol, mutant (null: a source edit only), the rule it breaks. */
    static final Object[][] PAIRS = {
        {LoopScenarios.HEAL_IDLE, Protocol.core(), LoopMutants.NO_HEAL_LOOK, "HEAL-LOOK"},
        {LoopScenarios.SETTLED, Protocol.core(), LoopMutants.SETTLED_AFTER_RETIRE, "SETTLED-SEEN"},
        {LoopScenarios.SAMPLE_IDLE, FOUNTAIN, null, "SAMPLE"},
    };

    @Override
    Stream<Arguments> mutants() {
        return Stream.of(PAIRS).filter(p -> p[2] != null).map(p -> Arguments.of(p[0], p[2], p[3]));
    }

    @Override
    Stream<Arguments> worlds() {
        return Stream.of(PAIRS).map(p -> Arguments.of(p[0], p[1]));
    }

    /**
     * The heal look is reached, not assumed: some run of LOOP-HEAL-IDLE has the kill between w0's
     * raise and its send, and the idle w1 heals that orphan (otherwise HEAL-LOOK judged nothing).
     */
    @Test
    void anIdleWorkerHealsAnOrphanAtItsHealLook() {
        Explorer.Report r = Explorer.exhaustive(LoopScenarios.HEAL_IDLE, Protocol.core(), false);
        System.out.println("LOOP-HEAL-IDLE: " + r.healedRuns + " of " + r.executions + " runs heal an orphan");
        assertTrue(r.healedRuns > 0);
        assertEquals(0, r.orphanRuns);
    }
}
