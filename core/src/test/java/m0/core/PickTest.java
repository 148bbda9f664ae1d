package m0.core;

import static m0.core.PageLayout.LEFT;
import static m0.core.PageLayout.NOT_STARTED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The share policy's pick, through the worker's accept path. */
class PickTest {

    /** Worker 0 accepts {@code burst} connections in one pass; returns how many it kept. */
    private static int acceptBurst(Fixture f, int burst) {
        AcceptShare<String> w0 = f.w(0);
        w0.passStart();
        int kept = 0;
        for (int k = 0; k < burst; k++) {
            if (!w0.passOn("c" + k, kept)) {
                kept++; // admitted here: one more live open connection
            }
        }
        w0.passEnd(kept);
        return kept;
    }

    @Test
    void aBurstOf32InOnePassSplits16To16WithTheSiblingParkedAndIdle() {
        Fixture f = new Fixture(2).started();
        int kept = acceptBurst(f, 32);
        assertEquals(16, kept);
        assertEquals(16, f.channel.queued(1));
        assertEquals(16, f.pending(1), "every hand-off raised worker 1's pending");
    }

    @Test
    void aBurstOf64OverFourWorkersGives16Each() {
        Fixture f = new Fixture(4).started();
        int kept = acceptBurst(f, 64);
        assertEquals(16, kept);
        for (int i = 1; i < 4; i++) {
            assertEquals(16, f.channel.queued(i), "worker " + i);
        }
    }

    @org.junit.jupiter.params.ParameterizedTest(name = "runs of {0}")
    @org.junit.jupiter.params.provider.ValueSource(ints = {1, 3, 16})
    void twoAcceptorsInOnePassSplitABurst16To16(int run) {
        // Both workers woke on the listener and take turns accepting one burst, in runs; each
        // also drains its channel as it goes. Each must see what the other keeps in this very
        // pass, not what it published at its last pass end.
        Fixture f = new Fixture(2).started();
        int[] open = new int[2];
        f.w(0).passStart();
        f.w(1).passStart();
        for (int k = 0; k < 32; k++) {
            int me = (k / run) % 2;
            AcceptShare<String> w = f.w(me);
            while (w.receive() != null) {
                open[me]++;
            }
            if (!w.passOn("c" + k, open[me])) {
                open[me]++;
            }
        }
        for (int i = 0; i < 2; i++) {
            while (f.w(i).receive() != null) {
                open[i]++;
            }
            f.w(i).passEnd(open[i]);
        }
        assertEquals(16, open[0], "worker 0 serves");
        assertEquals(16, open[1], "worker 1 serves");
        assertEquals(0, f.pending(0) + f.pending(1));
    }

    /**
     * ADR 0007: a connection a pick keeps is in this worker's published load at once, not at its
     * pass end, so a sibling picking mid-pass does not read it lighter than it is. (The burst
     * above ends 16/16 without it too, through hand-offs that pending makes up for.)
     */
    @Test
    void aKeptConnectionIsInThePublishedLoadAtOnce() {
        Fixture f = new Fixture(2).started();
        f.w(0).passStart();
        f.w(1).passStart();
        assertFalse(f.w(0).passOn("c0", 0), "a tie: kept");
        assertEquals(1, f.active(0), "published with the keep, the pass still under way");
        assertFalse(f.w(1).passOn("c1", 1), "w1, serving one, reads w0 as serving one too: a tie, kept");
        assertEquals(0, f.channel.queued(0));
    }

