package m0.sim;

import java.util.stream.Stream;
import org.junit.jupiter.params.provider.Arguments;

/**
 * {@code mvn test -P model-check}: every fountain and herd scenario exhaustively under the real
 * core and under its mutant, on both real pages ({@link BothPagesModelCheck}).
 */
class FountainModelCheckTest extends BothPagesModelCheck {

    @Override
    Stream<Arguments> worlds() {
        return onEveryPage(() -> FountainCases.scenarios().map(Arguments::get));
    }

    @Override
    Stream<Arguments> mutants() {
        return onEveryPage(() -> FountainCases.mutants().map(Arguments::get));
    }
}
