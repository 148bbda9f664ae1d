package m0.sim;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import m0.core.Channel;
import m0.core.Clock;
import m0.core.Page;
import m0.core.SupervisorShare;

/**
 * One simulated run: a controlled scheduler, a simulated kernel (listener, bounded datagram
 * channels that outlive their workers, processes that can be killed, stopped, held and
 * respawned), virtual time, and the oracles.
 *
 * <p>Each actor runs on its own (pooled) thread, but exactly one holds the baton: every page
 * access, channel operation and clock read the core makes goes through the simulated ports,
 * which stop at a scheduling point where the {@link ChoiceSource} alone says who runs next.
 * The scheduler runs on whichever thread reached the point, so a step that keeps the same
 * actor costs no thread switch. Time is virtual and moves only when every actor sleeps.
 */
public final class Sim {

    /** Virtual time at the start (state words hold pass start times, which must be > 0). */
    public static final long T0 = 1_000_000_000L;
    public static final long MS = 1_000_000L;

    // ---- configuration
    final int workers;
    final Protocol protocol;
    final ChoiceSource source;
    final long tick;
    int channelCapacity;
    boolean stopOnViolation = true;
    /**
     * MOVED: under a policy whose connections never move (fountain), no served connection is
     * received by another worker (seed 004's "established connections never move").
     */
    boolean movedOracle;
    /** The balance oracle: at quiescence, served connections per worker differ by at most one. */
    boolean balanceOracle;
    /** SHAPE-FLAP: how often share's gate may change one worker's mode (-1: not judged). */
    long shapeSwitchBound = -1;
    /** BALANCE's bound, max - min at quiescence ({@link QuiescenceOracles.BALANCE_SLACK} unless a world says more). */
    long balanceSlack = QuiescenceOracles.BALANCE_SLACK;
    /**
     * The rebalance oracles (ADR 0014): at quiescence every connection is held once by a live
     * worker or was closed by a death or leave, moves stay within the initial excess, the loads
     * have converged.
     */
    boolean rebalanceOracle;
    /** The swap worlds (ADR 0057): PAIRED at quiescence, on top of the rebalance oracles. */
    boolean pairOracle;
    /**
     * The mixed worlds (ADR 0059): the rebalance oracles count settled connections (the load a
     * keeping worker evens), not every connection held.
     */
    boolean settledOracle;
    /**
     * The heal oracle (HEAL): at quiescence, every index's pending - taken equals what is queued
     * to it, orphans of a death included (they must have been healed by the index's recovery).
     * Off where a world ends before every orphan's index has had a recovery (random mode).
     */
    boolean healOracle = true;
    /** Random mode: a kill is offered at each scheduling point of a killable actor, 1 in this. */
    int killOneIn;
    /** Random mode: a worker is descheduled for up to 5 ms at a scheduling point, 1 in this. */
    int stallOneIn;
    final boolean fullTrace;

    // ---- the ports, over the real page
    final Page raw;
    final PageKind pageKind;
    public final Page page;
    public final Channel<Conn> channel;
    public final Clock clock;
    final Ports ports;

    // ---- the kernel
    final ArrayDeque<Conn> backlog = new ArrayDeque<>();
    final ArrayDeque<Conn>[] channels;
    /** A nudge waits on index i's channel (swallowed by its next receive that finds nothing). */
    final boolean[] nudgePending;
    final Worker[] current;
    final List<Worker> allWorkers = new ArrayList<>();
    final List<Conn> conns = new ArrayList<>();
    final long[] reapStep;
    final long[] bindStep;
    final boolean[] givenUp;
    final long[] giveUpAt;
    /** Step at which index i's give-up drain finished (-1: not given up, or not finished). */
    final long[] giveUpDoneStep;
    boolean stopping;

    // ---- the scheduler (Scheduler: whose turn it is) and the run's shared clock and verdict
    final List<Actor> actors = new ArrayList<>();
    final Scheduler turn;
    boolean aborting;
    boolean sleepBlocked;
    long step;
    long now = T0;
    long horizon = Long.MAX_VALUE;

    /** The listener's wake-ups and its oracles (the epoll model; idle unless a scenario uses it). */
    final ListenerModel listener;
    /** The loop's own rules: its timers and its pass end's order (off unless a world turns one on). */
    final LoopOracles loopOracles;
    /** A worker's wait on its interest set and what wakes it. */
    final Epoll epoll;
    /** Every connection's life: connect, accept, serve, close, exit. */
    final ConnLedger ledger;
    /** The supervisor's and the fault injector's acts on processes. */
    final SupervisorActs acts;

