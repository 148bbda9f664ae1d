package m0.core.loop;

import static m0.core.loop.LoopRig.MS;
import static m0.core.loop.LoopRig.limits;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import m0.core.ForwardingWorkerShare;
import m0.core.PageLayout;
import m0.core.loop.FakePorts.FakeConnections;
import org.junit.jupiter.api.Test;

/**
 * Moves, receipts and leaving, beside {@link WorkerLoopTest}'s: a move is stamped work and one
 * the channel refuses stays here; a pass takes at most a batch of receipts and a failed receive
 * is retried; a leaver serves what no sibling takes and hands its idle connections over before
 * the pass's timers; the stop's flags; what a port that reads no TLS or settled state gets.
 */
class MovesAndLeavingRulesTest {

    private static final long T0 = 1_000 * MS;

    /** Under share a pass that only moves is busy like any work (ADR 0052): stamped before the send. */
    @Test
    void aMoveIsStampedOnThePageBeforeItsSend() {
        LoopRig rig = new LoopRig(T0, 2, "share", limits(64, 100));
        LoopRig.Worker w0 = rig.worker(0);
        for (int k = 0; k < 4; k++) {
            w0.connections.hold("k" + k);
        }
        List<String> stateAtSend = new ArrayList<>();
        rig.onSend = () -> stateAtSend.add(PageLayout.stateName(rig.page.getVolatile(PageLayout.stateWord(0))));
        w0.pass(false, false); // no work: the look start made due moves one
        assertEquals(1, rig.channel.queued(1));
        assertEquals(List.of("IN_PASS@" + T0), stateAtSend);
    }

    @Test
    void aMoveTheChannelRefusesLeavesTheConnectionHere() {
        LoopRig rig = new LoopRig(T0, 2, 1, "share", limits(64, 100));
        LoopRig.Worker w0 = rig.worker(0);
        for (int k = 0; k < 4; k++) {
            w0.connections.hold("k" + k);
        }
        assertTrue(rig.channel.send(1, "queued"), "w1's channel full");
        w0.workPass();
        assertEquals(List.of(), w0.connections.log, "nothing moved");
        assertEquals(4, w0.connections.open(), "all four still served here");
        assertEquals(1, rig.channel.queued(1));
        assertEquals(WorkerLoop.REBALANCE_TICK_NANOS, w0.loop.timeout(), "the next look a tick away, as after no move");
    }

    /** RECEIVE_BATCH: a pass retires what it received, so it takes at most a batch; the next takes the rest. */
    @Test
    void aPassReceivesAtMostABatchAndTheNextTakesTheRest() {
        LoopRig rig = new LoopRig(T0, 1, "share", limits(64, 100));
        LoopRig.Worker w = rig.worker(0);
        int[] left = {WorkerLoop.RECEIVE_BATCH + 3};
        WorkerLoop<String> loop = w.loopOver(new ForwardingWorkerShare<String>(w.share) {
            @Override
            public String receive() {
                return left[0] > 0 ? "r" + left[0]-- : null;
            }
        }, limits(64, 100));
        loop.begin();
        loop.end(true, false);
        assertEquals(WorkerLoop.RECEIVE_BATCH, w.connections.open(), "one batch");
        assertEquals(3, left[0], "the rest stays queued");
        loop.begin();
        loop.end(true, false);
        assertEquals(WorkerLoop.RECEIVE_BATCH + 3, w.connections.open());
    }

    @Test
    void aReceiveThatFailsIsReportedAndRetriedAtTheNextPass() {
        LoopRig rig = new LoopRig(T0, 1, "share", limits(64, 100));
        LoopRig.Worker w = rig.worker(0);
        List<String> queued = new ArrayList<>(List.of("r1"));
        boolean[] fail = {true};
        WorkerLoop<String> loop = w.loopOver(new ForwardingWorkerShare<String>(w.share) {
            @Override
            public String receive() {
                if (fail[0]) {
                    fail[0] = false;
                    throw new IllegalStateException("recvmsg: ENOMEM");
                }
                return queued.isEmpty() ? null : queued.remove(0);
            }
        }, limits(64, 100));
        loop.begin();
        assertTrue(loop.end(true, false), "the worker goes on");
        assertEquals(1, rig.failures.size(), rig.failures.toString());
        assertTrue(rig.failures.get(0).startsWith("receiving a hand-off: ")
                && rig.failures.get(0).endsWith("; retrying"), rig.failures.get(0));
        assertEquals(List.of(), w.connections.log);
        loop.begin();
        loop.end(true, false);
        assertEquals(List.of("admit r1 received"), w.connections.log, "taken at the next pass");
    }

