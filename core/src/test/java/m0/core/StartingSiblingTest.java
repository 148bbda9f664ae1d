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

    private static long starting(Fixture f) {
        return f.page.peek(PageLayout.STARTING_WORD);
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
}