    /**
     * ADR 0043, the sim's BURST trace in miniature: w0 picks w1 (0 against its own 1); before its
     * raise, w1 accepts too and keeps. A raise added blind would land a third connection on w1
     * (3/1 by the burst's end); raised on the counts the pick read, it finds them moved, raises
     * nothing, and the pick made again keeps.
     */
    @Test
    void aSendDecidedOnCountsThatMovedSinceThePickPicksAgain() {
        Fixture f = new Fixture(2).started();
        f.w(0).passStart();
        f.w(1).passStart();
        assertFalse(f.w(0).passOn("c1", 0), "a tie: kept");
        assertEquals(1, f.w(0).pick(1), "w1 is lighter: 0 against 1");
        assertFalse(f.w(1).passOn("c3", 0), "w1, accepting too, keeps (0 against w0's 1)");
        assertEquals(HandOff.MOVED, f.w(0).sendPicked(1, "c2"), "w1's counts moved since the pick");
        assertEquals(1, f.w(0).pickedAgainCount(), "counted (stats)");
        assertEquals(0, f.pending(1), "nothing raised");
        assertEquals(0, f.channel.queued(1), "nothing sent");
        assertEquals(0, f.w(0).pick(1), "picked again: 1 against 1, a tie, kept");
    }

    /**
     * ADR 0053, the keep's side of ADR 0043's race: three workers, w0 holding one; w0 and w1 each
     * accept one. w1's pick reads itself at 0 and keeps; before it publishes, w0's pick names w1
     * (0, tied with w2; the rotation's first turn) and its send lands on the counts it read.
     * Published blind, w1's keep would make it 2 against w2's 0; published on the counts its pick
     * read, it finds them moved, publishes nothing, and the pick made again names w2.
     */
    @Test
    void aKeepDecidedOnOwnCountsThatMovedSinceThePickPicksAgain() {
        Fixture f = new Fixture(3).started();
        f.active(0, 1);
        assertEquals(1, f.w(1).pick(0), "w1 keeps: 0, as light as w2");
        assertEquals(1, f.w(0).pick(1), "w0 names w1: 0, tied with w2, first in the rotation");
        assertEquals(HandOff.SENT, f.w(0).sendPicked(1, "c1"), "w1's counts are as w0's pick read them");
        assertFalse(f.w(1).keptIfUnchanged(0), "w1's own counts moved since its pick");
        assertEquals(0, f.active(1), "nothing published");
        assertEquals(1, f.w(1).pickedAgainCount(), "counted (stats)");
        assertEquals(2, f.w(1).pick(0), "picked again: 1 in flight to w1, so w2 is lighter");
    }

    @Test
    void aKeepOnOwnCountsAsThePickReadThemIsPublished() {
        Fixture f = new Fixture(2).started();
        assertEquals(0, f.w(0).pick(0));
        assertTrue(f.w(0).keptIfUnchanged(0));
        assertEquals(1, f.active(0), "published at once (ADR 0007)");
        assertEquals(0, f.w(0).pickedAgainCount());
    }

    /**
     * A keep that moves no active field (a close this pass, not yet published, makes up for it)
     * writes nothing, but its own counts are still read again: moved, the pick is made again.
     */
    @Test
    void aKeepThatMovesNoActiveStillPicksAgainOnAMovedWord() {
        Fixture f = new Fixture(2).started();
        assertEquals(0, f.w(0).pick(0));
        assertTrue(f.w(0).keptIfUnchanged(0), "active 1 published");
        assertEquals(0, f.w(0).pick(0), "that connection closed (open 0, unpublished): a tie, kept");
        assertTrue(f.w(1).sendWith(0, "r"), "w0's counts move after the pick");
        assertFalse(f.w(0).keptIfUnchanged(0), "active would not move, but the word did");
        assertEquals(1, f.w(0).pickedAgainCount());
        assertEquals(1, f.active(0), "nothing written");
    }

