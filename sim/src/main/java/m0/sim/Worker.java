package m0.sim;

import java.util.function.Consumer;

/**
 * A worker process at one index: its loop (an {@link Actor}) drives the protocol's
 * {@link WorkerOps} the way m0serve's epoll loop does. The methods below run on the actor.
 */
public final class Worker {

    final Sim sim;
    final int index;
    final String name;
    WorkerOps<Conn> ops;
    Actor actor;
    /** Connections it serves that the scenario does not model one by one (its load). */
    long baseOpen;
    /** Whether it accepts from the listener (else it only serves its channel). */
    boolean accepts = true;

    boolean bound;
    boolean started;
    boolean left;
    boolean exited;
    boolean dead;
    boolean reaped;
    /** The supervisor asked it to leave (SIGTERM). */
    boolean terminate;
    long leftAt;
    /** The next pass runs this long inside (a slow inline view), then 0 again. */
    long slowPass;
    /**
     * Its next channel send stalls this long after the sender's last page access (a GC pause
     * between B25's state re-read and sendmsg), then 0 again.
     */
    long stallBeforeSend;
    /** Its last poll found no work but a heal due (a reap asked for one): {@link #healPass}. */
    boolean healWake;
    /** The epoll model ({@link EpollLoop}): the listener is in its epoll; it is blocked in epoll_wait. */
    boolean armed = true;
    boolean inEpoll;

    Worker(Sim sim, int index, String name) {
        this.sim = sim;
        this.index = index;
        this.name = name;
    }

    public int index() {
        return index;
    }

    public Worker load(long open) {
        this.baseOpen = open;
        return this;
    }

    public Worker accepts(boolean accepts) {
        this.accepts = accepts;
        return this;
    }

    public void bind() {
        ops.bind();
        bound = true;
        sim.bindStep[index] = sim.step;
    }

    public void start() {
        ops.start();
        started = true;
    }

    long open() {
        return baseOpen + (actor == null ? 0 : actor.held.size());
    }

    /** One pass of the loop: accept up to {@code maxAccepts}, pass on or admit each, drain the channel. */
    public void pass(int maxAccepts) {
        ops.passStart();
        if (slowPass > 0) {
            long d = slowPass;
            slowPass = 0;
            sim.sleep(d); // a slow view running inline
        }
        for (int k = 0; accepts && k < maxAccepts; k++) {
            Conn c = sim.accept();
            if (c == null) {
                break;
            }
            long open = open() - 1;
            int target = sim.pick(this, open);
            if (target == index || !ops.sendWith(target, c)) {
                admit(c);
            }
        }
        Conn c;
        while ((c = ops.receive()) != null) {
            admit(c);
        }
        ops.passEnd(open());
    }

    /** The accept path's tail: the connection is read and answered here. */
    void admit(Conn c) {
        sim.serve(this, c);
    }

    /** Serves until virtual time {@code until}: a pass whenever the listener or channel has work. */
    public void serveUntil(long until) {
        while (sim.now() < until && !terminate) {
            if (sim.poll(this)) {
                pass(4);
            } else if (healWake) {
                healPass();
            }
            sim.sleep(sim.tick);
        }
    }

    /**
     * A wake with nothing to do but the heal a reap asked for: receive to EAGAIN, where the core
     * heals (what arrives meanwhile is admitted and retired at a pass end, as in any pass). A
     * wake that receives nothing writes nothing else, as in {@link #rebalancePass}.
     */
    void healPass() {
        if (!ops.healDue()) {
            return; // the core reads its counts: m0serve's once-a-pass look
        }
        boolean got = false;
        Conn c;
        while ((c = ops.receive()) != null) {
            if (!got) {
                ops.work();
                got = true;
            }
            admit(c);
        }
        if (got) {
            ops.passEnd(open());
        }
    }

    /**
     * What a leaver admits from its drain has not sent its first byte, and a leaving m0serve
     * closes idle connections: the seed's B25-idle. So the model closes it, and the B25-idle
     * oracle judges whether a sibling was live to take it instead.
     */
    private final Consumer<Conn> leaverAdmitter = this::closeAsIdle;

    private void closeAsIdle(Conn c) {
        sim.closeIdle(c);
    }

    /**
     * One wake of the loop with rebalance on: receive what its channel holds, then, holding an
     * idle connection, look once and move at most one (inside the pass: the move changes what
     * the pass end publishes). A wake that finds nothing to do writes nothing: no stamp (busy
     * means busy), and its pass end would only rewrite the values already published, so the
     * model leaves it out.
     */
    public void rebalancePass() {
        boolean busy = false;
        if (sim.poll(this)) {
            ops.work();
            busy = true;
            Conn c;
            while ((c = ops.receive()) != null) {
                admit(c);
            }
        } else if (healWake && ops.healDue()) {
            Conn c;
            while ((c = ops.receive()) != null) {
                if (!busy) {
                    ops.work();
                    busy = true;
                }
                admit(c);
            }
        }
        Conn idle = idle();
        if (idle != null) {
            int target = sim.rebalancePick(this, open());
            if (target != index) {
                if (!busy) {
                    ops.work();
                    busy = true;
                }
                sim.rebalance(this, target, idle);
            }
        }
        if (busy) {
            ops.passEnd(open());
        }
    }

    /** A connection it holds between requests (every held one has been answered), or null. */
    private Conn idle() {
        for (int k = actor.held.size() - 1; k >= 0; k--) {
            Conn c = actor.held.get(k);
            if (c.served) {
                return c;
            }
        }
        return null;
    }

    /** Wakes every tick until {@code until}, each wake a {@link #rebalancePass}. */
    public void rebalanceUntil(long until) {
        while (sim.now() < until && !terminate) {
            rebalancePass();
            sim.sleep(sim.tick);
        }
    }

    /**
     * SIGTERM with connections open, as m0serve leaves: the core's leave, each idle connection
     * handed over to a live sibling (closed only when none would take it), then the drain.
     */
    public void leaveHandingOver() {
        ops.leave();
        left = true;
        leftAt = sim.now();
        for (Conn c : new java.util.ArrayList<>(actor.held)) {
            if (!ops.handOver(c)) {
                sim.closeAtLeave(c);
            }
        }
        while (ops.leaveStep(leaverAdmitter)) {
            sim.sleep(sim.tick);
        }
    }

    /** SIGTERM: the core's leave, then its bounded drain, forwarding what arrives. */
    public void leaveAndDrain() {
        ops.leave();
        left = true;
        leftAt = sim.now();
        while (ops.leaveStep(leaverAdmitter)) {
            sim.sleep(sim.tick);
        }
    }

    @Override
    public String toString() {
        return name;
    }
}
