package m0.sim;

import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;

/**
 * The fast half of the fountain and herd checks (default {@code mvn test}): every mutant found,
 * named and replayed; the small worlds pass every interleaving under the real core. The slow
 * worlds (KILL, FILL) and both pages run under {@code -P model-check} (FountainModelCheckTest).
 */
class FountainTest extends ExhaustiveWorlds {

    @Override
    Stream<Arguments> mutants() {
        return FountainCases.mutants();
    }

    /** The fast worlds: all but KILL and FILL. */
    @Override
    Stream<Arguments> worlds() {
        return FountainCases.scenarios().filter(a -> a.get()[0] != FountainScenarios.KILL && a.get()[0] != FountainScenarios.FILL);
    }
}
