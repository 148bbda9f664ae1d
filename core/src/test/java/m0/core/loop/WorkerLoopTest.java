package m0.core.loop;

import static m0.core.loop.LoopRig.MS;
import static m0.core.loop.LoopRig.limits;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import m0.core.AcceptPolicy;
import m0.core.AcceptShare;
import m0.core.AtomicLongArrayPage;
import m0.core.BusyEstimator;
import m0.core.Counts;
import m0.core.ForwardingWorkerShare;
import m0.core.Page;
import m0.core.PageLayout;
import m0.core.QueueChannel;
import m0.core.loop.FakePorts.FakeChannels;
import m0.core.loop.FakePorts.FakeConnections;
import m0.core.loop.FakePorts.FakeListener;
import m0.core.loop.LoopRig.Worker;
import org.junit.jupiter.api.Test;

/**
 * The duty cycle against fake ports over the real core: each pass's order, the accept batch and
 * its ends, the listener's interest (cap, back-off, fountain's look and HELD mark), the looks at
 * rebalance and heal, the timers, and leaving.
 */
class WorkerLoopTest {

    private static final long T0 = 1_000 * MS;

    /** Worker 0's state word as each accept finds it (the page a sibling's pick reads mid-batch). */
    private static List<String> stateAtEachAccept(LoopRig rig) {
        List<String> states = new ArrayList<>();
        rig.onAccept = () -> states.add(PageLayout.stateName(rig.page.getVolatile(PageLayout.stateWord(0))));
        return states;
    }

    @Test
    void aBatchTakesAtMostItsSizeAndPassesOnWhatALighterSiblingShouldServe() {
        LoopRig rig = new LoopRig(T0, 2, "share", limits(4, 100));
        rig.worker(0).connections.unmodelled = 3; // w0 serves 3 already: its picks prefer idle w1
        rig.backlog(6);
        assertTrue(rig.worker(0).pass(false, true));
        assertEquals(4, rig.worker(0).listener.accepts, "one batch: 4 accepts");
        assertEquals(2, rig.backlog.size(), "the rest waits for the next pass");
        assertEquals(3, rig.channel.queued(1), "w1 is lighter until it carries as much");
        assertEquals(List.of("admit c4"), rig.worker(0).connections.log, "the fourth is kept: 3 + 1 against 0 + 3");
        assertEquals(4, rig.worker(0).loop.meter().accepted());
    }

    /** Whatever ends a batch in the core (fountain's END_BATCH, a nudge), the loop stops there. */
    @Test
    void anEndBatchFromTheCoreEndsTheBatchWithNobodyToNudge() {
        LoopRig rig = new LoopRig(T0, 2, "share", limits(64, 100));
        Worker w0 = rig.worker(0);
        int[] accepts = new int[1];
        WorkerLoop<String> ending = w0.loopOver(new ForwardingWorkerShare<String>(w0.share) {
            @Override
            public int endBatch() {
                return ++accepts[0] == 2 ? AcceptPolicy.END_BATCH : AcceptPolicy.GO_ON;
            }
        }, limits(64, 100));
        rig.backlog(5);
        w0.connections.unmodelled = 0;
        rig.worker(1).connections.unmodelled = 100; // w1 is far heavier: w0 keeps what it accepts
        rig.page.getAndAdd(PageLayout.countsWord(1), Counts.activeBy(100));
        ending.begin();
        ending.end(false, true);
        assertEquals(2, w0.connections.held.size(), "the second accept's END_BATCH ends the batch");
        assertEquals(List.of(), w0.channels.nudges, "and tells nobody");
        assertEquals(3, rig.backlog.size());
    }

    /**
     * Share's gate (ADR 0041): a worker whose arrivals close short keeps what it accepts and
     * moves nothing; the reading comes at the pass's start, so the burst that wakes a worker idle
     * since a spell of churn is balanced.
     */
    @Test
    void aWorkerWhoseArrivalsCloseShortKeepsTheBurstAndOneIdleSinceBalancesIt() {
        LoopRig rig = new LoopRig(T0, 2, "share", limits(64, 100));
        Worker w0 = rig.worker(0);
        w0.connections.shortCloses = 1_000; // a window of churn, every connection closed after one request
        rig.clock.advance(m0.core.LoadShape.WINDOW_NANOS);
        w0.pass(false, false);
        assertEquals(AcceptShare.KEEPING_BIT, rig.page.getVolatile(PageLayout.busyWord(0)), "published for stats");
        assertEquals(rig.clock.nanoTime() + m0.core.LoadShape.WINDOW_NANOS, w0.loop.deadline(),
                "keeping: the loop looks again at the window's end, pass or not");
        w0.connections.shortCloses += 1_000;
        rig.clock.advance(m0.core.LoadShape.WINDOW_NANOS);
        rig.backlog(4);
        w0.pass(false, true);
        assertEquals(1, w0.connections.held.size(), "still churning: one accept a wake-up, kept (ADR 0046) ...");
        assertEquals(3, rig.backlog.size(), "... the listener stays readable for the rest");
        for (int wakeUp = 2; wakeUp <= 4; wakeUp++) {
            w0.pass(false, true);
            assertEquals(wakeUp, w0.connections.held.size(), "one more a wake-up");
        }
        assertEquals(0, rig.channel.queued(1), "all four kept, none handed off");
        assertEquals(w0.share.self(), w0.share.rebalancePick(4, 0, 0), "and nothing moved: they would close anyway");
        // The churn stops; a second later a keep-alive burst wakes it.
        rig.clock.advance(1_000 * MS);
        rig.backlog.clear();
        rig.backlog(4);
        w0.connections.held.clear();
        w0.connections.log.clear();
        w0.pass(false, true);
        assertEquals(0, rig.page.getVolatile(PageLayout.busyWord(0)), "judged at the pass's start: balancing");
        assertEquals(2, rig.channel.queued(1), "the burst is balanced: 2 passed on");
    }

