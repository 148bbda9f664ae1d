package m0.sim;

import java.util.List;
import java.util.function.LongUnaryOperator;
import m0.core.WorkerShare;
import m0.core.loop.WorkerLoop;

/**
 * A worker process at one index. Its actor runs the core's {@link WorkerLoop} (the one m0serve
 * runs) over the simulated kernel: this class is only the driver around it (wait, pass), whose
 * ports are {@link WorkerListener}, {@link WorkerConnections} and {@link WorkerChannels}, plus
 * the few things a world models that the server's connection I/O would do (requests that keep
 * it busy, clients that leave, a pass that runs slow). The methods below run on the actor.
 */
public final class Worker {

    /** Request passes start this far apart when a world gives the worker a load. */
    public static final long REQUEST_PERIOD = 2 * Sim.MS;
    /** A worker's grace when leaving, in the worlds: past every world's end. */
    static final long GRACE = 10_000 * Sim.MS;

    final Sim sim;
    final int index;
    final String name;
    /** The protocol's side of this worker (the core, or a mutant), as the oracles watch it. */
    WorkerShare<Conn> share;
    Actor actor;
    private WorkerLoop<Conn> loop;
    /** Its loop's connection port (made with the loop). */
    private WorkerConnections connections;

    // ---- the world's knobs
    /** Connections it serves that the scenario does not model one by one (its load). */
    long baseOpen;
    /**
     * Connection-close clients in flight by virtual time (ADR 0059): open, never settled, never
     * moved; they close within a pass. Null: none.
     */
    LongUnaryOperator churnOpen;
    /** Whether it ever wins an accept (else the kernel always hands the connection to another). */
    boolean accepts = true;
    int batch = WorkerLoop.ACCEPT_BATCH;
    long maxConnections = Long.MAX_VALUE;
    /**
     * Virtual time each accept it keeps costs inside the pass, with no view run: a cold accept
     * path, or the worker descheduled (ADR 0052). A view is {@link #slowPass}, which stamps.
     */
    long acceptCost;
    /** The same for each connection it receives: its receipt pass stalls this long, no view run. */
    long receiveCost;
    /**
     * Virtual time each TLS connection's handshake costs inside the pass that admits it, accepted
     * or received (ADR 0069, addendum): the loop is told {@link WorkerLoop#handshaking()}, no view.
     */
    long handshakeCost;
    /** Request load, per mille of each request period, by virtual time (null: none). */
    LongUnaryOperator load;
    /** At this time every connection it serves is closed by its client (-1: never). */
    long dropAt = -1;
    /** Accept fails with EMFILE from this time until {@link #emfileUntil} (-1: never). */
    long emfileFrom = -1;
    long emfileUntil;
    /** SIGTERM arrives at this time (-1: never; {@link Sim#signal} sends one at any time). */
    long terminateAt = -1;
    /** Run at the start of every pass: a random world's faults (a pass that runs slow). */
    private Runnable beforePass;

    // ---- its life, as the oracles see it
    boolean bound;
    boolean started;
    /** How often share's gate changed this worker's mode (ADR 0041: SHAPE-FLAP). */
    long shapeSwitches;
    /** The step by which start() had published PARKED. */
    long startedStep;
    /** The step at which this worker, leaving, last began to hand an idle connection over. */
    long handOverStep = Long.MAX_VALUE;
    boolean left;
    boolean exited;
    boolean dead;
    boolean reaped;
    /** SIGTERM has arrived and its handler has not run yet (it wakes the wait, once). */
    boolean terminate;
    long leftAt;
    /** The next pass runs this long inside (a slow inline view), then 0 again. */
    long slowPass;
    /**
     * Its next channel send stalls this long after the sender's last page access (a GC pause
     * between B25's state re-read and sendmsg), then 0 again.
     */
    long stallBeforeSend;

    // ---- the epoll model
    /** The listener is in its interest set. */
    boolean armed;
    /** Blocked in its wait. */
    boolean inEpoll;
    /** Its wait was ended by a waker (not by the time): the step that resumes it is its look. */
    boolean woken;
    /** Its own channel is in its interest set (a leaver lets go of it once its drain is over). */
    boolean watchingChannel = true;
    /** A nudge its receive swallowed and the loop has not asked about yet. */
    boolean nudged;

    // ---- what the loop oracles read (LoopOracles)
    /** When its loop last handed the core a busy sample (or started). */
    long sampledAt;
    /** Connections it accepted since it last published its settled count: not settled in m0serve yet. */
    final java.util.Set<Conn> acceptedSincePublish = new java.util.HashSet<>();

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

    public Worker batch(int batch) {
        this.batch = batch;
        return this;
    }

    public Worker acceptCost(long nanos) {
        this.acceptCost = nanos;
        return this;
    }

    public Worker handshakeCost(long nanos) {
        this.handshakeCost = nanos;
        return this;
    }

    public Worker receiveCost(long nanos) {
        this.receiveCost = nanos;
        return this;
    }

    public Worker requests(LongUnaryOperator perMilleAt) {
        this.load = perMilleAt;
        return this;
    }

    public Worker clientsLeaveAt(long t) {
        this.dropAt = t;
        return this;
    }

    public Worker maxConnections(long max) {
        this.maxConnections = max;
        return this;
    }

    public Worker outOfDescriptors(long from, long until) {
        this.emfileFrom = from;
        this.emfileUntil = until;
        return this;
    }

    public Worker terminateAt(long t) {
        this.terminateAt = t;
        return this;
    }

    public Worker beforePass(Runnable faults) {
        this.beforePass = faults;
        return this;
    }

