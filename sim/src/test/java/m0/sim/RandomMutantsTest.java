package m0.sim;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** Random mode, too, finds corrections undone (slower: part of the model-check profile). */
@Tag("model-check")
class RandomMutantsTest {

    @Test
    void b25Send() {
        DeterminismTest.findsAndReplays(Mutants.B25_SEND, "B25-send", 2000);
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