    /**
     * A mixed load (ADR 0059): both workers keep, and w0 holds four settled keep-alive
     * connections and two that are not (connection-close clients in flight). Its pass moves a
     * settled one, one an interval, publishes its settled count before the pass end, and stops
     * at a gap of one, whatever its open count says.
     */
    @Test
    void aKeepingWorkerMovesSettledConnectionsOnlyAndStopsAtAGapOfOne() {
        LoopRig rig = new LoopRig(T0, 2, "share", limits(64, 100));
        List<Worker> w = rig.workers;
        Worker w0 = w.get(0);
        Worker w1 = w.get(1);
        for (Worker x : w) {
            x.connections.shortCloses = 1_000; // churn everywhere: both keep from this pass on
        }
        w0.connections.hold("churn1");
        w0.connections.hold("churn2");
        for (int k = 1; k <= 4; k++) {
            w0.connections.holdSettled("s" + k);
        }
        rig.clock.advance(MS);
        w1.pass(false, false);
        assertEquals(AcceptShare.KEEPING_BIT, rig.page.getVolatile(PageLayout.busyWord(1)), "w1 keeps, none settled");
        w0.pass(false, false);
        assertEquals(List.of("moved s1"), w0.connections.log, "a settled one, not the churn");
        assertEquals(AcceptShare.KEEPING_BIT | 3, rig.page.getVolatile(PageLayout.busyWord(0)), "3 settled, published");
        w1.connections.receiptsSettled = true; // a move carries it (m0serve: the hand-off's trailer)
        for (int k = 0; k < 5; k++) {
            w1.pass(true, false);
            rig.clock.advance(AcceptShare.REBALANCE_INTERVAL_NANOS);
            w0.workPass();
        }
        assertEquals(List.of("moved s1", "moved s2"), w0.connections.log, "3 / 1 took one more; 2 / 2 none");
        assertEquals(4, w0.connections.open(), "two settled and the two churning ones stay");
        assertEquals(0, rig.channel.queued(1) + rig.channel.queued(0), "w1 admitted both");
    }

    /**
     * The order a sibling's look relies on (ADR 0059): a receiving worker's pass end publishes
     * its settled count before it retires the receipt, so a connection moved to it is in its
     * pending or in its settled count (or both) after every write of its pass, never in neither.
     */
    @Test
    void aMovedConnectionIsInPendingOrSettledAfterEveryWrite() {
        LoopRig rig = new LoopRig(T0, 2, 16);
        AtomicLongArrayPage real = rig.page;
        List<Long> countedAfterEachWrite = new ArrayList<>();
        Page watched = new Page() {
            @Override
            public int words() {
                return real.words();
            }

            @Override
            public long getVolatile(int word) {
                return real.getVolatile(word);
            }

            @Override
            public void setVolatile(int word, long value) {
                real.setVolatile(word, value);
                counted();
            }

            @Override
            public long getAndAdd(int word, long delta) {
                long before = real.getAndAdd(word, delta);
                counted();
                return before;
            }

            @Override
            public boolean compareAndSet(int word, long expected, long value) {
                boolean set = real.compareAndSet(word, expected, value);
                counted();
                return set;
            }

            /** What a sibling's keeping look reads of worker 1 now: pending, then the settled count. */
            private void counted() {
                countedAfterEachWrite.add(Counts.pending(real.getVolatile(PageLayout.countsWord(1)))
                        + (real.getVolatile(PageLayout.busyWord(1)) & AcceptShare.SETTLED_MASK));
            }
        };
        QueueChannel<String> ch = rig.channel;
        AcceptShare<String> w0 = new AcceptShare<>(real, ch, rig.clock, AcceptPolicy.named("share"), 2, 0);
        AcceptShare<String> w1 = new AcceptShare<>(watched, ch, rig.clock, AcceptPolicy.named("share"), 2, 1);
        FakeConnections held = new FakeConnections();
        held.receiptsSettled = true;
        WorkerLoop<String> loop = new WorkerLoop<>(w1, new FakeListener(rig.backlog), held, new FakeChannels(), rig.clock,
                limits(64, 100), rig.failures::add);
        w0.bind();
        w0.start();
        w1.bind();
        loop.listen();
        loop.start();
        assertTrue(w0.rebalance(1, "s1"), "a move raised against w1 and sent");
        countedAfterEachWrite.clear();
        loop.begin();
        loop.end(true, false);
        assertEquals(List.of("admit s1 received"), held.log);
        assertFalse(countedAfterEachWrite.isEmpty());
        assertTrue(countedAfterEachWrite.stream().allMatch(n -> n >= 1),
                "after each write of the receiving pass, pending + settled: " + countedAfterEachWrite);
        assertEquals(1, countedAfterEachWrite.get(countedAfterEachWrite.size() - 1), "and once at its end");
    }

