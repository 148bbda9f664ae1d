package m0.sim;

import java.util.function.Consumer;

/**
 * The supervisor's and the fault injector's acts on worker processes: SIGTERM, SIGKILL,
 * SIGSTOP/SIGCONT, the reap, a respawn or replacement, and the give-up with its drain. Each is
 * a transition of the calling actor (a scheduling point on what it touches).
 */
final class SupervisorActs {

    private final Sim sim;

    SupervisorActs(Sim sim) {
        this.sim = sim;
    }

    /** SIGTERM to worker {@code w}: it leaves at its next pass (a step on its process). */
    void signal(Worker w) {
        Actor me = sim.me();
        if (sim.scheduling()) {
            sim.point(me, 0, w.actor == null ? 0 : Footprint.bit(Footprint.proc(w.actor.id)));
        }
        w.terminate = true;
        sim.trace(me, "SIGTERM " + w);
        sim.epoll.wake(me, w);
    }

    /** SIGKILL: as a transition of the calling actor (a scheduling point on the victim's process). */
    void kill(Worker w) {
        Actor me = sim.me();
        if (sim.scheduling()) {
            sim.point(me, 0, w.actor == null ? 0 : Footprint.bit(Footprint.proc(w.actor.id)));
        }
        kill(w, "SIGKILL by " + me);
    }

    void kill(Worker w, String why) {
        if (w.dead || w.exited) {
            sim.trace(sim.me(), "kill " + w + " (already gone)");
            return;
        }
        w.dead = true;
        Actor a = w.actor;
        if (a != null) {
            a.state = Actor.DEAD;
            sim.diedWithHolder += a.held.size();
            for (Conn c : a.held) {
                c.eof = "holder " + a + " died";
                c.holder = null;
            }
            a.held.clear();
        }
        sim.trace(sim.me(), "kill " + w + " (" + why + ")");
    }

    /** SIGSTOP / SIGCONT. */
    void stop(Worker w, boolean stop) {
        Actor me = sim.me();
        if (sim.scheduling()) {
            sim.point(me, 0, w.actor == null ? 0 : Footprint.bit(Footprint.proc(w.actor.id)));
        }
        if (w.actor != null) {
            w.actor.stopped = stop;
        }
        sim.trace(me, (stop ? "SIGSTOP " : "SIGCONT ") + w);
    }

    /**
     * waitpid returned for index i's process: the reap, then the supervisor's mark
     * ({@code markReaped}, RP) before anything decides whether to replace it. The RP oracle
     * counts "after the reap" from the end of this. With {@code replacing} the supervisor will
     * respawn the index (counted as starting).
     */
    void reap(int index, SupervisorOps<Conn> sup, boolean replacing) {
        Actor me = sim.me();
        if (sim.scheduling()) {
            sim.point(me, 0, Footprint.bit(Footprint.state(index)));
        }
        Worker w = sim.current[index];
        sim.trace(me, "waitpid -> " + w + " " + (w.dead ? "killed" : "exited"));
        sup.markReaped(index, replacing);
        if (sim.scheduling()) {
            // The oracles judge sends and picks against this moment, so it is an event of its
            // own, dependent with both (the state word and the acct group): the reduction
            // then orders every send and every state read against it.
            sim.point(me, 0, Footprint.bit(Footprint.state(index)) | Footprint.bit(Footprint.acct(index)));
        }
        w.reaped = true;
        sim.reapStep[index] = sim.step;
        sim.trace(me, "reaped w" + index);
    }

    /** Starts a replacement process into {@code index}; its loop runs {@code body}. */
    Worker respawn(int index, Consumer<Worker> body) {
        Worker w = sim.worker(index);
        sim.givenUp[index] = false;
        sim.loop(w, () -> body.accept(w));
        sim.trace(sim.me(), "spawn " + w);
        return w;
    }

    /**
     * The supervisor's reap of {@code index} and its replacement, as m0serve's does it: the
     * replacement marked starting before the LEFT ({@code markReaped(index, true)}), spawned into
     * the index, and watched on the page until it starts ({@code startSeen}), dies or exits.
     */
    Worker replace(int index, SupervisorOps<Conn> sup, Consumer<Worker> body) {
        reap(index, sup, true);
        Worker r = respawn(index, body);
        while (!r.dead && !r.exited && !sup.startSeen(index)) {
            sim.sleep(sim.tick + 1_000);
        }
        return r;
    }

    /** The supervisor gives up on {@code index}: the drain runs until done. */
    void giveUp(SupervisorOps<Conn> sup, int index) {
        SupervisorOps.Drain<Conn> drain = beginGiveUp(sup, index);
        while (stepGiveUp(drain)) {
            sim.sleep(sim.tick);
        }
    }

    /**
     * The give-up, then the watch that follows it: the given-up channel is read until
     * {@code until} (the index is never bound again here), re-homing what arrives late.
     */
    void giveUpAndWatch(SupervisorOps<Conn> sup, int index, long until) {
        SupervisorOps.Drain<Conn> drain = beginGiveUp(sup, index);
        while (stepGiveUp(drain)) {
            sim.sleep(sim.tick);
        }
        sim.giveUpDoneStep[index] = sim.step;
        sim.trace(sim.me(), "give-up drain of index " + index + " done; watching its channel");
        while (sim.now < until) {
            drain.watch(sim.ledger::closeByGiveUp);
            sim.sleep(sim.tick);
        }
    }

    SupervisorOps.Drain<Conn> beginGiveUp(SupervisorOps<Conn> sup, int index) {
        sim.givenUp[index] = true;
        sim.giveUpAt[index] = sim.now;
        sim.trace(sim.me(), "give up on index " + index);
        return sup.giveUp(index);
    }

    boolean stepGiveUp(SupervisorOps.Drain<Conn> drain) {
        return drain.step(sim.ledger::closeByGiveUp);
    }
}
