package m0.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A leaver, or a give-up, with no live worker to pass a connection to, while one is starting
 * (a respawn between bind and start): it waits for that one, within a bound, instead of
 * admitting the connection only to close it unserved.
 */
class StartingSiblingTest {

    /**
     * Worker 0 died and was reaped; the supervisor counted its replacement as starting and
     * spawned it; it has bound the index and not started.
     */
    private static AcceptShare<String> respawning(Fixture f) {
        f.supervisor.markReaped(0);
        f.supervisor.spawning(0);
        AcceptShare<String> replacement = new AcceptShare<>(f.page, f.channel, f.clock, AcceptPolicy.share(), 2, 0);
        replacement.bind();
        return replacement;
    }

    /** Indices marked as starting (their STARTING bits). */
    private static long starting(Fixture f) {
        return Long.bitCount(f.page.peek(PageLayout.startingWord(f.workers.size(), 0)));
    }

    @Test
    void aSpawnCountsAsStartingUntilTheSupervisorSeesItStartOrReapsIt() {
        Fixture f = new Fixture(3).started();
        Siblings siblings = new Siblings(f.page, f.clock, 3);
        f.supervisor.markReaped(0);
        f.supervisor.markReaped(2);
        assertFalse(siblings.anyLiveOrStarting(1), "w1 alone, nobody coming");
        f.supervisor.spawning(0);
        f.supervisor.spawning(0);
        assertEquals(1, starting(f), "once per spawn");
        assertTrue(siblings.anyLiveOrStarting(1));
        f.supervisor.spawning(2);
        f.supervisor.markReaped(2); // died before it started
        assertEquals(1, starting(f));
        f.w(0).bind();
        f.w(0).start();
        assertTrue(siblings.anyLiveOrStarting(1), "live");
        f.supervisor.started(0);
        assertEquals(0, starting(f));
        assertTrue(siblings.anyLiveOrStarting(1), "still live: never in neither");
    }

    @Test
    void aSpareLineThatNobodyRunsIsNotWaitedFor() {
        Fixture f = new Fixture(3).started();
        f.put(PageLayout.stateWord(2), PageLayout.NOT_STARTED); // a spare line nobody spawns into
        f.supervisor.markReaped(0);
        f.w(1).leave();
        assertFalse(f.w(1).awaitingStart());
    }

    @Test
    void aLeaverHoldsAFreshHandOffForAStartingSiblingAndForwardsItOnceItStarts() {
        Fixture f = new Fixture(2).started();
        AcceptShare<String> w1 = f.w(1);
        f.w(1).sendWith(1, "fresh"); // queued to w1 (by w0, before it died)
        AcceptShare<String> replacement = respawning(f);
        w1.leave();
        List<String> admitted = new ArrayList<>();
        assertTrue(w1.leaveStep(admitted::add), "held for the starting sibling: go on");
        assertEquals(List.of(), admitted, "not admitted, so not closed unserved");
        f.clock.advanceMillis(800);
        assertTrue(w1.leaveStep(admitted::add), "still starting");
        replacement.start(); // before the supervisor sees it: live is enough
        assertFalse(w1.leaveStep(admitted::add), "forwarded: done");
        assertEquals(List.of(), admitted);
        assertEquals("fresh", f.channel.receive(0), "the replacement gets it");
        assertEquals(1, w1.forwardedCount());
    }

    @Test
    void theWaitEndsAtItsBoundAndTheLeaverServesItItself() {
        Fixture f = new Fixture(2).started();
        AcceptShare<String> w1 = f.w(1);
        f.w(1).sendWith(1, "fresh");
        respawning(f);
        w1.leave();
        List<String> admitted = new ArrayList<>();
        assertTrue(w1.leaveStep(admitted::add));
        f.clock.advance(AcceptShare.START_WAIT_NANOS);
        assertFalse(w1.awaitingStart(), "bounded: a replacement that never starts is not waited for");
        assertFalse(w1.leaveStep(admitted::add));
        assertEquals(List.of("fresh"), admitted);
    }

    @Test
    void aGiveUpWithNoLiveWorkerHoldsForAStartingOneInsteadOfClosing() {
        Fixture f = new Fixture(2).started();
        f.w(0).sendWith(1, "queued");
        f.supervisor.markReaped(1);
        AcceptShare<String> replacement = respawning(f); // index 0 died too and is respawning
        GiveUp<String> drain = f.supervisor.giveUp(1);
        List<String> closed = new ArrayList<>();
        assertTrue(drain.step(closed::add), "held: go on");
        assertEquals(0, f.pending(1), "the dead index's counts are settled while it waits");
        assertEquals(List.of(), closed);
        replacement.start();
        assertFalse(drain.step(closed::add));
        assertEquals(List.of(), closed);
        assertEquals(1, drain.rehomed());
        assertEquals("queued", f.channel.receive(0));
        assertTrue(drain.done());
    }

    @Test
    void aGiveUpClosesWhatItHoldsWhenTheStartingWorkerNeverComes() {
        Fixture f = new Fixture(2).started();
        f.w(0).sendWith(1, "queued");
        f.supervisor.markReaped(1);
        respawning(f);
        GiveUp<String> drain = f.supervisor.giveUp(1);
        List<String> closed = new ArrayList<>();
        assertTrue(drain.step(closed::add));
        f.clock.advance(AcceptShare.START_WAIT_NANOS);
        assertFalse(drain.step(closed::add));
        assertEquals(List.of("queued"), closed);
    }

    /**
     * A worker that leaves before the supervisor has seen it start is still marked as starting,
     * and the mark is its own index's: with no other sibling live or coming, it does not wait for
     * itself (a server-wide count held its hand-offs for the whole 5 s start wait, ADR 0038).
     */
    @Test
    void aWorkerThatLeavesBeforeItIsSeenStartedDoesNotWaitForItself() {
        Fixture f = new Fixture(2);
        f.supervisor.spawning(0);
        f.supervisor.spawning(1);
        f.w(0).bind();
        f.w(1).bind();
        f.w(1).start();
        f.w(0).start();
        f.supervisor.started(0); // the supervisor has seen w0, not yet w1
        f.w(0).sendWith(1, "fresh"); // queued to w1
        f.supervisor.markReaped(0); // w0 dies and is not replaced
        AcceptShare<String> w1 = f.w(1);
        w1.leave(); // SIGTERM before the supervisor's next look
        assertTrue(new Siblings(f.page, f.clock, 2).starting(1), "w1 is still marked: not yet seen");
        assertFalse(w1.awaitingStart(), "nobody else is live or coming: w1 is no sibling of its own");
        List<String> admitted = new ArrayList<>();
        assertFalse(w1.leaveStep(admitted::add), "done at once, not after the 5 s start wait");
        assertEquals(List.of("fresh"), admitted, "served here: there is nobody to forward it to");
    }

    @Test
    void theSupervisorSeesAStartOnThePageAndOnlyThen() {
        Fixture f = new Fixture(2);
        f.supervisor.spawning(1);
        f.w(1).bind();
        assertFalse(f.supervisor.startSeen(1), "bound, not started");
        assertEquals(1, starting(f));
        f.w(1).start();
        assertTrue(f.supervisor.startSeen(1), "PARKED");
        assertEquals(0, starting(f));
        f.w(1).passStart();
        assertTrue(f.supervisor.startSeen(1), "inside a pass is started too");
    }
}
