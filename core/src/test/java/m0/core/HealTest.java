package m0.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Self-healing counts (ADR 0024): after a death cut a hand-off short, the index's receiver
 * recounts its pending - taken at an EAGAIN after the reap, and never takes off a raise that is
 * still on its way. One test per rule; {@link RecordingPage#before} puts another actor's step
 * at a chosen point of the heal.
 */
class HealTest {

    /** A sender killed between its raise and its send: published, raised, never cleared. */
    private static void diesAfterItsRaise(Fixture f, int sender, int target) {
        f.midHandOff(sender, target);
    }

    @Test
    void aReapClearsTheDeadSendersWordThenAsksItsTargetToHeal() {
        Fixture f = new Fixture(3).started();
        diesAfterItsRaise(f, 0, 2);
        f.log.clear();
        f.supervisor.markReaped(0);
        assertEquals(List.of("set state[0] -1", "set sending[0] 0", "cas counts[2] p1 t0 p1 t0 heal"),
                f.page.writesTo("state[0]", "sending[0]", "counts[0]", "counts[1]", "counts[2]"),
                "LEFT (RP), the dead hand-off cleared, then a heal asked of the index it was sending to");
        assertFalse(f.w(1).healDue(), "an index the dead was not sending to is not asked");
        assertTrue(f.w(2).healDue());
    }

    @Test
    void aReapOfAWorkerSendingToNobodyWritesNoCounts() {
        Fixture f = new Fixture(2).started();
        f.log.clear();
        f.supervisor.markReaped(1);
        assertEquals(List.of("set state[1] -1"), f.page.writesTo("state[1]", "sending[1]", "counts[0]", "counts[1]"));
    }

    @Test
    void aReplacementThatFindsNothingInFlightAsksItselfNothing() {
        Fixture f = new Fixture(2).started();
        f.supervisor.markReaped(1, true);
        AcceptShare<String> replacement = new AcceptShare<>(f.page, f.channel, f.clock, AcceptPolicy.share(), 2, 1);
        replacement.bind();
        replacement.start();
        assertFalse(replacement.healRequested());
        f.log.clear();
        assertNull(replacement.receive());
        assertEquals(List.of("receive 1 EAGAIN"), f.log, "an EAGAIN with nothing asked costs nothing");
    }

    @Test
    void aDeadSendersOrphanIsHealedByItsTargetAtItsNextEagain() {
        Fixture f = new Fixture(2).started();
        diesAfterItsRaise(f, 0, 1);
        AcceptShare<String> w1 = f.w(1);
        assertNull(w1.receive(), "before the reap: nothing to heal");
        assertEquals(1, f.pending(1), "the orphan, while its sender is not known dead");
        f.supervisor.markReaped(0);
        assertTrue(w1.healDue(), "the loop looks once a pass");
        assertNull(w1.receive());
        assertEquals(0, f.pending(1), "healed: exactly what is in flight (nothing)");
        assertEquals(0, f.taken(1));
        assertFalse(w1.healDue(), "the request is cleared by the heal that completes it");
        assertFalse(Counts.healRequested(f.page.peek(PageLayout.countsWord(1))));
    }

    @Test
    void aHealNeverTakesOffALiveSendersRaise() {
        Fixture f = new Fixture(3).started();
        diesAfterItsRaise(f, 2, 1);
        f.midHandOff(0, 1); // w0 is alive, between its raise and its send
        f.supervisor.markReaped(2);
        AcceptShare<String> w1 = f.w(1);
        assertTrue(w1.healDue());
        assertNull(w1.receive());
        assertEquals(1, f.pending(1), "the dead one's raise is off, the live one's stays");
        assertTrue(w1.healDue(), "not complete while a hand-off to us is under way");
        f.landed(0, 1, "c");
        assertEquals("c", w1.receive());
        assertNull(w1.receive());
        assertFalse(w1.healDue(), "complete once nobody is sending to us");
        w1.passEnd(1);
        assertEquals(0, f.pending(1));
        assertEquals(0, f.taken(1));
    }

    /** The supervisor re-homing from a given-up index is a sender too: its SENDING word is counted. */
    @Test
    void aHealNeverTakesOffTheSupervisorsRaise() {
        Fixture f = new Fixture(3).started();
        diesAfterItsRaise(f, 2, 1);
        f.midHandOff(-1, 1); // the supervisor, between its raise and its send
        f.supervisor.markReaped(2);
        AcceptShare<String> w1 = f.w(1);
        assertTrue(w1.healDue());
        assertNull(w1.receive());
        assertEquals(1, f.pending(1), "the dead one's raise is off, the supervisor's stays");
        f.landed(-1, 1, "c");
        assertEquals("c", w1.receive());
        assertNull(w1.receive());
        assertFalse(w1.healDue());
    }

    @Test
    void aHandOffThatBeginsBeforeTheHealReadsTheCountsIsCountedAsInFlight() {
        Fixture f = new Fixture(3).started();
        diesAfterItsRaise(f, 2, 1);
        f.supervisor.markReaped(2);
        AcceptShare<String> w1 = f.w(1);
        assertTrue(w1.healDue());
        // w0's hand-off begins (published, raised) just before the heal reads the counts.
        f.page.before("get counts[1]", 1, () -> f.midHandOff(0, 1));
        assertNull(w1.receive());
        assertEquals(1, f.pending(1), "the dead one's raise is off; w0's, on its way, stays");
        assertTrue(w1.healDue());
        f.landed(0, 1, "c");
        assertEquals("c", w1.receive());
        assertNull(w1.receive(), "the next EAGAIN finds nothing in flight: healed");
        assertEquals(1, f.pending(1), "the received one, until its pass end");
        assertEquals(1, f.taken(1));
        assertFalse(w1.healDue());
    }

    @Test
    void aConnectionThatLandsWhileTheHealLooksIsTakenNotSubtracted() {
        Fixture f = new Fixture(3).started();
        diesAfterItsRaise(f, 2, 1);
        f.supervisor.markReaped(2);
        AcceptShare<String> w1 = f.w(1);
        assertTrue(w1.healDue());
        // Just before the heal reads the counts, a whole hand-off from w0: published, raised,
        // queued, cleared. The counts include its raise and the scan does not see it: only the
        // receive that follows tells that it is queued, not orphaned.
        f.page.before("get counts[1]", 1, () -> {
            f.midHandOff(0, 1);
            f.landed(0, 1, "c");
        });
        assertEquals("c", w1.receive(), "the heal's own receive hands it back as a receipt");
        assertEquals(2, f.pending(1), "nothing subtracted: c's raise is not an orphan");
        assertNull(w1.receive());
        assertEquals(1, f.pending(1));
        assertEquals(1, f.taken(1));
        assertFalse(w1.healDue());
    }

    @Test
    void aCountsWordChangedAfterItsReadFailsTheHealsCompareAndSet() {
        Fixture f = new Fixture(3).started();
        diesAfterItsRaise(f, 2, 1);
        f.supervisor.markReaped(2);
        AcceptShare<String> w1 = f.w(1);
        assertTrue(w1.healDue());
        // Between the heal's read of the counts and its compare-and-set, w0 raises and takes
        // back (it read w1... as anything; both counts end as they were): an ABA the version catches.
        f.page.before("cas counts[1]", 1, () -> {
            f.page.getAndAdd(PageLayout.countsWord(1), Counts.RAISE);
            f.page.getAndAdd(PageLayout.countsWord(1), Counts.TAKE_BACK);
        });
        assertNull(w1.receive());
        assertEquals(1, f.pending(1), "the compare-and-set failed: nothing subtracted");
        assertTrue(w1.healDue());
        assertNull(w1.receive());
        assertEquals(0, f.pending(1), "the next EAGAIN heals");
    }

    @Test
    void aReplacementHealsAReceiptItsPredecessorDiedWithBeforeTakingIt() {
        Fixture f = new Fixture(2).started();
        assertTrue(f.w(0).sendWith(1, "c"));
        assertEquals("c", f.channel.receive(1)); // w1's recvmsg, and it dies before taken + 1
        f.supervisor.markReaped(1, true);
        AcceptShare<String> replacement = new AcceptShare<>(f.page, f.channel, f.clock, AcceptPolicy.share(), 2, 1);
        replacement.bind();
        replacement.start();
        assertEquals(1, f.pending(1), "start cannot know: the receipt is in neither taken nor the channel");
        assertNull(replacement.receive());
        assertEquals(0, f.pending(1), "healed at its first EAGAIN");
    }

    @Test
    void aGiveUpHealsTheDeadIndexAndDoesNotWaitOutItsBound() {
        Fixture f = new Fixture(2).started();
        assertTrue(f.w(0).sendWith(1, "c"));
        assertEquals("c", f.channel.receive(1)); // the dead worker's recvmsg, before taken + 1
        f.supervisor.markReaped(1);
        GiveUp<String> drain = f.supervisor.giveUp(1);
        assertFalse(drain.step(c -> { }), "done at once: nothing is really on its way");
        assertEquals(0, f.pending(1));
        assertEquals(0, f.taken(1));
    }

    @Test
    void aLeaverHealsAnOrphanAndEndsItsDrain() {
        Fixture f = new Fixture(3).started();
        diesAfterItsRaise(f, 0, 1);
        AcceptShare<String> w1 = f.w(1);
        w1.leave();
        assertTrue(w1.leaveStep(c -> { }), "the orphan reads as in flight until its sender's reap");
        f.supervisor.markReaped(0);
        assertTrue(w1.leaveStep(c -> { }), "the step's read of the counts notices the request");
        assertFalse(w1.leaveStep(c -> { }), "healed at the next EAGAIN: the drain ends now, not at its 250 ms bound");
        assertEquals(0, f.pending(1));
    }

    @Test
    void theWatchHealsAGivenUpIndexAfterALaterReap() {
        Fixture f = new Fixture(3).started();
        f.supervisor.markReaped(1);
        GiveUp<String> drain = f.supervisor.giveUp(1);
        assertFalse(drain.step(c -> { }));
        // w0 picked w1 before its reap, raised, read LEFT and was killed before its take-back.
        diesAfterItsRaise(f, 0, 1);
        f.supervisor.markReaped(0);
        assertEquals(0, drain.watch(c -> { }));
        assertEquals(0, f.pending(1), "the watch's EAGAIN healed it");
    }

    @Test
    void everyRetireAndStartIsOneWord() {
        Fixture f = new Fixture(2).started();
        assertTrue(f.w(0).sendWith(1, "c"));
        AcceptShare<String> w1 = f.w(1);
        w1.passStart();
        assertEquals("c", w1.receive());
        assertNull(w1.receive());
        f.log.clear();
        w1.passEnd(1);
        assertEquals(List.of("add counts[1] a+1 p-1 t-1"), f.page.writesTo("counts[1]"),
                "taken and pending retired together, active published with them: no death or read between");
    }

    @Test
    void anAskedIndexWithNothingInFlightClearsTheRequestWithOneReadAndOneCas() {
        Fixture f = new Fixture(2).started();
        diesAfterItsRaise(f, 0, 1);
        f.landed(0, 1, "c"); // it had sent after all: the datagram is queued, nothing orphaned
        f.page.put(PageLayout.sendingWord(0), 2); // and died before clearing its SENDING (w1 + 1)
        f.supervisor.markReaped(0);
        AcceptShare<String> w1 = f.w(1);
        assertTrue(w1.healDue());
        assertEquals("c", w1.receive());
        f.log.clear();
        assertNull(w1.receive());
        assertEquals(List.of("receive 1 EAGAIN", "get counts[1] p1 t1 heal", "cas counts[1] p1 t1 heal p1 t1"), f.log);
        assertFalse(w1.healDue());
        assertEquals(1, f.pending(1), "the received one, until its pass end: nothing taken off");
    }

    @Test
    void countsDecodeBothFieldsAndEveryDeltaSums() {
        long w = Counts.of(5, 2);
        assertEquals(5, Counts.pending(w));
        assertEquals(2, Counts.taken(w));
        assertEquals(3, Counts.inFlight(w));
        w += Counts.RAISE + Counts.RECEIPT + Counts.retire(3) + Counts.TAKE_BACK;
        assertEquals(2, Counts.pending(w));
        assertEquals(0, Counts.taken(w));
        long below = Counts.of(0, 0) + Counts.TAKE_BACK + Counts.retire(1); // a mutant's counts below zero
        assertEquals(-2, Counts.pending(below));
        assertEquals(-1, Counts.taken(below));
        long full = Counts.of(Counts.IN_FLIGHT_MAX, -Counts.IN_FLIGHT_MAX, Counts.ACTIVE_MAX) + Counts.HEAL;
        assertEquals(Counts.IN_FLIGHT_MAX, Counts.pending(full));
        assertEquals(-Counts.IN_FLIGHT_MAX, Counts.taken(full));
        assertEquals(Counts.ACTIVE_MAX, Counts.active(full), "a descriptor limit of 2^20 fits");
        assertTrue(Counts.healRequested(full));
        long busy = Counts.of(3, 1, 7) + Counts.activeBy(-2) + Counts.retire(1) + Counts.TAKE_BACK;
        assertEquals(5, Counts.active(busy));
        assertEquals(1, Counts.pending(busy));
        assertEquals(0, Counts.taken(busy));
        assertEquals(6, Counts.load(busy), "active + pending, from the one word");
        long activeBelow = Counts.of(2, 0, 0) + Counts.activeBy(-1) + Counts.retire(1); // borrows through every field
        assertEquals(-1, Counts.active(activeBelow));
        assertEquals(1, Counts.pending(activeBelow));
        assertEquals(-1, Counts.taken(activeBelow));
        long wrapped = -Counts.VERSION_ONE + Counts.of(1, 1); // the version field wraps: harmless
        assertEquals(1, Counts.pending(wrapped + Counts.VERSION_ONE));
        assertEquals(1, Counts.taken(wrapped + Counts.VERSION_ONE));
        for (long d : new long[] {Counts.RAISE, Counts.TAKE_BACK, Counts.RECEIPT, Counts.DRAINED, Counts.retire(2),
                Counts.healed(0, 3, false)}) {
            long version = (d - Counts.of(Counts.pending(d), Counts.taken(d))) / Counts.VERSION_ONE;
            assertEquals(1, version, "every change moves the version by one: a heal's compare-and-set sees it");
        }
    }
}