    // ---- records
    final TraceLog log;
    final List<Violation> violations = new ArrayList<>();
    /** Raises orphaned by deaths and left unhealed, counted at quiescence (accepted without the heal oracle). */
    long orphans;
    /** Per index: what heals took off pending - taken (a compare-and-set of its counts). */
    final long[] healed;
    /** Each index's connections at the start of the run ({@link #holds}): the excess is over these. */
    final long[] initialLoad;
    /** The settled ones among them (ADR 0059): the mixed worlds' excess is over these. */
    final long[] initialSettled;
    /** initialPaired[i][j]: connections worker i starts with whose client pairs with worker j (ADR 0057). */
    final long[][] initialPaired;
    /** Idle connections rebalance moved (successful {@link #rebalance} calls). */
    long moves;
    /** Open connections that died with a killed worker. */
    long diedWithHolder;

    public Sim(int workers, Protocol protocol, ChoiceSource source, boolean fullTrace) {
        this(workers, protocol, source, fullTrace, 10 * MS, 8);
    }

    /** Sim with tick and channel capacity chosen by the caller (random worlds). */
    @SuppressWarnings({"unchecked", "rawtypes"})
    Sim(int workers, Protocol protocol, ChoiceSource source, boolean fullTrace, long tick, int capacity) {
        this.workers = workers;
        this.protocol = protocol;
        this.source = source;
        this.fullTrace = fullTrace;
        this.log = new TraceLog(fullTrace);
        this.tick = tick;
        this.channelCapacity = capacity;
        this.pageKind = PageKind.current;
        this.raw = pageKind.create(workers);
        this.page = new ScheduledPage(this);
        this.channel = new ScheduledChannel(this);
        this.clock = this::clockRead;
        this.ports = new Ports(this, page, channel, clock, workers);
        this.channels = new ArrayDeque[workers];
        for (int i = 0; i < workers; i++) {
            channels[i] = new ArrayDeque<>();
        }
        this.nudgePending = new boolean[workers];
        this.current = new Worker[workers];
        this.reapStep = new long[workers];
        this.bindStep = new long[workers];
        this.givenUp = new boolean[workers];
        this.giveUpAt = new long[workers];
        this.giveUpDoneStep = new long[workers];
        Arrays.fill(giveUpDoneStep, -1);
        this.initialLoad = new long[workers];
        this.initialSettled = new long[workers];
        this.initialPaired = new long[workers][workers];
        this.healed = new long[workers];
        Arrays.fill(reapStep, -1);
        Arrays.fill(bindStep, -1);
        this.turn = new Scheduler(this);
        this.listener = new ListenerModel(this);
        this.loopOracles = new LoopOracles(this);
        this.epoll = new Epoll(this);
        this.ledger = new ConnLedger(this);
        this.acts = new SupervisorActs(this);
    }

    // =====================================================================================
    // Building a world (before run, on the caller's thread: no scheduling points)

    /** A worker process at {@code index}, with no actor yet ({@link #loop} gives it one). */
    public Worker worker(int index) {
        Worker w = new Worker(this, index, "w" + index + generation(index));
        w.share = new ObservedShare(this, w, protocol.worker(ports, index));
        current[index] = w;
        allWorkers.add(w);
        return w;
    }

    private String generation(int index) {
        int g = 0;
        for (Worker w : allWorkers) {
            if (w.index == index) {
                g++;
            }
        }
        return g == 0 ? "" : "'".repeat(g);
    }

    /** Gives worker {@code w} a loop: an actor running {@code body}. */
    public Actor loop(Worker w, Runnable body) {
        Actor a = newActor(w.name, body, w);
        w.actor = a;
        return a;
    }

    /** An actor that is not a worker (the supervisor, a fault injector, clients). */
    public Actor actor(String name, Runnable body) {
        return newActor(name, body, null);
    }

    private Actor newActor(String name, Runnable body, Worker w) {
        Actor a = new Actor(this, actors.size(), name, body, w, workers);
        actors.add(a);
        if (turn.running()) {
            Actor parent = turn.holder();
            source.onSpawn(parent.id, a.id);
            Carrier.run(a, turn.kind);
        }
        return a;
    }

    /** Clients that connected before the run: queued in the backlog. */
    public List<Conn> clients(int n) {
        return ledger.clients(n);
    }

    /** Clients that connect from here on speak TLS (ADR 0069): the worker that serves one does its handshake. */
    boolean tlsClients;

    /**
     * Worker {@code w} (its loop already given) starts the run holding {@code n} keep-alive
     * connections, answered and idle, and has published them as its load at a pass end.
     */
    public List<Conn> holds(Worker w, int n) {
        return ledger.holds(w, n);
    }

    /** As {@link #holds}, but TLS connections whose handshake ran at {@code w} (ADR 0069): pinned there. */
    public List<Conn> holdsTls(Worker w, int n) {
        return ledger.holdsTls(w, n);
    }

    /** As {@link #holds}, but each answered once and not yet reused: open, idle, not settled (ADR 0059). */
    public List<Conn> holdsUnsettled(Worker w, int n) {
        return ledger.holdsUnsettled(w, n);
    }