    /** B25: a leaver forwards what arrives; with no live sibling left, it admits it rather than drop it. */
    @Test
    void aLeaverWithNoLiveSiblingServesWhatArrivesOnItsChannel() {
        LoopRig rig = new LoopRig(T0, 2, "share", limits(64, 100));
        LoopRig.Worker w0 = rig.worker(0);
        LoopRig.Worker w1 = rig.worker(1);
        assertTrue(w1.share.sendWith(0, "r1"), "a hand-off to w0, raised and queued");
        w1.loop.requestStop();
        assertFalse(w1.pass(false, false), "w1 holds nothing: gone");
        w0.connections.hold("busy");
        w0.connections.held.get(0).idle = false;
        w0.loop.requestStop();
        assertTrue(w0.pass(false, false));
        assertEquals("admit r1 received", w0.connections.log.get(0), "r1 served here: " + w0.connections.log);
        assertEquals(PageLayout.LEFT, rig.page.getVolatile(PageLayout.stateWord(1)));
    }

    /** The pass's fixed order: the stop (its hand-over of idle connections) comes before the timers. */
    @Test
    void aLeaverHandsItsIdleConnectionsOverBeforeThePassServesItsTimers() {
        LoopRig rig = new LoopRig(T0, 2, "share", limits(64, 100));
        LoopRig.Worker w0 = rig.worker(0);
        w0.connections.hold("k1");
        w0.connections.hold("k2");
        w0.connections.held.get(1).idle = false; // mid-request
        List<List<String>> logAtTimers = new ArrayList<>();
        w0.connections.deadline = T0;
        w0.connections.onExpire = () -> logAtTimers.add(List.copyOf(w0.connections.log));
        w0.loop.requestStop();
        assertTrue(w0.pass(false, false));
        assertEquals(List.of(List.of("handed over k1")), logAtTimers, "k1 was a sibling's before any timer ran");
    }

    @Test
    void aStopIsSeenAtOnceAndTheLoopIsStoppingFromItsNextPass() {
        LoopRig rig = new LoopRig(T0, 2, "share", limits(64, 100));
        LoopRig.Worker w0 = rig.worker(0);
        w0.connections.hold("busy");
        w0.connections.held.get(0).idle = false;
        assertFalse(w0.loop.stopRequested());
        assertFalse(w0.loop.stopping());
        w0.loop.requestStop();
        assertTrue(w0.loop.stopRequested(), "asked");
        assertFalse(w0.loop.stopping(), "not begun until a pass reads it");
        assertTrue(w0.pass(false, false));
        assertTrue(w0.loop.stopping(), "begun");
        assertTrue(w0.loop.stopRequested());
    }

    /** A port that reads no TLS state (plain connections only): every idle connection may move. */
    @Test
    void aPortThatReadsNoHandshakeStateHasItsConnectionsMoved() {
        LoopRig rig = new LoopRig(T0, 2, "share", limits(64, 100));
        LoopRig.Worker w0 = rig.worker(0);
        for (int k = 0; k < 4; k++) {
            w0.connections.hold("k" + k);
        }
        WorkerLoop<String> plain = new WorkerLoop<>(w0.share, w0.listener, new Plain(w0.connections), w0.channels,
                rig.clock, limits(64, 100), rig.failures::add);
        plain.start();
        plain.begin();
        plain.work();
        plain.end(false, false);
        assertEquals(List.of("moved k0"), w0.connections.log);
    }

    /** A port that reads no settled connections: a keeping worker never moves one (ADR 0059). */
    @Test
    void aPortThatReadsNoSettledConnectionsOffersNoneToMove() {
        FakeConnections fake = new FakeConnections();
        fake.holdSettled("s1");
        Plain plain = new Plain(fake);
        List<String> offered = new ArrayList<>();
        assertFalse(plain.moveSettled(c -> offered.add(c)));
        assertEquals(List.of(), offered);
        assertEquals(0, plain.settled());
        assertFalse(plain.handshakeBegun("s1"));
    }

    /** A port implementing only what it must: the interface's defaults for affinities, settled, TLS. */
    private static final class Plain implements Connections<String> {
        private final FakeConnections to;

        Plain(FakeConnections to) {
            this.to = to;
        }

        @Override
        public long open() {
            return to.open();
        }

        @Override
        public void admit(String connection, boolean received) {
            to.admit(connection, received);
        }

        @Override
        public boolean moveIdle(int affinity, boolean onlyThatKind, Predicate<? super String> send) {
            return to.moveIdle(affinity, onlyThatKind, send);
        }

        @Override
        public void leaveIdle(Predicate<? super String> handOver, BooleanSupplier keep) {
            to.leaveIdle(handOver, keep);
        }

        @Override
        public void closeAll() {
            to.closeAll();
        }

        @Override
        public long deadline() {
            return to.deadline();
        }

        @Override
        public void expire(long now) {
            to.expire(now);
        }

        @Override
        public long poolBusyNanos(long now) {
            return to.poolBusyNanos(now);
        }

        @Override
        public int poolThreads() {
            return to.poolThreads();
        }

        @Override
        public long shortCloses() {
            return to.shortCloses();
        }

        @Override
        public long reuses() {
            return to.reuses();
        }
    }
}