    @Test
    void receiptsAndAcceptsOfOnePassAreAllAdmittedAndThePickCountsTheReceipts() {
        LoopRig rig = new LoopRig(T0, 2, "share", limits(64, 100));
        rig.worker(0).share.sendWith(1, "r1");
        rig.worker(0).share.sendWith(1, "r2");
        rig.backlog(1);
        rig.worker(1).pass(true, true);
        assertEquals(List.of("admit r1 received", "admit r2 received"), rig.worker(1).connections.log,
                "2 received first, so the accept's pick reads 2 open here against w0's 0 ...");
        assertEquals(1, rig.channel.queued(0), "... and passes it on");
        assertEquals("c1", rig.channel.receive(0));
    }

    @Test
    void atTheCapTheListenerGoesOutUntilAConnectionClosesAndFountainSaysItIsHeld() {
        LoopRig rig = new LoopRig(T0, 2, "fountain", limits(64, 2));
        Worker w0 = rig.worker(0);
        rig.backlog(3);
        w0.pass(false, true);
        assertEquals(2, w0.connections.open());
        assertFalse(w0.listener.in, "at the cap: out of the interest set");
        assertTrue(w0.loop.interest().outFor(ListenerInterest.CAP));
        assertTrue(BusyEstimator.held(rig.page.getVolatile(PageLayout.busyWord(0))), "HELD on its busy word");
        assertEquals(1, rig.failures.size(), "said once");
        assertTrue(rig.failures.get(0).startsWith("at --max-connections 2"), rig.failures.get(0));
        assertTrue(rig.worker(1).share.takeListener(true), "w1 takes at once: a head at its cap is not taking");
        w0.pass(false, false);
        assertFalse(w0.listener.in, "still at the cap");
        w0.connections.held.remove(0); // a connection closed
        w0.pass(false, false);
        assertTrue(w0.listener.in, "back in");
        assertFalse(BusyEstimator.held(rig.page.getVolatile(PageLayout.busyWord(0))), "and no longer held");
        assertFalse(rig.worker(1).share.takeListener(true), "w0 is the head again");
    }

    @Test
    void outOfDescriptorsTakesTheListenerOutForAHundredMilliseconds() {
        LoopRig rig = new LoopRig(T0, 2, "fountain", limits(64, 100));
        Worker w0 = rig.worker(0);
        rig.backlog(1);
        w0.listener.emfile = true;
        w0.pass(false, true);
        assertFalse(w0.listener.in);
        assertTrue(BusyEstimator.held(rig.page.getVolatile(PageLayout.busyWord(0))), "held while backing off");
        assertTrue(rig.failures.get(0).contains("EMFILE") && rig.failures.get(0).contains("100 ms"), rig.failures.get(0));
        assertEquals(T0 + WorkerLoop.ACCEPT_BACKOFF_NANOS, w0.loop.interest().wakeAt(), "a wake-up at the back-off's end");
        w0.listener.emfile = false;
        rig.clock.advance(WorkerLoop.ACCEPT_BACKOFF_NANOS - 1);
        w0.pass(false, false);
        assertFalse(w0.listener.in, "not yet");
        rig.clock.advance(1);
        w0.pass(false, false);
        assertTrue(w0.listener.in, "the back-off is over");
        assertFalse(BusyEstimator.held(rig.page.getVolatile(PageLayout.busyWord(0))));
    }

    @Test
    void theAcceptThatTurnsAFountainWorkerFullEndsTheBatchAndNudgesTheNextFreeWorker() {
        LoopRig rig = new LoopRig(T0, 3, "fountain", limits(64, 100));
        Worker w0 = rig.worker(0);
        rig.backlog(20);
        w0.pass(false, true);
        assertEquals(9, w0.connections.open(), "the ninth at once makes it full: the batch ends there");
        assertEquals(List.of(1), w0.channels.nudges, "w1 is told to look now");
        assertEquals(11, rig.backlog.size());
    }

    @Test
    void aNudgeMakesTheLookDueInTheSamePass() {
        LoopRig rig = new LoopRig(T0, 2, "fountain", limits(64, 100));
        Worker w1 = rig.worker(1);
        rig.backlog(1);
        w1.pass(false, true); // w0 is free: w1 leaves the listener to it
        assertFalse(w1.listener.in);
        assertEquals(T0 + MS, w1.loop.interest().wakeAt(), "looks again in 1 ms");
        w1.channels.nudged = true;
        w1.pass(true, false);
        assertEquals(List.of("in", "out", "poll"), w1.listener.events, "the look ran at once, not 1 ms later");
    }

    @Test
    void aHealAReapAskedForIsLookedAtEveryPassWithoutAnEvent() {
        LoopRig rig = new LoopRig(T0, 2, "share", limits(64, 100));
        // A sender raised pending[1] and died before its send; the reap asks w1 to heal.
        rig.page.getAndAdd(PageLayout.countsWord(1), Counts.RAISE);
        rig.page.getAndAdd(PageLayout.countsWord(1), Counts.HEAL + Counts.VERSION_ONE);
        assertEquals(1, Counts.inFlight(rig.page.getVolatile(PageLayout.countsWord(1))));
        rig.worker(1).pass(false, false); // woken by the heal look's timeout, nothing else
        long counts = rig.page.getVolatile(PageLayout.countsWord(1));
        assertEquals(0, Counts.inFlight(counts), "the orphan is taken off");
        assertFalse(Counts.healRequested(counts));
    }

