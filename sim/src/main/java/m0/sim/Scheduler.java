package m0.sim;

import java.util.Arrays;
import java.util.concurrent.locks.LockSupport;

/**
 * Whose turn it is. Each actor runs on a pooled carrier thread, but only the one the baton
 * names runs: at every scheduling point it runs the per-step oracles, asks the run's
 * {@link ChoiceSource} who goes next (offering faults on the way), and hands the baton on,
 * or runs on at no cost. Time is virtual and jumps only when every actor sleeps.
 *
 * <p>The turn: exactly one thread may change the world or the scheduler at a time, the one
 * whose actor the baton names (the controller before the first hand and after `finished`).
 * A turn ends with ONE release write, and nothing the releasing thread does after it may
 * write scheduler state: `baton = next` (hand), or `finished = true` after `baton = null`
 * (finish). Reads, unparks and the releasing actor's own `exited` flag are all it may
 * still touch. A carrier whose actor has lost its turn (killed, or the run ended) unwinds
 * at its next port access (me()). docs/adr/0008 has the hang this rule closes.
 */
final class Scheduler {

    private final Sim sim;
    /** The run's carriers: one kind for every actor of a run (ADR 0026). */
    final Carrier.Kind kind = Carrier.kind;
    private final Actor setupActor;
    /** Who the final oracles act as, once the run has ended. */
    private final Actor oracle;
    private boolean ended;
    private volatile Actor baton;
    private Thread controller;
    private volatile boolean finished;
    private boolean running;
    private Actor[] enabled = new Actor[8];
    private int enabledCount;
    private final EnabledView view = new EnabledView();
    /** The run's answers to every choice with more than one option: replays it (ReplayChoices). */
    final StringBuilder schedule = new StringBuilder();
    long switches;
    private long faultQuestions;

    Scheduler(Sim sim) {
        this.sim = sim;
        this.setupActor = new Actor(sim, -1, "setup", null, null, sim.workers);
        this.oracle = new Actor(sim, -1, "quiescence", null, null, 1);
    }

    /** The actor whose transition is running: the parent of one spawned now. */
    Actor holder() {
        return baton;
    }

    boolean running() {
        return running;
    }

    /** Runs to quiescence (every actor done, dead or stopped) and applies the final oracles. */
    RunResult run() {
        controller = Thread.currentThread();
        running = true;
        for (Actor a : sim.actors) {
            Carrier.run(a, kind);
        }
        Actor first = decide(null);
        if (first == null) {
            finished = true;
        } else {
            hand(first);
        }
        while (!finished) {
            LockSupport.park(this);
        }
        boolean quiescent = !sim.aborting;
        sim.aborting = true;
        for (Actor a : sim.actors) {
            if (!a.exited) {
                baton = a;
                endGap();
                LockSupport.unpark(a.thread);
                while (!a.exited) {
                    LockSupport.park(this);
                }
            }
        }
        baton = null;
        running = false;
        ended = true;
        if (quiescent) {
            QuiescenceOracles.atQuiescence(sim);
        }
        runsEnded++;
        return new RunResult(sim, quiescent);
    }

    /** The carrier's entry: wait for the baton, run the body, hand the baton on. */
    void runActor(Actor a) {
        try {
            awaitBaton(a);
            if (sim.aborting || a.state == Actor.DEAD) {
                throw new Killed();
            }
            a.state = Actor.RUNNING;
            a.body.run();
            sim.ledger.exit(a);
            a.state = Actor.DONE;
            Actor next = decide(a);
            if (next == null) {
                finish();
            } else {
                hand(next);
            }
        } catch (Killed k) {
            // unwound: killed by a fault, or aborted at the end of the run
        } catch (Throwable t) {
            sim.violation("CRASH", a + " threw " + t);
            sim.trace(a, "crashed: " + t);
            sim.aborting = true;
            finish();
        } finally {
            a.exited = true;
            LockSupport.unpark(controller);
        }
    }

