package m0.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Random mode, too, finds corrections undone (slower: part of the model-check profile). */
@Tag("model-check")
class RandomMutantsTest {

    @Test
    void b25Send() {
        // Without the re-read after the raise, a sender also hands to a worker reaped between its
        // pick and its send: the reap's mark only works because senders re-read (seed, RP). So
        // random mode may meet the RP face of this mutant first; exhaustive mode pins B25-send.
        DeterminismTest.findsAndReplays(Mutants.B25_SEND, java.util.Set.of("B25-send", "RP"), 2000);
    }

    /**
     * A failing random run shrinks to a schedule a person can read, which still replays
     * strictly. RP, because its failure needs a particular death at a particular moment.
     */
    @Test
    void aFailingRandomRunShrinks() {
        RunResult failing = null;
        long seed = 1;
        for (; seed <= 3000 && failing == null; seed++) {
            RunResult r = RandomWorld.build(Mutants.RP, new RandomChoices(seed), true).run();
            if (!r.ok() && r.violations.get(0).rule.equals("RP")) {
                failing = r;
            }
        }
        assertTrue(failing != null, "3000 seeds found no RP violation of the RP mutant");
        Shrinker.Outcome o = Campaign.shrink(Mutants.RP, failing);
        System.out.println("seed " + (seed - 1) + ": " + failing.steps + " steps, schedule " + failing.schedule.length()
                + " chars; " + o + " (" + o.result.steps + " steps)");
        System.out.print(o.result.trace());
        assertEquals("RP", o.result.violations.get(0).rule, o.result.violations::toString);
        assertTrue(o.schedule.length() < failing.schedule.length(),
                "shrunk: " + o.schedule.length() + " of " + failing.schedule.length());
        RunResult again = RandomWorld.build(Mutants.RP, new ReplayChoices(o.schedule), true).run();
        assertEquals(o.result.trace(), again.trace(), "the shrunk schedule replays byte for byte");
    }

    @Test
    void ns() {
        DeterminismTest.findsAndReplays(Mutants.NS, "NS", 500);
    }

    @Test
    void rp() {
        DeterminismTest.findsAndReplays(Mutants.RP, "RP", 2000);
    }
}