    /** The protocol object the world scripts with directly (a stuck process, a lone hand-off). */
    public WorkerShare<Conn> share() {
        return share;
    }

    public void bind() {
        share.bind();
        bound = true;
        sim.bindStep[index] = sim.step;
    }

    /** The loop takes over the index: the listener registered, then the core's start. */
    public void start() {
        loop().listen();
        loop().deferOnChurn(); // as m0serve's default (ADR 0056): the rule runs here, its effect is the kernel's
        loop().start();
    }

    WorkerLoop<Conn> loop() {
        if (loop == null) {
            Protocol p = sim.protocol;
            connections = new WorkerConnections(this);
            loop = new WorkerLoop<>(share, p.listener(new WorkerListener(this)), connections,
                    p.channels(new WorkerChannels(this)), sim.clock, p.limits(new WorkerLoop.Limits(batch, maxConnections, GRACE)),
                    this::failure);
        }
        return loop;
    }

    long open() {
        return baseOpen + (churnOpen == null ? 0 : churnOpen.applyAsLong(sim.now()))
                + (actor == null ? 0 : actor.held.size());
    }

    /** Settled connections held (ADR 0059): answered keep-alive ones a world did not mark unsettled. */
    long settled() {
        long n = 0;
        for (Conn c : actor.held) {
            if (!c.inCore && c.served && !c.unsettled) {
                n++;
            }
        }
        return n;
    }

    /** The connection-close clients in flight at each virtual time (the churn a keeping worker sees). */
    public Worker churn(LongUnaryOperator inFlightAt) {
        this.churnOpen = inFlightAt;
        return this;
    }

    /**
     * The driver: wait (the epoll model), then one pass of the core's loop, until virtual time
     * {@code until} or until the loop says it has left and holds nothing.
     */
    public void run(long until) {
        WorkerLoop<Conn> l = loop();
        long nextRequest = sim.now();
        while (sim.now() < until) {
            if (terminateAt >= 0 && sim.now() - terminateAt >= 0) {
                terminateAt = -1;
                terminate = true;
            }
            long wake = Math.min(until, l.deadline());
            if (load != null) {
                wake = Math.min(wake, nextRequest);
            }
            if (dropAt >= 0) {
                wake = Math.min(wake, dropAt);
            }
            if (terminateAt >= 0) {
                wake = Math.min(wake, terminateAt);
            }
            int ready = sim.epoll.wait(this, wake);
            if (spins(sim.now())) {
                return;
            }
            if (terminate) {
                terminate = false;
                l.requestStop(); // SIGTERM's handler, at the wake-up it causes
            }
            l.begin();
            connections.passBegins();
            long now = sim.now();
            if (beforePass != null) {
                beforePass.run();
            }
            // What the server's connection I/O does, modelled as time inside the pass.
            if (slowPass > 0) {
                long d = slowPass;
                slowPass = 0;
                l.work();
                sim.sleep(d); // a slow view running inline
            }
            if (load != null && now - nextRequest >= 0) {
                nextRequest = now + REQUEST_PERIOD;
                long busy = REQUEST_PERIOD * load.applyAsLong(now) / 1000;
                if (busy > 0) {
                    l.work();
                    sim.sleep(busy);
                }
            }
            if (dropAt >= 0 && now - dropAt >= 0) {
                dropAt = -1;
                clientsLeave();
            }
            if (!l.end((ready & Epoll.CHANNEL_READY) != 0, (ready & Epoll.LISTENER_READY) != 0)) {
                return; // left, holding nothing: the process exits
            }
        }
    }

    /**
     * Passes in one virtual instant, past which the loop spins: woken again at once for a state
     * it does not change (a level-triggered listener it cannot accept from, issue 45's EMFILE).
     * A world's busiest instant takes a few dozen.
     */
    static final int SPIN_PASSES = 1000;
    private long spinAt = Long.MIN_VALUE;
    private int spinPasses;

    /** SPIN: true (and said) when this pass is one too many in its instant. */
    private boolean spins(long now) {
        if (now != spinAt) {
            spinAt = now;
            spinPasses = 0;
        }
        if (++spinPasses <= SPIN_PASSES) {
            return false;
        }
        sim.violation("SPIN", name + " made " + SPIN_PASSES + " passes at " + Sim.ms(now) + " without time moving on");
        return true;
    }

    /** SIGTERM at once, then the loop until it has left (or {@code until}). */
    public void leave(long until) {
        terminate = true;
        run(until);
    }

    private void clientsLeave() {
        Actor me = sim.me();
        for (Conn c : List.copyOf(me.held)) {
            sim.ledger.release(me, c);
            c.eof = "closed by its client";
            sim.trace(me, c + " closed by its client");
        }
        baseOpen = 0;
    }

    private void failure(String line) {
        sim.trace(sim.me(), "log: " + line);
    }

    /**
     * What this worker's driver has counted by virtual time t: short closes and reuses (the
     * world's script of its load's shape, ADR 0041). None by default: a cold, keep-alive world.
     */
    java.util.function.LongUnaryOperator shortClosesAt = t -> 0;
    java.util.function.LongUnaryOperator reusesAt = t -> 0;

    /** The load's shape as this worker's driver counts it, a function of virtual time. */
    public Worker shape(java.util.function.LongUnaryOperator shortCloses, java.util.function.LongUnaryOperator reuses) {
        this.shortClosesAt = shortCloses;
        this.reusesAt = reuses;
        return this;
    }

    @Override
    public String toString() {
        return name;
    }
}