    /**
     * Ends the run: nobody holds the baton, then the controller may look.
     *
     * <p>The order is the whole point. {@code finished} releases the controller into the abort
     * loop below, which hands the baton to each actor still parked and waits for it to exit. Were
     * {@code finished} written first, the controller could hand the baton to a parked actor in
     * the gap and this thread's {@code baton = null} would then wipe that hand-off: the actor
     * parks again waiting for a turn nobody will give it, and the controller waits for its exit
     * for ever (docs/adr/0008). After {@code finished} this thread writes no scheduler state.
     */
    private void finish() {
        baton = null;
        endGap();
        finished = true;
        LockSupport.unpark(controller);
    }

    /**
     * Test seam ({@code SchedulerHangTest}): a busy wait at the end-of-run transitions (between
     * finish's two writes, and in the abort loop between a hand and its wake-up), widening the
     * windows that the hand-off must not depend on. Zero, and one volatile read, otherwise.
     */
    static volatile long endGapNanos;

    /**
     * Runs ended in this JVM (test seam, {@code Bounded}): a hung run ends none, a slow
     * exploration keeps ending them, and only the first is a hang. Written by the controller
     * once a run; concurrent explorations may lose an increment, which only delays a count.
     */
    static volatile long runsEnded;

    private static void endGap() {
        long g = endGapNanos;
        if (g > 0) {
            long end = System.nanoTime() + g;
            while (System.nanoTime() - end < 0) {
                Thread.onSpinWait();
            }
        }
    }

    private void hand(Actor next) {
        if (next.thread != Thread.currentThread()) {
            switches++;
        }
        baton = next;
        LockSupport.unpark(next.thread);
    }

    /**
     * Waits for the turn. A platform carrier spins a little first (the baton often comes back at
     * once); a virtual one parks at once: every virtual carrier shares one scheduler thread, so
     * a spin would only keep the next actor from running.
     */
    private void awaitBaton(Actor me) {
        int spins = kind == Carrier.Kind.VIRTUAL ? 0 : SPINS;
        while (baton != me) {
            if (--spins > 0) {
                Thread.onSpinWait();
            } else {
                LockSupport.park(this);
            }
        }
    }

    private static final int SPINS = Integer.getInteger("m0.sim.spins", 200);

    /** A scheduling point: {@code me} announces its next access and waits to be chosen. */
    void point(Actor me, long reads, long writes) {
        unlessEnding(me);
        me.reads = reads;
        me.writes = writes | Footprint.bit(Footprint.proc(me.id));
        me.state = Actor.READY;
        yieldFrom(me);
    }

    /**
     * A run that is ending takes no more steps: an actor that reaches a point after a violation
     * set {@code sim.aborting} ends the run itself (it holds the baton) and unwinds, instead of
     * asking for a turn the controller would have to hand back only to kill it.
     */
    private void unlessEnding(Actor me) {
        if (sim.aborting && baton == me) {
            finish();
            throw new Killed();
        }
    }

    void yieldFrom(Actor me) {
        unlessEnding(me);
        Actor next = decide(me);
        if (next == me) {
            me.state = Actor.RUNNING;
            return;
        }
        boolean killed = me.state == Actor.DEAD;
        if (next == null) {
            finish();
        } else {
            hand(next);
        }
        if (killed) {
            throw new Killed();
        }
        awaitBaton(me);
        if (sim.aborting || me.state == Actor.DEAD) {
            throw new Killed();
        }
        me.state = Actor.RUNNING;
    }

