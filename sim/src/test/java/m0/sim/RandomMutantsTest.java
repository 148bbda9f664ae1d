package m0.sim;

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

    @Test
    void ns() {
        DeterminismTest.findsAndReplays(Mutants.NS, "NS", 500);
    }

    @Test
    void rp() {
        DeterminismTest.findsAndReplays(Mutants.RP, "RP", 2000);
    }
}