    @Test
    void rebalanceLooksAtAPassEndAfterWorkAndOnItsTickOtherwise() {
        LoopRig rig = new LoopRig(T0, 2, "share", limits(64, 100));
        Worker w0 = rig.worker(0);
        for (int k = 0; k < 4; k++) {
            w0.connections.hold("k" + k);
        }
        w0.workPass();
        assertEquals(1, rig.channel.queued(1), "4 against 0: a pass with work looks, and one moves");
        assertEquals(T0 + AcceptShare.REBALANCE_INTERVAL_NANOS, T0 + w0.loop.timeout(),
                "the next look after the interval");
        w0.pass(false, false);
        assertEquals(1, rig.channel.queued(1), "too soon: one a 2 ms");
        rig.clock.advance(AcceptShare.REBALANCE_INTERVAL_NANOS);
        w0.pass(false, false);
        assertEquals(2, rig.channel.queued(1), "3 against 1 counted in w1's pending: a second moves");
        rig.clock.advance(AcceptShare.REBALANCE_INTERVAL_NANOS);
        w0.pass(false, false);
        assertEquals(2, rig.channel.queued(1), "2 against 2: none");
        assertEquals(WorkerLoop.REBALANCE_TICK_NANOS, w0.loop.timeout(), "a tick away while it holds two");
    }

    /**
     * Issue 44: a rebalance send that throws (after the descriptor left epoll, in m0serve) keeps
     * the connection where it is, served, with the counts as they were; the next look moves it.
     */
    @Test
    void aRebalanceSendThatThrowsKeepsTheConnectionAndTheCounts() {
        LoopRig rig = new LoopRig(T0, 2, "share", limits(64, 100));
        Worker w0 = rig.worker(0);
        for (int k = 0; k < 4; k++) {
            w0.connections.hold("k" + k);
        }
        rig.sendThrows = true;
        assertTrue(w0.workPass(), "the pass ends as any: the worker goes on");
        assertEquals(List.of(), w0.connections.log, "nothing moved, nothing closed");
        assertEquals(4, w0.connections.held.size(), "all four still held and served here");
        assertEquals(0, rig.channel.queued(1));
        assertEquals(0, Counts.inFlight(rig.page.getVolatile(PageLayout.countsWord(1))), "w1's raise taken back");
        assertEquals(0, rig.page.getVolatile(PageLayout.sendingWord(0)), "no send left marked in flight");
        assertEquals(4, Counts.active(rig.page.getVolatile(PageLayout.countsWord(0))), "w0 publishes the four it holds");
        assertEquals(0, w0.share.rebalancedCount());
        assertTrue(rig.failures.stream().anyMatch(f -> f.startsWith("moving a connection to worker 1: ")), rig.failures.toString());
        rig.sendThrows = false;
        assertEquals(WorkerLoop.REBALANCE_TICK_NANOS, w0.loop.timeout(), "the next look a tick away, as after no move");
        rig.clock.advance(WorkerLoop.REBALANCE_TICK_NANOS);
        w0.pass(false, false);
        assertEquals(List.of("moved k0"), w0.connections.log, "the kept one moves at the next look");
        assertEquals(1, rig.channel.queued(1));
        assertEquals(1, w0.share.rebalancedCount());
    }

    /**
     * ADR 0069: a connection whose TLS handshake began here is never moved by rebalance, even
     * when the port offers it (the fake offers the first idle one); 4/0 stays 4/0, no raise.
     */
    @Test
    void rebalanceNeverMovesAConnectionWhoseHandshakeBegan() {
        LoopRig rig = new LoopRig(T0, 2, "share", limits(64, 100));
        Worker w0 = rig.worker(0);
        for (int k = 0; k < 4; k++) {
            w0.connections.holdTls("t" + k);
        }
        w0.workPass();
        rig.clock.advance(AcceptShare.REBALANCE_INTERVAL_NANOS);
        w0.workPass();
        assertEquals(0, rig.channel.queued(1), "nothing sent to w1");
        assertEquals(List.of(), w0.connections.log, "nothing moved, nothing closed");
        assertEquals(4, w0.connections.held.size(), "all four served where their handshake ran");
        assertEquals(0, Counts.inFlight(rig.page.getVolatile(PageLayout.countsWord(1))), "no raise against w1");
        assertEquals(0, w0.share.rebalancedCount());
    }

    /** ADR 0069: a leaver hands its plain idle connection over, never its TLS one. */
    @Test
    void aLeaverNeverHandsOverAConnectionWhoseHandshakeBegan() {
        LoopRig rig = new LoopRig(T0, 2, "share", limits(64, 100));
        Worker w0 = rig.worker(0);
        w0.connections.holdTls("t1");
        w0.connections.hold("k1");
        w0.loop.requestStop();
        w0.pass(false, false);
        assertEquals(List.of("handed over k1"), w0.connections.log, "only the plain one");
        assertEquals("k1", rig.channel.receive(1));
        assertEquals(null, rig.channel.receive(1), "t1 never queued");
        assertTrue(w0.connections.held.stream().anyMatch(h -> h.name.equals("t1")), "t1 still served here");
    }

