package m0.core.loop;

import static m0.core.loop.LoopRig.MS;
import static m0.core.loop.LoopRig.limits;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import m0.core.AcceptShare;
import m0.core.BusyEstimator;
import m0.core.PageLayout;
import org.junit.jupiter.api.Test;

/**
 * The loop's timers beside {@link WorkerLoopTest}'s: how long a wait may block and until when,
 * when the rebalance look and fountain's busy sample are due, and what a pass end hands the core.
 */
class LoopTimersTest {

    private static final long T0 = 1_000 * MS;
    private static final long SECOND = 1_000 * MS;

    @Test
    void aTimerDueNowMakesTheDeadlineNowNotNever() {
        LoopRig rig = new LoopRig(T0, 2, "share", limits(64, 100));
        WorkerLoop<String> loop = rig.worker(0).loop;
        assertEquals(0, loop.timeout(), "the rebalance look start makes due");
        assertEquals(T0, loop.deadline(), "due at once");
        LoopRig alone = new LoopRig(T0, 1, "share", limits(64, 100));
        assertEquals(Long.MAX_VALUE, alone.worker(0).loop.deadline(), "no timer at all: never");
    }

    @Test
    void whileSharingTheWaitIsCutAtTheHealLookEvenBeforeALaterTimer() {
        LoopRig rig = new LoopRig(T0, 2, "share", limits(64, 100));
        LoopRig.Worker w0 = rig.worker(0);
        w0.pass(false, false);
        w0.connections.deadline = T0 + 3 * SECOND;
        assertEquals(WorkerLoop.HEAL_LOOK_NANOS, w0.loop.timeout(), "a heal request is looked at within a second");
        LoopRig alone = new LoopRig(T0, 1, "share", limits(64, 100));
        LoopRig.Worker only = alone.worker(0);
        only.connections.deadline = T0 + 3 * SECOND;
        assertEquals(3 * SECOND, only.loop.timeout(), "one worker shares no page: its own timer only");
    }

    /** A pass without work leaves the next look where the last move put it: no look, no new tick. */
    @Test
    void withoutWorkTheRebalanceLookWaitsForItsTime() {
        LoopRig rig = new LoopRig(T0, 2, "share", limits(64, 100));
        LoopRig.Worker w0 = rig.worker(0);
        for (int k = 0; k < 4; k++) {
            w0.connections.hold("k" + k);
        }
        w0.workPass();
        assertEquals(1, rig.channel.queued(1), "a move");
        rig.clock.advance(AcceptShare.REBALANCE_INTERVAL_NANOS / 2);
        w0.pass(false, false);
        assertEquals(AcceptShare.REBALANCE_INTERVAL_NANOS / 2, w0.loop.timeout(),
                "the next look is still an interval after the move");
        rig.clock.advance(AcceptShare.REBALANCE_INTERVAL_NANOS / 2);
        w0.pass(false, false);
        assertEquals(2, rig.channel.queued(1), "and runs then");
    }

    @Test
    void aWorkerHoldingOneConnectionSetsNoRebalanceTick() {
        LoopRig rig = new LoopRig(T0, 2, "share", limits(64, 100));
        LoopRig.Worker w0 = rig.worker(0);
        w0.connections.hold("only");
        w0.workPass();
        assertEquals(0, rig.channel.queued(1), "one connection never moves");
        assertEquals(WorkerLoop.HEAL_LOOK_NANOS, w0.loop.timeout(), "no tick: only the heal look bounds the wait");
    }

    /** ADR 0059: a keeping worker's move of a settled connection paces the next look as any move. */
    @Test
    void aKeepingWorkersMoveSchedulesTheNextLookAnIntervalLater() {
        LoopRig rig = new LoopRig(T0, 2, "share", limits(64, 100));
        for (LoopRig.Worker x : rig.workers) {
            x.connections.shortCloses = 1_000; // churn everywhere: both keep
        }
        LoopRig.Worker w0 = rig.worker(0);
        for (int k = 1; k <= 4; k++) {
            w0.connections.holdSettled("s" + k);
        }
        rig.clock.advance(MS);
        rig.worker(1).pass(false, false);
        w0.pass(false, false);
        assertEquals(List.of("moved s1"), w0.connections.log);
        assertEquals(AcceptShare.REBALANCE_INTERVAL_NANOS, w0.loop.timeout(), "the next look after the interval");
    }

    /** Fountain's sample is due 20 ms after the last, however many passes end in between. */
    @Test
    void passesInBetweenDoNotPostponeTheNextSample() {
        LoopRig rig = new LoopRig(T0, 2, "fountain", limits(64, 100));
        LoopRig.Worker w0 = rig.worker(0);
        w0.pass(false, false); // the baseline sample, at T0
        rig.clock.advance(5 * MS);
        w0.pass(false, false);
        assertEquals(BusyEstimator.SAMPLE_NANOS - 5 * MS, w0.loop.timeout(), "still due at T0 + 20 ms");
    }

    /** The pass end hands the core the loop's busy time: a worker busy for its last samples reads full. */
    @Test
    void aWorkerBusyForAWholeSampleReadsFullOnThePage() {
        LoopRig rig = new LoopRig(T0, 2, "fountain", limits(64, 100));
        LoopRig.Worker w0 = rig.worker(0);
        w0.pass(false, false); // the baseline
        assertFalse(BusyEstimator.full(rig.page.getVolatile(PageLayout.busyWord(0))));
        for (int sample = 0; sample < 4; sample++) {
            w0.loop.begin();
            rig.clock.advance(BusyEstimator.SAMPLE_NANOS); // serving throughout
            w0.loop.end(false, false);
        }
        long word = rig.page.getVolatile(PageLayout.busyWord(0));
        assertTrue(BusyEstimator.full(word), "full: " + BusyEstimator.perMille(word) + " per mille");
    }

    @Test
    void thePassStartIsTheClockReadAfterTheWait() {
        LoopRig rig = new LoopRig(T0, 2, "share", limits(64, 100));
        WorkerLoop<String> loop = rig.worker(0).loop;
        rig.clock.advance(5 * MS);
        loop.begin();
        rig.clock.advance(MS);
        assertEquals(T0 + 5 * MS, loop.now(), "what the driver's connection I/O reads as now");
    }
}