    /** Oracles after the last step, then the choice of the next one; null ends the run. */
    private Actor decide(Actor me) {
        for (;;) {
            if (!sim.aborting) {
                Oracles.afterStep(sim);
                sim.loopOracles.afterStep();
            }
            if (sim.aborting) {
                return null;
            }
            enabledCount = 0;
            for (Actor a : sim.actors) {
                if (a.state == Actor.READY && !a.stopped) {
                    if (enabledCount == enabled.length) {
                        enabled = Arrays.copyOf(enabled, enabledCount * 2);
                    }
                    enabled[enabledCount++] = a;
                }
            }
            if (enabledCount == 0) {
                long t = Long.MAX_VALUE;
                for (Actor a : sim.actors) {
                    if (a.state == Actor.SLEEPING && !a.stopped && a.wakeAt < t) {
                        t = a.wakeAt;
                    }
                }
                if (t == Long.MAX_VALUE) {
                    return null; // quiescent
                }
                sim.listener.beforeTimeAdvance(t);
                if (!sim.aborting) {
                    sim.loopOracles.beforeTimeAdvance(t);
                }
                if (sim.aborting) {
                    return null;
                }
                if (t > sim.horizon) {
                    sim.violation("LIVELOCK", "still running at the sim.horizon, " + Sim.ms(sim.horizon));
                    sim.aborting = true;
                    return null;
                }
                sim.now = Math.max(sim.now, t);
                sim.source.onTimeAdvance();
                for (Actor a : sim.actors) {
                    if (a.state == Actor.SLEEPING && !a.stopped && a.wakeAt <= sim.now) {
                        a.state = Actor.READY;
                        if (a.stalled) {
                            a.stalled = false; // back into the access it was about to make
                        } else {
                            a.reads = 0;
                            a.writes = Footprint.bit(Footprint.proc(a.id));
                        }
                    }
                }
                continue;
            }
            int k = sim.source.next(view);
            if (k < 0) {
                sim.sleepBlocked = true;
                sim.aborting = true;
                return null;
            }
            if (enabledCount > 1) {
                ReplayChoices.record(schedule, k);
            }
            Actor next = enabled[k];
            if (sim.killOneIn > 0 && next.worker != null && next.worker.started && sim.source.chance('!', faultQuestions++, sim.killOneIn)) {
                ReplayChoices.recordFault(schedule, '!', faultQuestions - 1);
                sim.step++;
                sim.acts.kill(next.worker, "fault");
                continue;
            }
            if (sim.stallOneIn > 0 && next.worker != null && next.state == Actor.READY
                    && (next.reads | next.writes) != Footprint.bit(Footprint.proc(next.id))
                    && sim.source.chance('~', faultQuestions++, sim.stallOneIn)) {
                ReplayChoices.recordFault(schedule, '~', faultQuestions - 1);
                next.state = Actor.SLEEPING;
                next.stalled = true;
                next.wakeAt = sim.now + (1 + sim.choose(50)) * 100_000L;
                sim.trace(next, "stalled until " + Sim.ms(next.wakeAt));
                continue;
            }
            sim.step++;
            sim.source.onStep(next.id, next.reads, next.writes);
            return next;
        }
    }

    private final class EnabledView implements ChoiceSource.Enabled {
        @Override
        public int size() {
            return enabledCount;
        }

        @Override
        public int actor(int k) {
            return enabled[k].id;
        }

        @Override
        public long reads(int k) {
            return enabled[k].reads;
        }

        @Override
        public long writes(int k) {
            return enabled[k].writes;
        }

        @Override
        public int running() {
            Actor me = baton;
            for (int k = 0; k < enabledCount; k++) {
                if (enabled[k] == me) {
                    return k;
                }
            }
            return -1;
        }
    }

    /**
     * The actor making the current access. A carrier thread whose actor does not hold the baton
     * is unwinding a kill or the end of the run: a killed process runs none of its code, so any
     * port it touches on the way out (a {@code finally} in the core) unwinds it further rather
     * than acting, or being traced, as whoever holds the baton sim.now.
     */
    Actor me() {
        Actor a = baton;
        Carrier c;
        if (running && (c = Carrier.current()) != null && c.carrying() != a) {
            throw new Killed();
        }
        return a == null || !running ? (ended ? oracle : setupActor) : a;
    }

    boolean scheduling() {
        return running && baton != null;
    }
}