    /**
     * The same for a leaver's hand-over: a throwing send is a refusal, so the connection is kept
     * and served while the sibling is live (ADR 0021's wait), and handed over at a later step.
     */
    @Test
    void aHandOverSendThatThrowsKeepsTheConnectionForTheNextStep() {
        LoopRig rig = new LoopRig(T0, 2, "share", limits(64, 100));
        Worker w0 = rig.worker(0);
        w0.connections.hold("k1");
        rig.sendThrows = true;
        w0.loop.requestStop();
        assertTrue(w0.pass(false, false), "still holding k1: the leave goes on");
        assertEquals(List.of(), w0.connections.log, "neither handed over nor closed: kept");
        assertEquals(1, w0.connections.held.size());
        assertEquals(0, rig.channel.queued(1));
        assertEquals(0, Counts.inFlight(rig.page.getVolatile(PageLayout.countsWord(1))), "w1's raise taken back");
        assertTrue(rig.failures.stream().anyMatch(f -> f.startsWith("handing a connection over: ")), rig.failures.toString());
        rig.sendThrows = false;
        rig.clock.advance(WorkerLoop.STOP_POLL_NANOS);
        assertFalse(w0.pass(false, false), "handed over at the next step, nothing held: exit");
        assertEquals(List.of("handed over k1"), w0.connections.log);
        assertEquals("k1", rig.channel.receive(1));
    }

    /**
     * Two sharing workers, each holding one connection of each client's kind (w0: a0, b0; w1:
     * b1, a1; "a" pairs with w0), both loads published as at earlier pass ends: 2 against 2.
     */
    private static LoopRig crossed() {
        LoopRig rig = new LoopRig(T0, 2, "share", limits(64, 100));
        List<Worker> w = rig.workers;
        w.get(0).connections.hold("a0", 0);
        w.get(0).connections.hold("b0", 1);
        w.get(1).connections.hold("b1", 1);
        w.get(1).connections.hold("a1", 0);
        for (Worker x : w) {
            x.share.passStart();
            x.share.passEnd(2);
        }
        return rig;
    }

    /**
     * The swap (ADR 0057) through the loop: a pass end publishes what the connections hold as
     * the AFFINE mark; with loads even and both sides marked, the look moves one of the kind
     * the core names, not the first idle one.
     */
    @Test
    void aPassPublishesItsAffinitiesAndASwapMovesOneOfTheTargetsKind() {
        LoopRig rig = crossed();
        Worker w0 = rig.worker(0);
        Worker w1 = rig.worker(1);
        w1.pass(false, false);
        assertEquals(PageLayout.affineBit(0), rig.page.getVolatile(PageLayout.affineWord(1)),
                "w1 marks w0's client's connection, never its own kind");
        w0.pass(false, false);
        assertEquals(List.of("moved b0"), w0.connections.log, "2 against 2, both marked: w0 hands over B's, not a0");
        assertEquals(0, rig.page.getVolatile(PageLayout.affineWord(0)), "w0 now holds only its own kind");
        assertEquals("b0", rig.channel.receive(1));
    }

    /** A swap whose kind is busy waits for it: any other idle one would be one already placed. */
    @Test
    void aSwapWhoseKindIsBusyMovesNothing() {
        LoopRig rig = crossed();
        Worker w0 = rig.worker(0);
        Worker w1 = rig.worker(1);
        w0.connections.held.get(1).idle = false; // b0, mid-request
        w1.share.publishAffinities(PageLayout.affineBit(0));
        w0.pass(false, false);
        assertEquals(List.of(), w0.connections.log, "a0 is idle, but it is w0's own kind");
        assertEquals(0, rig.channel.queued(1));
    }

    @Test
    void theWaitEndsAtTheEarliestTimerAndAtMostASecondWhileSharing() {
        LoopRig rig = new LoopRig(T0, 2, "share", limits(64, 100));
        Worker w0 = rig.worker(0);
        assertEquals(0, w0.loop.timeout(), "a rebalance look at the first pass");
        w0.pass(false, false);
        assertEquals(WorkerLoop.HEAL_LOOK_NANOS, w0.loop.timeout(), "nothing to move, no timer: the heal look");
        w0.connections.deadline = T0 + 7 * MS;
        assertEquals(7 * MS, w0.loop.timeout());
        List<Worker> one = new ArrayList<>();
        Worker alone = new LoopRig(T0, 1, 4).unstarted(0, "share", limits(64, 100));
        alone.loop.start();
        assertEquals(-1, alone.loop.timeout(), "one worker shares nothing: no timer at all");
        assertTrue(one.isEmpty());
    }

    @Test
    void fountainWakesForASampleEvery20ms() {
        LoopRig rig = new LoopRig(T0, 2, "fountain", limits(64, 100));
        Worker w0 = rig.worker(0);
        assertEquals(0, w0.loop.timeout(), "the first pass end gives the estimator its baseline");
        w0.pass(false, false);
        assertEquals(BusyEstimator.SAMPLE_NANOS, w0.loop.timeout());
    }

    @Test
    void busyTimeIsEachPassFromItsWakeUpToItsEnd() {
        LoopRig rig = new LoopRig(T0, 2, "share", limits(64, 100));
        Worker w0 = rig.worker(0);
        w0.loop.begin();
        rig.clock.advance(3 * MS); // serving
        w0.loop.end(false, false);
        rig.clock.advance(10 * MS); // waiting
        w0.loop.begin();
        rig.clock.advance(MS);
        w0.loop.end(false, false);
        assertEquals(4 * MS, w0.loop.meter().busyNanos());
        assertEquals(2, w0.loop.meter().wakeups());
    }

