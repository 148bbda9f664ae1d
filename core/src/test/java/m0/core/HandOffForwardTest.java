package m0.core;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** {@link HandOff}: what a forward answers, and what a hand-off leaves on the page when it raised nothing. */
class HandOffForwardTest {

    private static HandOff<String> handOff(Fixture f, int sender) {
        int n = f.workers.size();
        return new HandOff<>(f.page, f.channel, new Siblings(f.page, f.clock, n), PageLayout.sendingWord(sender));
    }

    @Test
    void aForwardNamesTheWorkerThatTookTheConnection() {
        Fixture f = new Fixture(3).started();
        f.active(1, 5);
        assertEquals(2, handOff(f, 0).forward(0, "c"), "w2, the lighter");
        assertEquals(1, f.channel.queued(2));
        assertEquals(1, f.pending(2));
    }

    @Test
    void aRefusalCountsForOneForwardOnly() {
        Fixture f = new Fixture(2, 1).started();
        f.channel.send(1, "queued"); // w1's channel is full
        HandOff<String> h = handOff(f, 0);
        assertEquals(-1, h.forward(0, "a"), "w1 refused and nobody else is live: keep it");
        assertEquals(0, f.pending(1), "the refused raise was taken back");
        f.channel.receive(1); // w1 drained its channel
        assertEquals(1, h.forward(0, "b"), "a new forward tries w1 again");
        assertEquals(1, f.channel.queued(1));
    }

    @Test
    void aHandOffThatRaisedNothingLeavesNoSendingBehind() {
        Fixture f = new Fixture(2).started();
        HandOff<String> h = handOff(f, 0);
        long stale = f.page.peek(PageLayout.countsWord(1));
        f.put(PageLayout.countsWord(1), stale + Counts.RAISE); // another sender raised since the read
        assertEquals(HandOff.MOVED, h.sendIfUnchanged(1, "c", stale));
        assertEquals(0, f.get(PageLayout.sendingWord(0)),
                "no raise of ours is in flight: a heal of w1 must not count us as a sender");
        assertEquals(1, f.pending(1), "nothing raised by this send");
        assertEquals(0, f.channel.queued(1));
    }
}
