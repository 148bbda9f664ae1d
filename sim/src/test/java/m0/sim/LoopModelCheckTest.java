package m0.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Timeout;

/**
 * {@code mvn test -P model-check}: the loop's worlds ({@link LoopScenarios}) exhaustively on both
 * real pages, under the real core and under each port mutant ({@link LoopWorldsTest#PAIRS}).
 */
@Tag("model-check")
class LoopModelCheckTest {

    static Stream<Arguments> worlds() {
        return Stream.of(PageKind.values()).flatMap(page -> Stream.of(LoopWorldsTest.PAIRS)
                .map(p -> Arguments.of(p[0], page, p[1])));
    }

    static Stream<Arguments> mutants() {
        return Stream.of(PageKind.values()).flatMap(page -> Stream.of(LoopWorldsTest.PAIRS)
                .filter(p -> p[2] != null).map(p -> Arguments.of(p[0], page, p[2], p[3])));
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