    @Test
    void aWakeUpThatAcceptsNothingIsCountedEmptyAndStampsNothing() {
        LoopRig rig = new LoopRig(T0, 2, "share", limits(64, 100));
        Worker w0 = rig.worker(0);
        w0.loop.begin();
        w0.loop.end(false, true); // a sibling took it first
        assertEquals(1, w0.loop.meter().emptyWakeups());
        assertEquals(PageLayout.PARKED, rig.page.getVolatile(PageLayout.stateWord(0)), "busy means busy");
    }

    @Test
    void underShareAPassThatOnlyAcceptsStaysParkedToItsSiblingsPicks() {
        // ADR 0052: an accept runs no view; descheduled mid-batch, the acceptor must not read as
        // a slow inline view. Its kept accepts are in its counts at once.
        LoopRig rig = new LoopRig(T0, 2, "share", limits(64, 100));
        List<String> stateAtAccept = stateAtEachAccept(rig);
        rig.backlog(3);
        rig.worker(0).pass(false, true);
        assertEquals(List.of("PARKED", "PARKED", "PARKED"), stateAtAccept);
        assertEquals(PageLayout.PARKED, rig.page.getVolatile(PageLayout.stateWord(0)), "and after the pass");
        assertEquals(2, Counts.active(rig.page.getVolatile(PageLayout.countsWord(0))), "the two it kept, published");
        assertEquals(1, Counts.pending(rig.page.getVolatile(PageLayout.countsWord(1))), "one passed on");
    }

    @Test
    void underShareAPassThatOnlyReceivesStaysParkedToItsSiblingsPicks() {
        LoopRig rig = new LoopRig(T0, 2, "share", limits(64, 100));
        rig.backlog(2);
        rig.worker(0).pass(false, true); // keeps one, passes one on
        Worker w1 = rig.worker(1);
        List<String> seen = new ArrayList<>();
        w1.connections.onAdmit = () -> seen.add(PageLayout.stateName(rig.page.getVolatile(PageLayout.stateWord(1))));
        w1.pass(true, false);
        assertEquals(List.of("PARKED"), seen, "a receipt runs no view (ADR 0052)");
        assertEquals(List.of("admit c2 received"), w1.connections.log);
        assertEquals(PageLayout.PARKED, rig.page.getVolatile(PageLayout.stateWord(1)), "and after the pass");
    }

    @Test
    void underShareAReceiptOnlyPassStillLooksAtRebalanceAtItsEnd() {
        LoopRig rig = new LoopRig(T0, 3, "share", limits(64, 100));
        Worker w1 = rig.worker(1);
        w1.pass(false, false); // the look that start makes due: nothing held, so no tick after it
        for (int k = 0; k < 3; k++) {
            w1.connections.hold("k" + k);
        }
        assertTrue(rig.worker(2).share.sendWith(1, "x"), "a hand-off to w1, raised and queued");
        w1.pass(true, false);
        assertEquals(List.of("admit x received", "moved k0"), w1.connections.log,
                "4 against 0: the look after the receipt moves one");
        assertEquals(1, rig.channel.queued(0) + rig.channel.queued(2));
    }

    @Test
    void underShareAnAcceptOnlyPassStillLooksAtRebalanceAtItsEnd() {
        LoopRig rig = new LoopRig(T0, 2, "share", limits(64, 100));
        Worker w0 = rig.worker(0);
        w0.pass(false, false); // the look that start makes due: nothing held, so no tick after it
        for (int k = 0; k < 4; k++) {
            w0.connections.hold("k" + k);
        }
        rig.backlog(1);
        w0.pass(false, true);
        assertEquals(2, rig.channel.queued(1), "the accept passed on (4 against 0), then 4 against 1: the look moves one");
    }

    @Test
    void underShareAPassWithAViewIsStampedBeforeItsAccepts() {
        LoopRig rig = new LoopRig(T0, 2, "share", limits(64, 100));
        List<String> stateAtAccept = stateAtEachAccept(rig);
        rig.backlog(2);
        Worker w0 = rig.worker(0);
        w0.loop.begin();
        w0.loop.work(); // a request answered inline, then the listener's batch
        w0.loop.end(false, true);
        assertEquals(List.of("IN_PASS@" + T0, "IN_PASS@" + T0), stateAtAccept);
    }

    @Test
    void underFountainAnAcceptStampsThePassSoAStuckHeadIsTakenOver() {
        LoopRig rig = new LoopRig(T0, 2, "fountain", limits(64, 100));
        List<String> stateAtAccept = stateAtEachAccept(rig);
        rig.backlog(2);
        rig.worker(0).pass(false, true);
        assertEquals(List.of("PARKED", "IN_PASS@" + T0), stateAtAccept, "stamped at its first accept");
    }

    /** ADR 0069, addendum: a handshake is admission work. Under share it leaves the pass unstamped, so the accepts see PARKED. */
    @Test
    void underShareAPassOfHandshakesIsNoViewToItsSiblings() {
        assertEquals(List.of("PARKED", "PARKED"), statesAtAcceptsAfterAHandshake("share"));
    }

    /** Under fountain an admission is busy (ADR 0019), and so is a handshake: stamped before the accepts. */
    @Test
    void underFountainAPassWithAHandshakeIsStampedBeforeItsAccepts() {
        assertEquals(List.of("IN_PASS@" + T0, "IN_PASS@" + T0), statesAtAcceptsAfterAHandshake("fountain"));
    }