    /**
     * A pick that reads none of its own counts (share keeping, ADR 0041) forgets what an earlier
     * pick read: its keep is published at once, not held to a word that has moved since.
     */
    @Test
    void aKeepWhileKeepingIsNotHeldToAnEarlierPicksRead() {
        Fixture f = new Fixture(2).started();
        assertEquals(0, f.w(0).pick(0), "balancing: a tie, kept");
        assertTrue(f.w(0).keptIfUnchanged(0));
        f.w(0).shape(Fixture.T0, 0, 0);
        f.w(0).shape(Fixture.T0 + 1_000_000, LoadShape.KEEP_MIN_SHORT, 0);
        assertFalse(f.w(0).policy().balancing(), "keeping: arrivals close short");
        assertTrue(f.w(1).sendWith(0, "r"), "w0's counts move after the balancing pick read them");
        assertEquals(0, f.w(0).pick(1), "keeping: self, nothing read");
        assertTrue(f.w(0).keptIfUnchanged(1), "published, not held to the balancing pick's read");
        assertEquals(0, f.w(0).pickedAgainCount());
        assertEquals(2, f.active(0));
    }

    /**
     * Where the pick read none of its own counts (fountain fills in order), nothing holds the
     * keep: published whatever moved.
     */
    @Test
    void aKeepOnCountsThePickDidNotReadIsPublished() {
        Fixture f = new Fixture(2, AcceptPolicy::fountain).started();
        assertEquals(0, f.w(0).pick(0), "fountain's head keeps");
        assertTrue(f.w(1).sendWith(0, "r"), "w0's counts move after the pick");
        assertTrue(f.w(0).keptIfUnchanged(0), "fountain decided on nothing of w0's counts");
        assertEquals(1, f.active(0));
    }

    @Test
    void aSendOnCountsAsThePickReadThemIsSent() {
        Fixture f = new Fixture(2).started();
        f.w(0).passStart();
        assertEquals(1, f.w(0).pick(1));
        assertEquals(HandOff.SENT, f.w(0).sendPicked(1, "c"));
        assertEquals(1, f.pending(1));
        assertEquals(1, f.channel.queued(1));
    }

    @Test
    void aConnectionReceivedThisPassIsCountedOnceInOwnLoad() {
        Fixture f = new Fixture(2).started();
        f.w(1).sendWith(0, "r"); // worker 0 receives and admits it: open 1, still in pending
        f.w(0).passStart();
        assertEquals("r", f.w(0).receive());
        f.active(1, 1);
        assertEquals(0, f.w(0).pick(1), "own load 1 (not 2) ties worker 1's 1: self");
    }

    @Test
    void tiesGoToSelf() {
        Fixture f = new Fixture(2).started();
        assertEquals(0, f.w(0).pick(0), "both idle: the acceptor keeps it");
        f.active(1, 3);
        assertEquals(0, f.w(0).pick(3), "both at 3: still self");
        assertEquals(1, f.w(0).pick(4), "strictly lighter sibling wins");
    }

    @Test
    void ownPendingCountsTowardsOwnLoad() {
        Fixture f = new Fixture(2).started();
        f.counts(0, 2, 0);
        f.active(1, 1);
        assertEquals(1, f.w(0).pick(0), "self 0 open + 2 pending is heavier than 1");
    }

    @Test
    void equalSiblingsTakeTurns() {
        Fixture f = new Fixture(4).started();
        List<Integer> picks = new ArrayList<>();
        for (int k = 0; k < 9; k++) {
            picks.add(f.w(0).pick(5));
        }
        assertEquals(List.of(1, 2, 3, 1, 2, 3, 1, 2, 3), picks);
    }

    @Test
    void equalSiblingsTakeTurnsWhateverSpareLinesLieBetween() {
        // Nine lines, four workers started at 0, 5, 6, 8: the rest are spare (NOT_STARTED).
        Fixture f = new Fixture(9);
        for (int i : new int[] {0, 5, 6, 8}) {
            f.w(i).bind();
            f.w(i).start();
        }
        java.util.Map<Integer, Integer> firsts = new java.util.TreeMap<>();
        for (int k = 0; k < 30; k++) {
            firsts.merge(f.w(0).pick(5), 1, Integer::sum);
        }
        assertEquals(java.util.Map.of(5, 10, 6, 10, 8, 10), firsts);
    }

