package m0.core;

import static org.junit.jupiter.api.Assertions.assertFalse;

import org.junit.jupiter.api.Test;

/** A channel that never loses a receipt keeps {@link Channel#lost}'s default: nothing is counted lost. */
class ChannelDefaultsTest {

    @Test
    void aChannelThatSaysNothingOfLossesLosesNoReceipt() {
        Channel<String> plain = new Channel<>() {
            @Override
            public boolean send(int target, String connection) {
                return true;
            }

            @Override
            public String receive(int index) {
                return "c" + index;
            }
        };
        assertFalse(plain.lost(plain.receive(0)), "a receipt from a channel without losses holds its connection");
    }
}