    /** Worker 0's state at each of two accepts in a pass that ran a handshake first. */
    private static List<String> statesAtAcceptsAfterAHandshake(String policy) {
        LoopRig rig = new LoopRig(T0, 2, policy, limits(64, 100));
        List<String> stateAtAccept = stateAtEachAccept(rig);
        rig.backlog(2);
        Worker w0 = rig.worker(0);
        w0.loop.begin();
        w0.loop.handshaking();
        w0.loop.end(false, true);
        return stateAtAccept;
    }

    /** Before start (the warm-up) the index is not yet the worker's: a handshake stamps nothing on it. */
    @Test
    void aHandshakeBeforeStartStampsNothing() {
        LoopRig rig = new LoopRig(T0, 2, 4);
        long before = rig.page.getVolatile(PageLayout.stateWord(0));
        Worker w0 = rig.unstarted(0, "fountain", limits(64, 100));
        w0.loop.begin();
        w0.loop.handshaking();
        w0.loop.end(false, false);
        assertEquals(before, rig.page.getVolatile(PageLayout.stateWord(0)));
    }

    /** A window of churn on worker {@code w}: every connection closed after one request. */
    private static void churn(Worker w) {
        w.connections.shortCloses += 1_000;
    }

    private List<String> deferrals(Worker w) {
        return w.listener.events.stream().filter(e -> e.endsWith("defer")).toList();
    }

    /**
     * ADR 0056: a loop told to defer on churn asks the listener to hold connections back until
     * their request only while every live worker keeps; it says so at start (a cold start
     * balances), when its wish changes, and again once a re-ask period, never more often.
     */
    @Test
    void theListenerDefersOnlyWhileEveryWorkerKeeps() {
        LoopRig rig = LoopRig.deferring(T0, 2, "share", limits(64, 100));
        List<Worker> w = rig.workers;
        Worker w0 = w.get(0);
        Worker w1 = w.get(1);
        for (Worker started : w) {
            assertEquals(List.of("no-defer"), deferrals(started), "a cold start balances, and says so");
        }
        churn(w0);
        rig.clock.advance(m0.core.LoadShape.WINDOW_NANOS - 1);
        w0.pass(false, false);
        rig.clock.advance(1);
        w0.pass(false, false);
        assertEquals(AcceptShare.KEEPING_BIT, rig.page.getVolatile(PageLayout.busyWord(0)), "w0 keeps ...");
        assertEquals(List.of("no-defer", "no-defer"), deferrals(w0),
                "... but w1 balances: no deferral, said again a re-ask period after the last");
        churn(w1);
        rig.clock.advance(m0.core.LoadShape.WINDOW_NANOS / 2); // w1's window is over, w0's re-ask not due
        w1.pass(false, false);
        assertEquals(List.of("no-defer", "defer"), deferrals(w1), "both keep: the one that saw it asks at once");
        w0.pass(false, false);
        assertEquals(List.of("no-defer", "no-defer", "defer"), deferrals(w0), "and so does the other");
        w0.pass(false, false);
        w1.pass(false, false);
        assertEquals(3, deferrals(w0).size(), "not every pass");
        // w1's arrivals turn keep-alive: a reuse for every short close.
        w1.connections.shortCloses += 1_000;
        w1.connections.reuses += 1_000;
        rig.clock.advance(m0.core.LoadShape.WINDOW_NANOS);
        w1.pass(false, false);
        assertEquals(0, rig.page.getVolatile(PageLayout.busyWord(1)), "w1 balances again");
        assertEquals(List.of("no-defer", "defer", "no-defer"), deferrals(w1), "so it turns the deferral off ...");
        churn(w0);
        w0.pass(false, false);
        assertEquals("no-defer", deferrals(w0).get(deferrals(w0).size() - 1), "... and w0, still keeping, agrees");
    }

    /**
     * The socket is shared: a setting made on a stale page by a sibling that then died, stopped or
     * left is put right by a live worker that re-sends its unchanged wish once a re-ask period.
     */
    @Test
    void anUnchangedWishIsSentAgainOnceAReAskPeriod() {
        LoopRig rig = LoopRig.deferring(T0, 2, "share", limits(64, 100));
        Worker w1 = rig.worker(1);
        assertEquals(List.of("no-defer"), deferrals(w1), "said at start");
        // w0 read a stale page, set the listener deferring, and was SIGKILLed: nothing says so.
        rig.clock.advance(ListenerDeferral.REASK_NANOS - 1);
        w1.pass(false, false);
        assertEquals(List.of("no-defer"), deferrals(w1), "within the period: not said again");
        rig.clock.advance(1);
        w1.pass(false, false);
        assertEquals(List.of("no-defer", "no-defer"), deferrals(w1), "the period over: the same wish, sent again");
    }

