package m0.lincheck;

import m0.core.AcceptPolicy;
import m0.core.GiveUp;
import m0.core.PageLayout;
import m0.core.SupervisorShare;

/**
 * The seed's corrections as concurrent test bodies over the real core: each builds a
 * {@link World}, starts its actors as threads, joins them, lets the live workers run one last
 * pass (quiescence) and checks the oracles. {@code mutant} swaps in the one historical
 * operation from {@link Mutants}; everything else is the core.
 *
 * <p>Each body is what {@code Lincheck.runConcurrentTest} model-checks: Lincheck controls the
 * threads started here and explores their interleavings at every port access.
 */
final class Scenarios {

    /** Channel capacity: room for every hand-off a scenario makes (refusal is unit-tested in core). */
    static final int CAPACITY = 4;
    /** Bound on a drain loop's steps (a drain that ignored its time bound would hit it). */
    static final int MAX_DRAIN_STEPS = 200;
    /** A drain's wait between steps, when time passes at all (see {@link World#advanceIfAlone}). */
    static final long DRAIN_WAIT_NANOS = 50_000_000L;

    private Scenarios() {
    }

    /**
     * R5: worker 0 passes a fresh accept to worker 1 while worker 1 runs a pass that can
     * receive and retire it. Pending must never drop below what is in flight (checked at
     * every step) and must settle to 0.
     */
    static void r5(boolean mutant) {
        World w = new World(2, CAPACITY);
        World.Actor a0 = w.actor("worker0", 0);
        World.Actor a1 = w.actor("worker1", 1);
        Worker w0 = new Worker(w, a0, 1);
        Worker w1 = new Worker(w, a1, 0);
        w.run(a0, w0.share::start);
        w.run(a1, w1.share::start);
        Worker.Sender sender = mutant ? Mutants.R5_SEND_THEN_RAISE : Worker.CORE;

        join(spawn(w, a0, () -> w0.acceptPass(sender)),
                spawn(w, a1, w1::pass));

        w.run(a0, w0::pass);
        w.run(a1, w1::pass);
        w.assertQuiescent(0, 1);
    }

    /**
     * B25, send side: worker 0 passes a fresh accept to worker 1 while worker 1 leaves. Every
     * connection handed off must be served or forwarded: nothing may be left in the channel
     * of a worker that has left.
     */
    static void b25Send(boolean mutant) {
        World w = new World(2, CAPACITY);
        World.Actor a0 = w.actor("worker0", 0);
        World.Actor a1 = w.actor("worker1", 1);
        Worker w0 = new Worker(w, a0, 1);
        Worker w1 = new Worker(w, a1, 0);
        w.run(a0, w0.share::start);
        w.run(a1, w1.share::start);
        Worker.Sender sender = mutant ? Mutants.B25_NO_RECHECK : Worker.CORE;

        join(spawn(w, a0, () -> w0.acceptPass(sender)),
                spawn(w, a1, () -> leave(w, w1)));

        w.run(a0, w0::pass);
        w.assertQuiescent(0);
    }

    /**
     * B25, idle side: as {@link #b25Send}, with the core's sender, but the question is what
     * the leaver does with a hand-off its drain receives: while worker 0 serves, it must be
     * forwarded there, never admitted and closed unanswered.
     */
    static void b25Idle(boolean mutant) {
        World w = new World(2, CAPACITY);
        World.Actor a0 = w.actor("worker0", 0);
        World.Actor a1 = w.actor("worker1", 1);
        Worker w0 = new Worker(w, a0, 1);
        Worker w1 = new Worker(w, a1, 0);
        w.run(a0, w0.share::start);
        w.run(a1, w1.share::start);

        join(spawn(w, a0, () -> w0.acceptPass(Worker.CORE)),
                spawn(w, a1, () -> {
                    if (mutant) {
                        Mutants.leaveClosingIdle(w1, MAX_DRAIN_STEPS);
                    } else {
                        leave(w, w1);
                    }
                }));

        w.run(a0, w0::pass);
        w.assertQuiescent(0);
    }

    /**
     * Port accesses worker 1's first life makes in {@link #taken}, at most: its death points.
     * The connection taken in the first pass: passStart 1, receive 3, passEnd 4, then passStart
     * 1 and a receive 1.
     */
    static final int TAKEN_DEATH_POINTS = 10;