    @Test
    void aNotStartedSiblingIsNeverPicked() {
        Fixture f = new Fixture(3).started();
        f.put(PageLayout.stateWord(1), NOT_STARTED);
        f.active(2, 7);
        for (int k = 0; k < 6; k++) {
            assertNotEquals(1, f.w(0).pick(100));
        }
    }

    @Test
    void aLeftSiblingIsNeverPicked() {
        Fixture f = new Fixture(3).started();
        f.put(PageLayout.stateWord(1), LEFT);
        f.active(2, 7);
        for (int k = 0; k < 6; k++) {
            assertNotEquals(1, f.w(0).pick(100));
        }
    }

    /** One pass of worker 0 with one pick in it, as the loop makes them: the pick's answer. */
    private static int pickInAPass(Fixture f, long open) {
        f.w(0).passStart();
        int to = f.w(0).pick(open);
        f.w(0).passEnd(open);
        return to;
    }

    @Test
    void aSiblingThreeMillisecondsIntoOnePassIsNeverPicked() {
        Fixture f = new Fixture(2).started();
        f.w(1).passStart(); // worker 1 enters a pass at T0
        f.clock.advanceMillis(1);
        assertEquals(1, pickInAPass(f, 10), "1 ms into a pass: still picked");
        f.clock.advanceMillis(2);
        assertEquals(0, f.w(0).passedOverSlowCount(), "nobody passed over yet");
        for (int k = 0; k < 4; k++) {
            assertEquals(0, pickInAPass(f, 100), "3 ms into one pass: skipped");
        }
        assertEquals(4, f.w(0).passedOverSlowCount(), "each pick that skipped it counted (stats)");
        f.w(1).passEnd(0);
        assertEquals(1, pickInAPass(f, 100), "parked again: picked");
        assertEquals(4, f.w(0).passedOverSlowCount());
    }

    @Test
    void aBatchJudgesItsSiblingsAsTheyWereAtItsFirstPick() {
        // The cold first burst (ADR 0052): worker 0's batch is slow, worker 1 enters a pass for
        // the hand-offs it is sent and is itself slow. 3 ms later it is still in that pass, but it
        // began after the batch did: not slow to this batch.
        Fixture f = new Fixture(2).started();
        AcceptShare<String> w0 = f.w(0);
        w0.passStart();
        assertEquals(1, w0.pick(1), "parked and lighter: picked");
        f.clock.advanceMillis(1);
        f.w(1).passStart();
        f.clock.advanceMillis(3);
        assertEquals(1, w0.pick(5), "3 ms into a pass it began inside this batch: still picked");
        assertEquals(0, w0.passedOverSlowCount());
        w0.passEnd(5);
        assertEquals(0, pickInAPass(f, 5), "the next pass judges afresh: 3 ms into one pass, skipped");
        assertEquals(1, w0.passedOverSlowCount());
    }

    @Test
    void aSiblingAlreadySlowWhenTheBatchBeganIsSkippedForAllOfIt() {
        Fixture f = new Fixture(2).started();
        AcceptShare<String> w0 = f.w(0);
        f.w(1).passStart();
        f.clock.advanceMillis(3);
        w0.passStart();
        for (int k = 0; k < 8; k++) {
            assertEquals(0, w0.pick(100 + k), "3 ms into one pass when the batch began: skipped");
            f.clock.advanceMillis(1);
        }
        assertEquals(8, w0.passedOverSlowCount(), "each pick of the batch passed it over");
        f.w(1).passEnd(0);
        assertEquals(1, w0.pick(108), "parked again inside the batch: picked");
        w0.passEnd(109);
    }

    @Test
    void noLiveSiblingMeansSelf() {
        Fixture f = new Fixture(3).started();
        f.put(PageLayout.stateWord(1), LEFT);
        f.put(PageLayout.stateWord(2), NOT_STARTED);
        assertEquals(0, f.w(0).pick(1000));
    }
}