    /**
     * Worker {@code w} holds one idle connection per entry of {@code affinities}, each with the
     * worker its client pairs with (-1: none known), published as at a pass end.
     */
    public List<Conn> holdsPaired(Worker w, int... affinities) {
        return ledger.holdsPaired(w, affinities);
    }

    /** Runs {@code body} now, outside the schedule (setup: its accesses are traced, not scheduled). */
    public void setup(Runnable body) {
        body.run();
    }

    /** The server runs {@code --rebalance on}: call before making its workers. */
    public void rebalance(boolean on) {
        ports.rebalance = on;
    }

    public SupervisorOps<Conn> supervisorOps() {
        return protocol.supervisor(ports);
    }

    public void horizon(long virtualNanos) {
        this.horizon = T0 + virtualNanos;
    }

    // =====================================================================================
    // Running

    /** Runs to quiescence (every actor done, dead or stopped) and applies the final oracles. */
    public RunResult run() {
        return turn.run();
    }

    void runActor(Actor a) {
        turn.runActor(a);
    }

    /** A scheduling point: {@code me} announces its next access and waits to be chosen. */
    void point(Actor me, long reads, long writes) {
        turn.point(me, reads, writes);
    }

    Actor me() {
        return turn.me();
    }

    boolean scheduling() {
        return turn.scheduling();
    }

    // =====================================================================================
    // What actors do (called on the actor's thread)

    public long now() {
        return now;
    }

    /** Sleeps {@code nanos} of virtual time (other actors run; time jumps when all sleep). */
    public void sleep(long nanos) {
        Actor me = me();
        me.state = Actor.SLEEPING;
        me.wakeAt = now + nanos;
        turn.yieldFrom(me);
    }

    /** A free choice (random worlds); recorded in the schedule. */
    public int choose(int n) {
        int v = source.choose(n);
        if (n > 1) {
            ReplayChoices.record(turn.schedule, v);
        }
        return v;
    }

    private long clockRead() {
        Actor me = me();
        if (scheduling()) {
            point(me, 0, 0); // time is written only at barriers: a read races with nothing
        }
        trace(me, "clock.nanoTime() -> " + ms(now));
        return now;
    }

    /** A client connects: queued in the listener's backlog. */
    public Conn connect() {
        return ledger.connect();
    }

    // ---- the supervisor's and the fault injector's acts (SupervisorActs)

    /** SIGTERM to worker {@code w}: it leaves at its next pass (a step on its process). */
    public void signal(Worker w) {
        acts.signal(w);
    }

    /** SIGKILL: as a transition of the calling actor (a scheduling point on the victim's process). */
    public void kill(Worker w) {
        acts.kill(w);
    }

    /** SIGSTOP / SIGCONT. */
    public void stop(Worker w, boolean stop) {
        acts.stop(w, stop);
    }

    /** waitpid returned for index i's process: the reap, then the supervisor's mark (RP). */
    public void reap(int index, SupervisorOps<Conn> sup) {
        acts.reap(index, sup, false);
    }

    /** The reap; with {@code replacing} the supervisor will respawn the index (counted as starting). */
    public void reap(int index, SupervisorOps<Conn> sup, boolean replacing) {
        acts.reap(index, sup, replacing);
    }

    /** Starts a replacement process into {@code index}; its loop runs {@code body}. */
    public Worker respawn(int index, Consumer<Worker> body) {
        return acts.respawn(index, body);
    }

    /** The supervisor's reap of {@code index} and its replacement, as m0serve's does it. */
    public Worker replace(int index, SupervisorOps<Conn> sup, Consumer<Worker> body) {
        return acts.replace(index, sup, body);
    }

    /** The supervisor gives up on {@code index}: the drain runs until done. */
    public void giveUp(SupervisorOps<Conn> sup, int index) {
        acts.giveUp(sup, index);
    }

    /** The give-up, then the watch of the given-up channel until {@code until}. */
    public void giveUpAndWatch(SupervisorOps<Conn> sup, int index, long until) {
        acts.giveUpAndWatch(sup, index, until);
    }


    // =====================================================================================
    // Records

    void violation(String rule, String message) {
        violations.add(new Violation(rule, message, step));
        trace(me(), "VIOLATION " + rule + ": " + message);
        if (stopOnViolation) {
            aborting = true;
        }
    }

    void trace(Actor a, String what) {
        log.add(step, now, a.name, what);
    }

    static String ms(long t) {
        long d = t - T0;
        long micros = (d % MS) / 1000;
        if (d < 0) {
            return "t=" + (d / MS) + "." + String.format("%03d", micros) + "ms";
        }
        // String.format's cost was a third of a random step's CPU (a JFR profile, ADR 0026)
        return "t=" + (d / MS) + (micros < 10 ? ".00" : micros < 100 ? ".0" : ".") + micros + "ms";
    }

    String traceText() {
        return log.text();
    }

    static long giveUpBound() {
        return SupervisorShare.GIVE_UP_DRAIN_NANOS;
    }
}
