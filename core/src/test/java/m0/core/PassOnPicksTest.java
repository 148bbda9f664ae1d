package m0.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/**
 * {@link WorkerShare#passOn}, the accept path: a send or a keep decided on counts that moved
 * since the pick read them is decided again, at most {@link WorkerShare#PICKS} times; the last
 * pick stands whatever moved; a refused send keeps the connection and publishes it.
 */
class PassOnPicksTest {

    /**
     * Before every compare-and-set on {@code worker}'s counts, another sender's raise and its
     * take-back (the load is as it was, the word is not); at most {@code times} of them, and
     * never more compare-and-sets than the picks allow.
     */
    private static final class Mover implements Runnable {
        private final Fixture f;
        private final String at;
        private final int word;
        private final int times;
        int moves;

        Mover(Fixture f, int worker, int times) {
            this.f = f;
            this.word = PageLayout.countsWord(worker);
            this.at = "cas counts[" + worker + "]";
            this.times = times;
            f.page.before(at, 1, this);
        }

        @Override
        public void run() {
            moves++;
            if (moves > WorkerShare.PICKS) {
                throw new AssertionError("more compare-and-sets than picks: " + moves);
            }
            if (moves <= times) {
                f.put(word, f.get(word) + Counts.RAISE + Counts.TAKE_BACK);
            }
            f.page.before(at, 1, this);
        }
    }

    @Test
    void aSendDecidedOnCountsThatMovedIsDecidedAgain() {
        Fixture f = new Fixture(3).started();
        // w0 holds 5; w1 and w2 idle: w1 first in the rotation. Before w0's raise lands, w2 raises w1.
        f.page.before("cas counts[1]", 1, () -> f.midHandOff(2, 1));
        assertTrue(f.w(0).passOn("c", 5));
        assertEquals(1, f.channel.queued(2), "w1 is no longer the lightest: w2 gets it");
        assertEquals(0, f.channel.queued(1));
        assertEquals(1, f.w(0).pickedAgainCount());
    }

    @Test
    void aKeepDecidedOnOwnCountsThatMovedIsDecidedAgain() {
        Fixture f = new Fixture(3).started();
        f.active(1, 1);
        f.active(2, 1);
        // w0 holds none: it keeps. Before its keep is published, two hand-offs are raised against it.
        f.page.before("cas counts[0]", 1, () -> {
            f.midHandOff(1, 0);
            f.midHandOff(2, 0);
        });
        assertTrue(f.w(0).passOn("c", 0), "w0 now carries 2 in flight: a sibling of load 1 takes it");
        assertEquals(1, f.channel.queued(1) + f.channel.queued(2));
        assertEquals(0, f.active(0), "no keep published");
        assertEquals(1, f.w(0).pickedAgainCount());
    }

    @Test
    void theLastPickKeepsWhateverMoved() {
        Fixture f = new Fixture(2).started();
        f.active(1, 5);
        Mover mover = new Mover(f, 0, Integer.MAX_VALUE); // every keep of w0's finds its counts moved
        assertFalse(f.w(0).passOn("c", 0));
        assertEquals(WorkerShare.PICKS - 1, mover.moves, "the last pick publishes without a compare-and-set");
        assertEquals(WorkerShare.PICKS - 1, f.w(0).pickedAgainCount());
        assertEquals(1, f.active(0), "the keep is published");
    }

    @Test
    void theLastPickSendsWhateverMoved() {
        Fixture f = new Fixture(2).started();
        Mover mover = new Mover(f, 1, Integer.MAX_VALUE); // every raise on w1's read counts fails
        assertTrue(f.w(0).passOn("c", 5));
        assertEquals(WorkerShare.PICKS - 1, mover.moves);
        assertEquals(1, f.channel.queued(1), "sent, raised blind");
        assertEquals(1, f.pending(1));
        assertEquals(0, f.active(0));
    }

    @Test
    void aRefusedSendKeepsTheConnectionAndPublishesIt() {
        Fixture f = new Fixture(2, 1).started();
        f.channel.send(1, "queued"); // w1's channel is full
        assertFalse(f.w(0).passOn("c", 5), "kept: admit it here");
        assertEquals(6, f.active(0), "five open and this one");
        assertEquals(0, f.pending(1), "the raise taken back");
    }
}