    /**
     * TAKEN: worker 1 runs a pass and the receiving half of a second while worker 0 passes it a
     * connection, and dies before that second pass retires what it took, or earlier, at its
     * {@code killAt}-th port access (-1: no earlier death); the supervisor reaps it and a
     * replacement binds and starts at index 1. After the takeover pending must be back to 0,
     * save the raises the death orphaned (killed between a receive and its {@code taken += 1},
     * or between the two words of a retire: taken is lowered first, so those err high, and the
     * oracle counts them from what the dead actor did).
     */
    static void taken(boolean mutant, int killAt) {
        World w = new World(2, CAPACITY);
        World.Actor a0 = w.actor("worker0", 0);
        World.Actor first = w.actor("worker1", 1);
        World.Actor sup = w.actor("supervisor", -1);
        World.Actor second = w.actor("worker1'", 1);
        Worker w0 = new Worker(w, a0, 1);
        Worker w1 = new Worker(w, first, 0);
        Worker replacement = new Worker(w, second, 0);
        SupervisorShare<Conn> supervisor = new SupervisorShare<>(sup.page, sup.channel, w.clock(), 2, true);
        w.run(a0, w0.share::start);
        w.run(first, w1.share::start);
        if (killAt >= 0) {
            w.killAfter(first, killAt);
        }

        join(spawn(w, a0, () -> w0.acceptPass(Worker.CORE)),
                spawn(w, first, () -> {
                    w.run(first, () -> {
                        w1.pass();
                        w1.share.passStart();
                        w1.drain();
                        // ...and dies here at the latest: between taking and retiring
                    });
                    w.die(first);
                    w.run(sup, () -> supervisor.markReaped(1));
                    w.reaped(1);
                    w.respawned(1);
                    w.run(second, () -> {
                        replacement.share.bind();
                        if (mutant) {
                            Mutants.startKeepingTaken(replacement);
                        } else {
                            replacement.share.start();
                        }
                        replacement.pass();
                    });
                }));

        w.run(a0, w0::pass);
        w.run(second, replacement::pass);
        w.assertQuiescent(0, 1);
    }

    /**
     * Port accesses worker 0 makes in {@link #senderDeath}, at most: its death points. passStart
     * 1, pick 5, sendWith 3, a drain that gets the connection forwarded back 3, passEnd 4.
     */
    static final int SENDER_DEATH_POINTS = 16;

    /**
     * A sender killed at its {@code killAt}-th port access, anywhere in a pass that passes a
     * connection to worker 1, while worker 1 leaves and drains. Killed between its raise and its
     * send (or its take-back), it orphans the raise: pending[1] stays one high, the leaver's
     * drain waits for it until its bound (time passes once nobody else can act), and the oracle
     * accepts exactly that one raise. The supervisor then reaps worker 0 and a replacement takes
     * index 0 over. Nothing may be stranded, and pending may never be below what is in flight.
     */
    static void senderDeath(int killAt) {
        World w = new World(2, CAPACITY);
        World.Actor a0 = w.actor("worker0", 0);
        World.Actor a1 = w.actor("worker1", 1);
        Worker w0 = new Worker(w, a0, 1);
        Worker w1 = new Worker(w, a1, 0);
        w.run(a0, w0.share::start);
        w.run(a1, w1.share::start);
        w.killAfter(a0, killAt);

        join(spawn(w, a0, () -> w0.acceptPass(Worker.CORE)),
                spawn(w, a1, () -> leave(w, w1)));

        // Worker 0 died (or finished its pass and dies now): the supervisor reaps it and a
        // replacement takes index 0 over and serves what the leaver forwarded there.
        World.Actor sup = w.actor("supervisor", -1);
        World.Actor next = w.actor("worker0'", 0);
        w.die(a0);
        w.run(sup, () -> new SupervisorShare<>(sup.page, sup.channel, w.clock(), 2, true).markReaped(0));
        w.reaped(0);
        w.respawned(0);
        Worker replacement = new Worker(w, next, 0);
        w.run(next, () -> {
            replacement.share.bind();
            replacement.share.start();
            replacement.pass();
        });
        w.assertQuiescent(0);
    }

    /**
     * NS: worker 1 is bound but held before its start while worker 0 passes on a fresh accept.
     * Nothing may be handed to a worker the pick read as not started.
     */
    static void notStarted(boolean mutant) {
        World w = new World(2, CAPACITY);
        World.Actor a0 = w.actor("worker0", 0);
        World.Actor a1 = w.actor("worker1", 1);
        AcceptPolicy policy = mutant ? new Mutants.NotStartedAsParked() : AcceptPolicy.share();
        Worker w0 = new Worker(w, a0, policy, 1);
        Worker w1 = new Worker(w, a1, 0);
        w.run(a0, w0.share::start);
        w.run(a1, w1.share::bind);

        join(spawn(w, a0, () -> w0.acceptPass(Worker.CORE)),
                spawn(w, a1, () -> {
                    w1.share.start();
                    w1.pass();
                }));

        w.run(a0, w0::pass);
        w.run(a1, w1::pass);
        w.assertQuiescent(0, 1);
    }

