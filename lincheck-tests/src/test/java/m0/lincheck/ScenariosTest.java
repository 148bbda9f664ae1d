package m0.lincheck;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.jetbrains.lincheck.Lincheck;
import org.jetbrains.lincheck.LincheckAssertionError;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Each correction of the seed, model-checked by Lincheck over real threads running the real
 * core: the core passes every interleaving Lincheck explores, and the historical ordering
 * (a mutant in test code) is caught, with the rule it breaks and Lincheck's interleaving.
 */
class ScenariosTest {

    private static final Map<String, String> SUMMARY = new LinkedHashMap<>();

    // One method per scenario and side, each with its own non-capturing lambda: Lincheck
    // re-runs the body to replay a failure, and a body reached through a lambda stored
    // outside the test (an enum's method reference) did not replay deterministically here.

    @Test
    void r5Core() {
        core("R5", () -> Scenarios.r5(false));
    }

    @Test
    void r5MutantCaught() {
        mutant("R5", "IN-FLIGHT", () -> Scenarios.r5(true));
    }

    @Test
    void b25SendCore() {
        core("B25-send", () -> Scenarios.b25Send(false));
    }

    @Test
    void b25SendMutantCaught() {
        mutant("B25-send", "STRANDED", () -> Scenarios.b25Send(true));
    }

    @Test
    void b25IdleCore() {
        core("B25-idle", () -> Scenarios.b25Idle(false));
    }

    @Test
    void b25IdleMutantCaught() {
        mutant("B25-idle", "IDLE-CLOSE", () -> Scenarios.b25Idle(true));
    }

    @Test
    void takenCore() {
        core("TAKEN", () -> Scenarios.taken(false, -1));
    }

    /** The first life killed at each of its port accesses in turn, each point model-checked. */
    @Test
    @Tag("model-check")
    void takenCoreAtEveryDeathPoint() {
        for (int k = 0; k < Scenarios.TAKEN_DEATH_POINTS; k++) {
            int killAt = k;
            coreAtDeathPoint("TAKEN", k, () -> Scenarios.taken(false, killAt));
        }
    }

    @Test
    void takenMutantCaught() {
        mutant("TAKEN", "SETTLE", () -> Scenarios.taken(true, -1));
    }

    /** A sender killed at each of its port accesses while its target leaves: orphans accepted exactly. */
    @Test
    @Tag("model-check")
    void senderDeathCoreAtEveryDeathPoint() {
        for (int k = 0; k < Scenarios.SENDER_DEATH_POINTS; k++) {
            int killAt = k;
            coreAtDeathPoint("SENDER-KILL", k, () -> Scenarios.senderDeath(killAt));
        }
    }

    @Test
    void notStartedCore() {
        core("NS", () -> Scenarios.notStarted(false));
    }

    @Test
    void notStartedMutantCaught() {
        mutant("NS", "NOT-STARTED", () -> Scenarios.notStarted(true));
    }

    @Test
    void reapedCore() {
        core("RP", () -> Scenarios.reaped(false));
    }

    @Test
    void reapedMutantCaught() {
        mutant("RP", "REAPED", () -> Scenarios.reaped(true));
    }

    @Test
    void giveUpCore() {
        core("RB", () -> Scenarios.giveUp(false));
    }

    @Test
    void giveUpMutantCaught() {
        mutant("RB", "STRANDED", () -> Scenarios.giveUp(true));
    }

    @Test
    void b25SlowCore() {
        core("B25-slow", () -> Scenarios.b25Slow(false));
    }

    /** mutant-fwd-skips-slow: the leaver's forward skips a slow sibling, as pick does. */
    @Test
    void b25SlowMutantCaught() {
        mutant("B25-slow", "IDLE-CLOSE", () -> Scenarios.b25Slow(true));
    }

    @Test
    void giveUpSlowCore() {
        core("RB-slow", () -> Scenarios.giveUpSlow(false));
    }

    /** mutant-fwd-skips-slow in the give-up's re-homing. */
    @Test
    void giveUpSlowMutantCaught() {
        mutant("RB-slow", "STRANDED", () -> Scenarios.giveUpSlow(true));
    }

    @Test
    void healCore() {
        core("HEAL", () -> Scenarios.heal(false));
    }

    /** mutant-heal-blind: the heal takes off every raise it sees, a live sender's too. */
    @Test
    void healMutantCaught() {
        mutant("HEAL", "IN-FLIGHT", () -> Scenarios.heal(true));
    }

    /** The real core: no violation in any interleaving Lincheck explores. */
    private static void core(String scenario, Runnable body) {
        int invocations = Budget.core();
        long t0 = System.nanoTime();
        Lincheck.runConcurrentTest(invocations, body);
        String line = String.format("core   %-9s %5d invocations, no violation, %6.1f s",
                scenario, invocations, seconds(t0));
        System.out.println("[lincheck] " + line);
        SUMMARY.put(scenario + " a", line);
    }

    /** One death point of a sweep, with a share of the core budget. */
    private static void coreAtDeathPoint(String scenario, int killAt, Runnable body) {
        int invocations = Budget.perDeathPoint();
        long t0 = System.nanoTime();
        Lincheck.runConcurrentTest(invocations, body);
        String line = String.format("core   %-9s killed at access %2d: %4d invocations, no violation, %5.1f s",
                scenario, killAt, invocations, seconds(t0));
        System.out.println("[lincheck] " + line);
        SUMMARY.merge(scenario + " d", line, (was, now) -> was + "\n[lincheck] " + now);
    }

    /**
     * The historical ordering: Lincheck must find an interleaving that breaks {@code rule},
     * within the budget. Not caught, or caught breaking another rule, fails the build.
     */
    private static void mutant(String scenario, String rule, Runnable body) {
        int budget = Budget.mutant();
        long t0 = System.nanoTime();
        LincheckAssertionError caught = assertThrows(LincheckAssertionError.class,
                () -> Lincheck.runConcurrentTest(budget, body),
                scenario + " mutant (historical ordering) was NOT caught in " + budget + " invocations");
        double took = seconds(t0);
        String report = caught.getMessage();
        String violation = Traces.violation(report);
        assertTrue(violation.startsWith(rule + ":"),
                scenario + " mutant was caught breaking the wrong rule: " + violation);
        Path saved = Traces.save(scenario + "-mutant", report);
        StringBuilder log = new StringBuilder();
        log.append(String.format("[lincheck] mutant %-9s caught in %.1f s: %s%n", scenario, took, violation));
        log.append("[lincheck]   full trace: ").append(saved.toAbsolutePath()).append('\n');
        for (String row : Traces.excerpt(report, 60)) {
            log.append("[lincheck] ").append(row).append('\n');
        }
        System.out.print(log);
        SUMMARY.put(scenario + " b", String.format("mutant %-9s caught in %6.1f s: %s",
                scenario, took, violation.length() > 110 ? violation.substring(0, 110) + "..." : violation));
    }

    @AfterAll
    static void summary() {
        System.out.println("[lincheck] ---- summary ----");
        SUMMARY.values().forEach(line -> System.out.println("[lincheck] " + line));
    }

    private static double seconds(long t0) {
        return (System.nanoTime() - t0) / 1e9;
    }
}
