package m0.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** One seed, or one schedule string, replays a run byte for byte. */
class DeterminismTest {

    @Test
    void sameSeedSameTrace() {
        RunResult a = RandomWorld.build(Protocol.core(), new RandomChoices(42), true).run();
        RunResult b = RandomWorld.build(Protocol.core(), new RandomChoices(42), true).run();
        assertTrue(a.steps > 500, "a run of some length: " + a.steps);
        assertEquals(a.trace(), b.trace());
        assertEquals(a.schedule, b.schedule);
        assertEquals(a.traceHash, b.traceHash);
        assertTrue(a.ok(), a.violations::toString);
    }

    @Test
    void scheduleStringReplaysARandomRun() {
        RunResult a = RandomWorld.build(Protocol.core(), new RandomChoices(7), true).run();
        RunResult b = RandomWorld.build(Protocol.core(), new ReplayChoices(a.schedule), true).run();
        assertEquals(a.trace(), b.trace());
        assertEquals(a.schedule, b.schedule);
    }

    /** A random run keeps only its last lines and never builds them; its hash is still the full trace's. */
    @Test
    void theShortTraceHashesWhatTheFullTraceHolds() {
        for (long seed = 1; seed <= 5; seed++) {
            RunResult full = RandomWorld.build(Protocol.core(), new RandomChoices(seed), true).run();
            RunResult ring = RandomWorld.build(Protocol.core(), new RandomChoices(seed), false).run();
            assertEquals(full.traceHash, ring.traceHash, "seed " + seed);
            assertTrue(full.trace().endsWith(ring.trace()), "seed " + seed + ": the short trace is the full one's tail");
            assertEquals(64, ring.trace().split("\n").length, "seed " + seed);
        }
    }

    /** The carrier kind (ADR 0026) decides no schedule: every kind the JDK has runs a seed to the same trace. */
    @Test
    void everyCarrierKindRunsASeedToTheSameTrace() {
        java.util.List<Carrier.Kind> kinds = Carrier.kinds();
        assertEquals(Runtime.version().feature() >= 21, kinds.contains(Carrier.Kind.VIRTUAL), kinds::toString);
        String first = null;
        for (Carrier.Kind k : kinds) {
            Carrier.kind = k;
            try {
                RunResult r = RandomWorld.build(Protocol.core(), new RandomChoices(11), true).run();
                Explorer.Report e = Explorer.exhaustive(LifecycleScenarios.RB, Protocol.core(), false);
                String got = r.trace() + r.schedule + " / RB: " + e.executions + " executions, " + e.steps + " steps";
                if (first == null) {
                    first = got;
                } else {
                    assertEquals(first, got, k + " carriers");
                }
            } finally {
                Carrier.kind = Carrier.DEFAULT;
            }
        }
    }

    @Test
    void differentSeedsDiffer() {
        RunResult a = RandomWorld.build(Protocol.core(), new RandomChoices(1), false).run();
        RunResult b = RandomWorld.build(Protocol.core(), new RandomChoices(2), false).run();
        assertNotEquals(a.traceHash, b.traceHash);
    }

    @Test
    void randomModeFindsTheR5MutantAndItsSeedReplays() {
        findsAndReplays(Mutants.R5, "R5", 20);
    }

    static void findsAndReplays(Protocol mutant, String rule, int seeds) {
        findsAndReplays(mutant, java.util.Set.of(rule), seeds);
    }

    /** As above, where one mutant breaks more than one rule and either may be met first. */
    static void findsAndReplays(Protocol mutant, java.util.Set<String> rules, int seeds) {
        Campaign.Summary s = Campaign.run(mutant, 1, seeds, 60, null);
        assertTrue(s.failures > 0, seeds + " random seeds found no violation of " + mutant.name() + ": " + s);
        RunResult a = RandomWorld.build(mutant, new RandomChoices(s.firstFailingSeed), true).run();
        RunResult b = RandomWorld.build(mutant, new ReplayChoices(a.schedule), true).run();
        System.out.println("random mode caught " + mutant.name() + " at seed " + s.firstFailingSeed + " (" + s.failures
                + " of " + s.runs + " seeds): " + a.violations);
        assertTrue(rules.contains(a.violations.get(0).rule),
                "expected a violation of " + rules + ", got " + a.violations.get(0));
        assertEquals(a.trace(), b.trace(), "the failing schedule replays byte for byte");
    }

    @Test
    void aShortRandomCampaignOnTheRealCore() {
        Campaign.Summary s = Campaign.run(Protocol.core(), 1000, 30, 30, System.out);
        System.out.println(s);
        assertEquals(0, s.failures);
        assertEquals(30, s.runs);
    }
}