    /**
     * RP: worker 1 dies parked; the supervisor reaps it and gives up on the index (no
     * respawn), while worker 0 passes on a fresh accept. Nothing may be handed to worker 1 on
     * a state read after its reap.
     */
    static void reaped(boolean mutant) {
        World w = new World(2, CAPACITY);
        World.Actor a0 = w.actor("worker0", 0);
        World.Actor a1 = w.actor("worker1", 1);
        World.Actor sup = w.actor("supervisor", -1);
        Worker w0 = new Worker(w, a0, 1);
        Worker w1 = new Worker(w, a1, 0);
        SupervisorShare<Conn> supervisor = new SupervisorShare<>(sup.page, sup.channel, w.clock(), 2, true);
        w.run(a0, w0.share::start);
        w.run(a1, w1.share::start);

        join(spawn(w, a0, () -> w0.acceptPass(Worker.CORE)),
                spawn(w, sup, () -> {
                    w.die(a1); // killed while parked
                    if (!mutant) {
                        supervisor.markReaped(1);
                    }
                    w.reaped(1);
                    giveUp(w, sup, supervisor, 1);
                }));

        w.run(a0, w0::pass);
        w.assertQuiescent(0);
    }

    /**
     * RB: worker 1 has one hand-off queued when it dies; worker 0 passes on another while the
     * supervisor reaps it and gives up on the index. Each connection queued to it must be
     * re-homed to worker 0 (closed only if no worker served): none may stay in its channel.
     */
    static void giveUp(boolean mutant) {
        World w = new World(2, CAPACITY);
        World.Actor a0 = w.actor("worker0", 0);
        World.Actor a1 = w.actor("worker1", 1);
        World.Actor sup = w.actor("supervisor", -1);
        Worker w0 = new Worker(w, a0, 1);
        Worker w1 = new Worker(w, a1, 0);
        SupervisorShare<Conn> supervisor = new SupervisorShare<>(sup.page, sup.channel, w.clock(), 2, true);
        w.run(a0, w0.share::start);
        w.run(a1, w1.share::start);
        w.run(a0, () -> w0.acceptPass(Worker.CORE)); // queued to worker 1, never read by it
        w0.open = 3; // so the next pick still prefers worker 1 (load 1)

        join(spawn(w, a0, () -> w0.acceptPass(Worker.CORE)),
                spawn(w, sup, () -> {
                    w.die(a1);
                    supervisor.markReaped(1);
                    w.reaped(1);
                    if (mutant) {
                        Mutants.giveUpWithoutDrain(sup, 1);
                    } else {
                        giveUp(w, sup, supervisor, 1);
                    }
                }));

        w.run(a0, w0::pass);
        w.assertQuiescent(0);
    }

    /** How far the clock moves inside worker 0's pass: past the 2 ms after which pick skips it. */
    static final long SLOW_NANOS = PageLayout.SLOW_PASS_NANOS + 1_000_000L;

    /**
     * B25-slow, the leaver's forward when every live sibling is inside a long pass: worker 1
     * leaves with a hand-off queued to it while worker 0, the only live sibling, is inside a
     * pass that ends concurrently, and a clock thread moves time past the slow-pass threshold at
     * a point Lincheck chooses. Pick skips a slow sibling; the forward must not (the old race
     * would have served the connection there too): with none fast it is still the one that
     * serves. What the leaver admits has not sent its first byte and a leaving m0serve closes it
     * as idle, so its admit is a close, judged by the oracle (IDLE-CLOSE while a sibling serves).
     */
    static void b25Slow(boolean mutant) {
        slowSibling(mutant, false);
    }

    /**
     * RB-slow, the give-up's re-homing when every live worker is inside a long pass: worker 1
     * dies with a hand-off queued to it; the supervisor reaps it and gives the index up while
     * worker 0, the only live worker, is inside a pass that turns slow at a point Lincheck
     * chooses. The drain must re-home the connection to worker 0 all the same; closing it while
     * worker 0 serves is a loss (STRANDED).
     */
    static void giveUpSlow(boolean mutant) {
        slowSibling(mutant, true);
    }

    /** B25-slow ({@code dies} false: worker 1 leaves) and RB-slow (it dies and is given up). */
    private static void slowSibling(boolean mutant, boolean dies) {
        World w = new World(2, CAPACITY);
        World.Actor a0 = w.actor("worker0", 0);
        World.Actor a1 = w.actor("worker1", 1);
        World.Actor sup = w.actor("supervisor", -1);
        Worker w0 = new Worker(w, a0, 1);
        Worker w1 = new Worker(w, a1, 0);
        SupervisorShare<Conn> supervisor = new SupervisorShare<>(sup.page, sup.channel, w.clock(), 2, true);
        w.run(a0, w0.share::start);
        w.run(a1, w1.share::start);
        w.run(a0, () -> w0.acceptPass(Worker.CORE)); // c0 queued to worker 1 (load 0 against 1)
        w.run(a0, w0.share::passStart); // worker 0's next pass begins, stamped now

        Thread pass = spawn(w, a0, () -> {
            w0.drain();
            w0.share.passEnd(w0.open);
        });
        Thread other = dies
                ? spawn(w, sup, () -> {
                    w.die(a1);
                    supervisor.markReaped(1);
                    w.reaped(1);
                    if (mutant) {
                        Mutants.giveUpForwardingToFastOnly(w, sup, 1);
                    } else {
                        giveUp(w, sup, supervisor, 1);
                    }
                })
                : spawn(w, a1, () -> {
                    if (mutant) {
                        Mutants.leaveForwardingToFastOnly(w1, MAX_DRAIN_STEPS);
                    } else {
                        leave(w, w1, c -> w.closeUnserved(a1, c));
                    }
                });
        join(pass, other, clock(w));

        w.run(a0, w0::pass);
        w.assertQuiescent(0);
    }

