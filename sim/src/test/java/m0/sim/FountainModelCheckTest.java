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

    static Stream<Arguments> cases() {
        return Stream.of(PageKind.values()).flatMap(page -> Stream.of(FountainCases.PAIRS)
                .map(p -> Arguments.of(p[0], page, p[1], p[2], p[3])));
    }

    @ParameterizedTest(name = "{0} on {1}: {2} passes, {3} is caught ({4})")
    @MethodSource("cases")
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void everyInterleavingAndItsMutant(Scenarios.Scenario sc, PageKind page, Protocol real, Protocol mutant, String rule) {
        PageKind.current = page;
        try {
            Explorer.Report r = Explorer.exhaustive(sc, real, false);
            System.out.println(r.row());
            assertTrue(r.complete, sc + " incomplete");
            assertEquals(0, r.violations, () -> r.first.violations + "\n" + r.first.trace());
            Explorer.Report m = Explorer.exhaustive(sc, mutant, true);
            System.out.println(m.row() + " " + (m.first == null ? "NOT FOUND" : m.first.violations.get(0).rule + " found"));
            assertNotNull(m.first, sc + " / " + mutant.name() + ": not found in " + m.executions + " runs");
            assertEquals(rule, m.first.violations.get(0).rule);
        } finally {
            PageKind.current = PageKind.ARRAY;
        }
    }
}
