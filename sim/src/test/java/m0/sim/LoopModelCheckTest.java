package m0.sim;

import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;

/**
 * {@code mvn test -P model-check}: the loop's worlds ({@link LoopScenarios}) exhaustively on both
 * real pages, under the real core and under each port mutant ({@link LoopWorldsTest#PAIRS}).
 */
class LoopModelCheckTest extends BothPagesModelCheck {

    @Override
    Stream<Arguments> worlds() {
        return onEveryPage(() -> Stream.of(LoopWorldsTest.PAIRS).map(p -> new Object[] {p[0], p[1]}));
    }

    @Override
    Stream<Arguments> mutants() {
        return onEveryPage(() -> Stream.of(LoopWorldsTest.PAIRS).filter(p -> p[2] != null)
                .map(p -> new Object[] {p[0], p[2], p[3]}));
    }
}