    /**
     * HEAL (ADR 0024): worker 2 picked worker 1, raised and was killed before its send (an
     * orphan); its reap asks for a heal. Worker 1's heal (inside its receive, at EAGAIN) runs
     * while worker 0 passes it a fresh accept, at every point of that hand-off Lincheck explores:
     * it must take the orphan off and nothing of worker 0's raise (IN-FLIGHT at the step the
     * datagram lands), and once everyone is done, pending - taken is exactly what is queued.
     */
    static void heal(boolean mutant) {
        World w = new World(3, CAPACITY);
        World.Actor a0 = w.actor("worker0", 0);
        World.Actor a1 = w.actor("worker1", 1);
        World.Actor a2 = w.actor("worker2", 2);
        World.Actor sup = w.actor("supervisor", -1);
        Worker w0 = new Worker(w, a0, 2); // prefers worker 1 even while the orphan counts there
        Worker w1 = new Worker(w, a1, 0);
        Worker w2 = new Worker(w, a2, 1);
        SupervisorShare<Conn> supervisor = new SupervisorShare<>(sup.page, sup.channel, w.clock(), 3, true);
        w.run(a0, w0.share::start);
        w.run(a1, w1.share::start);
        w.run(a2, w2.share::start);
        w.killAfter(a2, 2); // SENDING, the raise; dies at the state read that follows
        w.run(a2, () -> w2.share.sendWith(1, w.accept(a2)));
        w.run(sup, () -> supervisor.markReaped(2));
        w.reaped(2);

        join(spawn(w, a0, () -> w0.acceptPass(Worker.CORE)),
                spawn(w, a1, () -> {
                    if (mutant) {
                        Mutants.passHealingBlindly(w1);
                    } else {
                        w1.pass();
                    }
                }));

        w.run(a0, w0::pass);
        w.run(a1, w1::pass);
        w.assertQuiescent(0, 1);
    }

    /** A thread that moves the clock {@link #SLOW_NANOS} on, once, wherever Lincheck puts it. */
    private static Thread clock(World w) {
        Thread t = new Thread(() -> w.passTime(SLOW_NANOS), "clock");
        t.start();
        return t;
    }

    // ---------------------------------------------------------------- actors' loops

    /**
     * The core's leave: LEFT first, then the drain, each step's admits served here. Between
     * steps the loop would wait on epoll; time passes there only once nobody else can act.
     */
    private static void leave(World world, Worker w) {
        leave(world, w, w::serve);
    }

    /** The core's leave, handing what no sibling takes to {@code admit}. */
    private static void leave(World world, Worker w, java.util.function.Consumer<Conn> admit) {
        w.share.leave();
        for (int step = 0; w.share.leaveStep(admit); step++) {
            if (step >= MAX_DRAIN_STEPS) {
                throw new AssertionError("DRAIN: the leaver's drain did not end in " + MAX_DRAIN_STEPS + " steps");
            }
            world.advanceIfAlone(w.actor, DRAIN_WAIT_NANOS);
        }
    }

    /** The core's give-up drain, driven step by step; closes go through the oracle. */
    private static void giveUp(World w, World.Actor sup, SupervisorShare<Conn> supervisor, int index) {
        GiveUp<Conn> drain = supervisor.giveUp(index);
        for (int step = 0; drain.step(c -> w.closeNoSibling(sup, index, c)); step++) {
            if (step >= MAX_DRAIN_STEPS) {
                throw new AssertionError("DRAIN: the give-up drain did not end in " + MAX_DRAIN_STEPS + " steps");
            }
            w.advanceIfAlone(sup, DRAIN_WAIT_NANOS);
        }
    }

    private static Thread spawn(World w, World.Actor a, Runnable body) {
        Thread t = new Thread(() -> w.run(a, body), a.name);
        t.start();
        return t;
    }

    private static void join(Thread... threads) {
        for (Thread t : threads) {
            try {
                t.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted", e);
            }
        }
    }
}
