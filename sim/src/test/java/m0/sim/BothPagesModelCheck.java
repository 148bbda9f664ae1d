package m0.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@code mvn test -P model-check}: a set of worlds explored exhaustively on each real page, under
 * the real core and under each mutant. A subclass names its worlds and mutants; each case runs
 * under its own timeout, named. Per class, so that the sources can be the subclass's own methods.
 */
@Tag("model-check")
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class BothPagesModelCheck {

    /** Scenario, page, real protocol. */
    abstract Stream<Arguments> worlds();

    /** Scenario, page, mutant, the rule it breaks. */
    abstract Stream<Arguments> mutants();

    /** Each row on every page, the page second: {@code {scenario, x, y}} becomes {@code (scenario, page, x, y)}. */
    static Stream<Arguments> onEveryPage(Supplier<Stream<Object[]>> rows) {
        return Stream.of(PageKind.values()).flatMap(page -> rows.get().map(row -> {
            Object[] args = new Object[row.length + 1];
            args[0] = row[0];
            args[1] = page;
            System.arraycopy(row, 1, args, 2, row.length - 1);
            return Arguments.of(args);
        }));
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