    /** A leaver's copy of the listener is closed: nothing is asked of it after that. */
    @Test
    void aLeaverAsksNothingOfTheListenerItClosed() {
        LoopRig rig = LoopRig.deferring(T0, 2, "share", limits(64, 100));
        Worker w0 = rig.worker(0);
        rig.page.setVolatile(PageLayout.busyWord(1), AcceptShare.KEEPING_BIT); // w1 keeps, as it would publish
        churn(w0);
        rig.clock.advance(m0.core.LoadShape.WINDOW_NANOS);
        w0.pass(false, false);
        assertEquals(List.of("no-defer", "defer"), deferrals(w0));
        w0.connections.hold("k1");
        w0.connections.held.get(0).idle = false; // mid-request: the leaver drains over several passes
        w0.loop.requestStop();
        w0.pass(false, false);
        for (int k = 0; k < 4; k++) {
            rig.clock.advance(ListenerDeferral.REASK_NANOS);
            w0.pass(false, false);
        }
        List<String> events = w0.listener.events;
        assertEquals(List.of(), events.subList(events.indexOf("close"), events.size()).stream()
                .filter(e -> e.endsWith("defer")).toList(), "no setsockopt on a closed descriptor: " + events);
    }

    @Test
    void withoutTheRuleTheListenerIsNeverAskedAndNeitherIsItUnderFountainOrRace() {
        LoopRig rig = new LoopRig(T0, 2, "share", limits(64, 100));
        Worker w0 = rig.worker(0);
        churn(w0);
        churn(rig.worker(1));
        rig.clock.advance(m0.core.LoadShape.WINDOW_NANOS);
        rig.worker(1).pass(false, false);
        w0.pass(false, false);
        assertEquals(List.of(), deferrals(w0), "a loop not told to (--defer-accept 0 or N)");
        for (String policy : List.of("fountain", "race")) {
            LoopRig other = new LoopRig(T0, 2, policy, limits(64, 100));
            Worker f = other.worker(0);
            f.loop.deferOnChurn();
            churn(f);
            other.clock.advance(m0.core.LoadShape.WINDOW_NANOS);
            f.pass(false, false);
            assertEquals(List.of(), deferrals(f), policy + " judges no shape");
        }
    }

    /** A replacement on an index whose predecessor kept starts balancing, and reads so to its siblings. */
    @Test
    void aPredecessorsKeepingDiesWithIt() {
        LoopRig rig = new LoopRig(T0, 2, 16);
        rig.page.setVolatile(PageLayout.busyWord(0), AcceptShare.KEEPING_BIT); // as the dead w0 left it
        Worker sibling = rig.unstarted(1, "share", limits(64, 100));
        sibling.share.bind();
        sibling.loop.start();
        Worker replacement = rig.unstarted(0, "share", limits(64, 100));
        replacement.share.bind();
        replacement.loop.start();
        assertEquals(0, rig.page.getVolatile(PageLayout.busyWord(0)), "a cold start balances");
        churn(sibling);
        rig.clock.advance(m0.core.LoadShape.WINDOW_NANOS);
        sibling.pass(false, false);
        assertFalse(sibling.share.keepingEverywhere(), "the replacement's arrivals are not known to close short");
    }

    @Test
    void leavingStoresLeftClosesTheListenerHandsOverIdleConnectionsDrainsAndExitsEmpty() {
        LoopRig rig = new LoopRig(T0, 2, "share", limits(64, 100));
        Worker w0 = rig.worker(0);
        w0.connections.hold("k1");
        w0.connections.hold("k2");
        w0.connections.held.get(1).idle = false; // mid-request
        w0.loop.requestStop();
        assertTrue(w0.pass(false, false), "a request is still in flight");
        assertEquals(PageLayout.LEFT, rig.page.getVolatile(PageLayout.stateWord(0)));
        assertEquals(List.of("out", "close"), w0.listener.events.subList(1, 3), "out of the set, then closed");
        assertEquals(List.of("handed over k1"), w0.connections.log);
        assertEquals("k1", rig.channel.receive(1), "to the live sibling");
        assertEquals(WorkerLoop.STOP_POLL_NANOS, w0.loop.timeout());
        w0.connections.held.get(0).idle = true; // answered
        assertFalse(w0.pass(false, false), "nothing held, nothing in flight: exit");
        assertEquals("k2", rig.channel.receive(1));
        assertFalse(w0.channels.watching, "its channel is let go of");
    }

    @Test
    void aFountainLeaverClosesItsIdleConnectionsEstablishedConnectionsNeverMove() {
        LoopRig rig = new LoopRig(T0, 2, "fountain", limits(64, 100));
        Worker w0 = rig.worker(0);
        w0.connections.hold("k1");
        w0.loop.requestStop();
        assertFalse(w0.pass(false, false));
        assertEquals(List.of("close k1"), w0.connections.log);
        assertEquals(0, rig.channel.queued(1));
    }

    @Test
    void theGracePeriodClosesWhatIsStillOpen() {
        LoopRig rig = new LoopRig(T0, 2, "share", new WorkerLoop.Limits(64, 100, 50 * MS));
        Worker w0 = rig.worker(0);
        w0.connections.hold("slow");
        w0.connections.held.get(0).idle = false;
        w0.loop.requestStop();
        assertTrue(w0.pass(false, false));
        rig.clock.advance(50 * MS);
        assertFalse(w0.pass(false, false));
        assertEquals(List.of("close slow"), w0.connections.log);
    }

    @Test
    void theConnectionsTimersRunWhenDue() {
        LoopRig rig = new LoopRig(T0, 2, "share", limits(64, 100));
        Worker w0 = rig.worker(0);
        w0.connections.deadline = T0 + 5 * MS;
        w0.pass(false, false);
        assertEquals(0, w0.connections.expired);
        rig.clock.advance(5 * MS);
        w0.pass(false, false);
        assertEquals(1, w0.connections.expired);
    }
}
