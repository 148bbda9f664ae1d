package m0.core.loop;

import static m0.core.loop.LoopRig.MS;
import static m0.core.loop.LoopRig.limits;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import m0.core.BusyEstimator;
import m0.core.ForwardingWorkerShare;
import m0.core.PageLayout;
import org.junit.jupiter.api.Test;

/**
 * The accept batch's rules beside {@link WorkerLoopTest}'s: a failed accept or hand-off is
 * reported and the connection is never lost, the core's nudge goes to whoever it names, the
 * HELD mark is on the page as soon as the listener goes out, and the limits' smallest values.
 */
class AcceptBatchRulesTest {

    private static final long T0 = 1_000 * MS;

    @Test
    void anAcceptThatFailsForItsOwnConnectionIsReportedAndEndsTheBatchWithTheListenerIn() {
        LoopRig rig = new LoopRig(T0, 2, "share", limits(64, 100));
        LoopRig.Worker w0 = rig.worker(0);
        rig.backlog(3);
        w0.listener.failNext = new IllegalStateException("accept: ECONNABORTED");
        assertTrue(w0.pass(false, true));
        assertEquals(List.of("accept: ECONNABORTED"), rig.failures, "one line, the port's own words");
        assertEquals(1, w0.listener.accepts, "the batch ends at the failure");
        assertEquals(3, rig.backlog.size(), "the rest waits: the listener is still readable");
        assertTrue(w0.listener.in, "a failure of one connection is not a reason to stop listening");
        w0.pass(false, true);
        assertEquals(0, rig.backlog.size(), "the next wake-up accepts again");
    }

    @Test
    void aConnectionWhosePassOnThrowsIsServedHereAndReported() {
        LoopRig rig = new LoopRig(T0, 2, "share", limits(64, 100));
        LoopRig.Worker w0 = rig.worker(0);
        w0.connections.unmodelled = 3; // w0 serves 3 already: its pick names idle w1
        rig.backlog(1);
        rig.sendThrows = true;
        assertTrue(w0.pass(false, true));
        assertEquals(List.of("admit c1"), w0.connections.log, "the core took its raise back: the connection is ours");
        assertEquals(0, rig.channel.queued(1));
        assertEquals(List.of("passing a connection on: java.lang.IllegalStateException: sendmsg: EBADF; serving it here"),
                rig.failures.subList(0, 1), "said once, before the pass end's rebalance look (which fails alike)");
    }

    /** The loop nudges the sibling the core names, index 0 included: which one is the core's decision. */
    @Test
    void theSiblingTheCoreNamesAfterAFullAcceptIsNudgedWhateverItsIndex() {
        LoopRig rig = new LoopRig(T0, 2, "share", limits(64, 100));
        LoopRig.Worker w1 = rig.worker(1);
        rig.worker(0).connections.unmodelled = 100; // w0 far heavier: w1 keeps what it accepts
        rig.page.getAndAdd(PageLayout.countsWord(0), m0.core.Counts.activeBy(100));
        WorkerLoop<String> namingWorker0 = w1.loopOver(new ForwardingWorkerShare<String>(w1.share) {
            @Override
            public int endBatch() {
                return 0;
            }
        }, limits(64, 100));
        rig.backlog(3);
        namingWorker0.begin();
        namingWorker0.end(false, true);
        assertEquals(List.of(0), w1.channels.nudges, "worker 0 is told to look now");
        assertEquals(List.of("admit c1"), w1.connections.log, "and the batch ends at that accept");
        assertEquals(2, rig.backlog.size());
    }

    /**
     * Fountain (ADR 0038): the HELD mark follows the listener out at once, before the pass goes on
     * to the connections' timers, so a sibling's look at any later point of the pass sees it.
     */
    @Test
    void atTheCapTheHeldMarkIsOnThePageBeforeThePassServesItsTimers() {
        LoopRig rig = new LoopRig(T0, 2, "fountain", limits(64, 1));
        LoopRig.Worker w0 = rig.worker(0);
        List<Boolean> heldAtTimers = heldWhenTimersRun(rig, w0);
        rig.backlog(2);
        w0.pass(false, true);
        assertTrue(w0.loop.interest().outFor(ListenerInterest.CAP));
        assertEquals(List.of(true), heldAtTimers, "HELD published where the listener went out");
    }

    @Test
    void outOfDescriptorsTheHeldMarkIsOnThePageBeforeThePassServesItsTimers() {
        LoopRig rig = new LoopRig(T0, 2, "fountain", limits(64, 100));
        LoopRig.Worker w0 = rig.worker(0);
        List<Boolean> heldAtTimers = heldWhenTimersRun(rig, w0);
        rig.backlog(1);
        w0.listener.emfile = true;
        w0.pass(false, true);
        assertTrue(w0.loop.interest().outFor(ListenerInterest.BACKOFF));
        assertEquals(List.of(true), heldAtTimers, "HELD published where the listener went out");
    }

    /** A connections' timer due in this pass; what worker {@code w}'s busy word says of HELD when it runs. */
    private static List<Boolean> heldWhenTimersRun(LoopRig rig, LoopRig.Worker w) {
        List<Boolean> held = new ArrayList<>();
        w.connections.deadline = T0;
        w.connections.onExpire = () -> held.add(BusyEstimator.held(rig.page.getVolatile(PageLayout.busyWord(0))));
        return held;
    }

    @Test
    void theSmallestLimitsAreValidAndAnythingSmallerIsRejected() {
        WorkerLoop.Limits smallest = new WorkerLoop.Limits(1, 1, 0);
        assertEquals(1, smallest.acceptBatch());
        assertThrows(IllegalArgumentException.class, () -> new WorkerLoop.Limits(0, 1, 0), "no batch");
        assertThrows(IllegalArgumentException.class, () -> new WorkerLoop.Limits(1, 0, 0), "no connection");
        assertThrows(IllegalArgumentException.class, () -> new WorkerLoop.Limits(1, 1, -1), "a grace before the stop");
    }
}
