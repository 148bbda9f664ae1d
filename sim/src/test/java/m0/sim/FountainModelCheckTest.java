package m0.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code mvn test -P model-check}: every fountain and herd scenario exhaustively under the real
 * core and under its mutant, on both real pages. Each case runs under its own timeout, named.
 */
@Tag("model-check")
class FountainModelCheckTest {

    static Stream<Arguments> worlds() {
        return Stream.of(PageKind.values()).flatMap(page -> FountainCases.scenarios()
                .map(a -> Arguments.of(a.get()[0], page, a.get()[1])));
    }

    static Stream<Arguments> mutants() {
        return Stream.of(PageKind.values()).flatMap(page -> FountainCases.mutants()
                .map(a -> Arguments.of(a.get()[0], page, a.get()[1], a.get()[2])));
    }

    @ParameterizedTest(name = "{0} on {1} under {2}: every interleaving passes")
    @MethodSource("worlds")
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void everyInterleavingPasses(Scenarios.Scenario sc, PageKind page, Protocol real) {
        PageKind.current = page;
        try {
            Explorer.Report r = Explorer.exhaustive(sc, real, false);
            System.out.println(r.row());
            assertTrue(r.complete, sc + " incomplete");
            assertEquals(0, r.violations, () -> r.first.violations + "\n" + r.first.trace());
        } finally {
            PageKind.current = PageKind.ARRAY;
        }
    }

    @ParameterizedTest(name = "{0} on {1}: {2} is caught ({3})")
    @MethodSource("mutants")
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void theMutantIsCaught(Scenarios.Scenario sc, PageKind page, Protocol mutant, String rule) {
        PageKind.current = page;
        try {
            Explorer.Report m = Explorer.exhaustive(sc, mutant, true);
            System.out.println(m.row() + " " + (m.first == null ? "NOT FOUND" : m.first.violations.get(0).rule + " found"));
            assertNotNull(m.first, sc + " / " + mutant.name() + ": not found in " + m.executions + " runs");
            assertEquals(rule, m.first.violations.get(0).rule);
        } finally {
            PageKind.current = PageKind.ARRAY;
        }
    }
}
