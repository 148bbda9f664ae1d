package m0.sim;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import m0.core.Channel;
import m0.core.Clock;
import m0.core.Counts;
import m0.core.Page;
import m0.core.PageLayout;
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
    /** BALANCE's bound, max - min at quiescence ({@link Oracles#BALANCE_SLACK} unless a world says more). */
    long balanceSlack = Oracles.BALANCE_SLACK;
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

    // ---- records
    private final TraceLog log;
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
        List<Conn> out = new ArrayList<>();
        for (int k = 0; k < n; k++) {
            Conn c = newConn();
            c.tls = tlsClients;
            c.inBacklog = true;
            c.arrivedAt = now;
            backlog.add(c);
            out.add(c);
        }
        return out;
    }

    /** Clients that connect from here on speak TLS (ADR 0069): the worker that serves one does its handshake. */
    boolean tlsClients;

    private Conn newConn() {
        Conn c = new Conn(conns.size() + 1);
        conns.add(c);
        return c;
    }

    /**
     * Worker {@code w} (its loop already given) starts the run holding {@code n} keep-alive
     * connections, answered and idle, and has published them as its load at a pass end.
     */
    public List<Conn> holds(Worker w, int n) {
        int[] unknown = new int[n];
        Arrays.fill(unknown, -1);
        return holdsPaired(w, unknown);
    }

    /** As {@link #holds}, but TLS connections whose handshake ran at {@code w} (ADR 0069): pinned there. */
    public List<Conn> holdsTls(Worker w, int n) {
        List<Conn> out = holds(w, n);
        out.forEach(c -> {
            c.tls = true;
            c.handshakeBegun = true;
        });
        return out;
    }

    /** As {@link #holds}, but each answered once and not yet reused: open, idle, not settled (ADR 0059). */
    public List<Conn> holdsUnsettled(Worker w, int n) {
        List<Conn> out = holds(w, n);
        out.forEach(c -> c.unsettled = true);
        initialSettled[w.index] -= n;
        w.share.publishSettled(w.settled());
        return out;
    }

    /**
     * Worker {@code w} holds one idle connection per entry of {@code affinities}, each with the
     * worker its client pairs with (-1: none known), published as at a pass end.
     */
    public List<Conn> holdsPaired(Worker w, int... affinities) {
        List<Conn> out = new ArrayList<>();
        long mark = 0;
        for (int a : affinities) {
            Conn c = newConn();
            c.served = true;
            c.servedBy = w.index;
            c.holder = w.actor;
            c.affinity = a;
            if (a >= 0) {
                mark |= PageLayout.affineBit(a);
                initialPaired[w.index][a]++;
            }
            w.actor.held.add(c);
            out.add(c);
        }
        initialLoad[w.index] += affinities.length;
        initialSettled[w.index] += affinities.length;
        if (mark != 0) {
            w.share.publishAffinities(mark);
        }
        w.share.publishSettled(w.settled());
        w.share.passEnd(w.open()); // published as at a pass end: the core's own add, its own record of it
        return out;
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
    public Result run() {
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

    /** What {@link #epollWait} found ready: the worker's channel, the listener. */
    static final int CHANNEL_READY = 1;
    static final int LISTENER_READY = 2;

    /**
     * epoll_wait until {@code until}: at once when the worker's channel (a hand-off or a nudge)
     * or the listener it holds in its interest set is ready, or SIGTERM is pending; otherwise
     * blocked until one wakes it (a send to its channel, a connection the listener's wake rule
     * gives it, a signal) or the time comes. Level-triggered: what is ready is looked at again
     * after every wake-up.
     */
    int epollWait(Worker w, long until) {
        Actor me = me();
        int ready = lookReady(w, me);
        if (ready != 0 || w.terminate || until - now <= 0) {
            return ready;
        }
        w.inEpoll = true;
        w.woken = false;
        me.state = Actor.SLEEPING;
        me.wakeAt = until;
        trace(me, "epoll_wait" + (w.armed ? "" : " (listener out)") + " until " + ms(until));
        turn.yieldFrom(me);
        w.inEpoll = false;
        if (w.woken) {
            // The step that resumed us is the look: the waker gave it the look's footprint.
            return ready(w, me);
        }
        return lookReady(w, me); // the time came: look, a step of its own
    }

    /** What the wait's look reads: the channel, and the listener when it is in the interest set. */
    private static long lookFootprint(Worker w) {
        return (w.watchingChannel ? Footprint.bit(Footprint.acct(w.index)) : 0)
                | (w.armed && w.accepts ? Footprint.bit(Footprint.LISTENER) : 0);
    }

    /** The wait's look at its interest set: a step that reads the channel and the listener. */
    private int lookReady(Worker w, Actor me) {
        point(me, lookFootprint(w), 0);
        return ready(w, me);
    }

    private int ready(Worker w, Actor me) {
        boolean listener = w.armed && w.accepts;
        int ready = 0;
        if (w.watchingChannel && (!channels[w.index].isEmpty() || nudgePending[w.index])) {
            ready |= CHANNEL_READY;
        }
        if (listener && !backlog.isEmpty()) {
            ready |= LISTENER_READY;
        }
        trace(me, "epoll -> " + (ready == 0 ? "idle" : ((ready & CHANNEL_READY) != 0 ? "channel " : "")
                + ((ready & LISTENER_READY) != 0 ? "listener" : "")).strip());
        return ready;
    }

    /**
     * Wakes worker {@code w} if it is blocked in its wait (its channel turned readable, a
     * connection the listener's wake rule gives it, a signal): its next step is its look.
     */
    void wake(Actor waker, Worker w) {
        Actor a = w.actor;
        if (a == null || !w.inEpoll || a.state != Actor.SLEEPING || w.dead) {
            return;
        }
        w.inEpoll = false;
        w.woken = true;
        a.state = Actor.READY;
        a.reads = lookFootprint(w);
        a.writes = Footprint.bit(Footprint.proc(a.id));
        source.onWake(waker.id, a.id);
        trace(waker, "wakes " + w);
    }

    /**
     * The listener goes into worker {@code w}'s interest set, or out (epoll_ctl): a step that
     * reads it, for a worker that can win an accept. One the kernel never hands a connection to
     * is woken by none either, so its registration changes nothing a sibling can see.
     */
    void interest(Worker w, boolean in) {
        Actor me = me();
        if (scheduling() && w.accepts) {
            point(me, Footprint.bit(Footprint.LISTENER), 0);
        }
        w.armed = in;
        trace(me, "epoll_ctl(listener, " + (in ? "ADD" : "DEL") + ")");
    }

    /** Accept failed with EMFILE (the world's fault): a step on the listener, nothing taken. */
    void acceptFails(Worker w) {
        Actor me = me();
        point(me, Footprint.bit(Footprint.LISTENER), 0);
        trace(me, "listener.accept() -> EMFILE");
    }

    /** Fountain's nudge: a datagram with no connection on {@code target}'s channel, which wakes it. */
    void nudge(int target) {
        Actor me = me();
        point(me, 0, Footprint.bit(Footprint.acct(target)));
        nudgePending[target] = true;
        trace(me, "channel.nudge(w" + target + ")");
        Worker w = current[target];
        if (w != null && w.watchingChannel) {
            wake(me, w);
        }
    }

    /** SIGTERM to worker {@code w}: it leaves at its next pass (a step on its process). */
    public void signal(Worker w) {
        Actor me = me();
        if (scheduling()) {
            point(me, 0, w.actor == null ? 0 : Footprint.bit(Footprint.proc(w.actor.id)));
        }
        w.terminate = true;
        trace(me, "SIGTERM " + w);
        wake(me, w);
    }

    Conn accept() {
        Actor me = me();
        if (scheduling()) {
            point(me, listener.acceptReads(me), Footprint.bit(Footprint.LISTENER));
        }
        Conn c = backlog.pollFirst();
        if (c != null) {
            c.inBacklog = false;
            c.holder = me;
            me.held.add(c);
            if (me.worker != null) {
                me.deciding = c;
            }
            c.acceptedAt = now;
            listener.onAccept(me, c);
        }
        trace(me, "listener.accept() -> " + (c == null ? "EAGAIN" : c));
        return c;
    }

    /**
     * A leaver closes one of its connections that no live sibling took: a served one (idle
     * keep-alive) is judged by CONN, one it admitted and never read by B25-idle.
     */
    void closeAtLeave(Worker w, Conn c) {
        if (c.handshakeBegun) {
            Actor me = me();
            release(me, c);
            c.eof = "closed gracefully by leaver " + me + " (its TLS session lives there, ADR 0069)";
            trace(me, "close " + c + " (leaving: TLS, close_notify)");
            return;
        }
        if (!c.served) {
            closeIdle(c);
            return;
        }
        Actor me = leaverClosePoint();
        release(me, c);
        c.eof = "closed by leaver " + me + " (no live sibling took it)";
        trace(me, "close " + c + " (leaving, no live sibling took it)");
        if (w.share.policy().movesConnections()) {
            Oracles.checkLeaveClose(this, me, c); // fountain's never move: a leaver closes them (ADR 0038)
        }
    }

    /** A leaver's close, judged against every sibling's state and life: a step that reads them. */
    private Actor leaverClosePoint() {
        Actor me = me();
        long reads = 0;
        for (int j = 0; j < workers; j++) {
            reads |= Footprint.bit(Footprint.state(j));
        }
        for (Actor a : actors) {
            if (a.worker != null) {
                reads |= Footprint.bit(Footprint.proc(a.id));
            }
        }
        point(me, reads, 0);
        return me;
    }

    void serve(Worker w, Conn c) {
        Actor me = me();
        c.served = true;
        c.servedBy = w.index;
        if (c.holder != me) {
            throw new IllegalStateException(me + " serves " + c + " held by " + c.holder);
        }
        c.handshakeBegun |= c.tls; // the serving worker reads its ClientHello (ADR 0069)
        trace(me, "serve " + c + (c.tls ? " (TLS handshake)" : ""));
    }

    /** A connection admitted in the pass a stop began in: its request was never read. */
    void unserve(Worker w, Conn c) {
        if (c.holder == w.actor && c.served) {
            c.served = false;
            c.servedBy = -1;
            trace(me(), c + " admitted in the stop's pass: not read");
        }
    }

    /** A leaver closes a connection as idle: the B25-idle oracle judges it. */
    void closeIdle(Conn c) {
        Actor me = leaverClosePoint();
        release(me, c);
        c.eof = "closed as idle by leaver " + me;
        trace(me, "close " + c + " (idle, never served)");
        Oracles.checkIdleClose(this, me, c);
    }

    /** The give-up drain closes a connection no live worker would take. */
    void closeByGiveUp(Conn c) {
        Actor me = me();
        release(me, c);
        c.eof = "closed by give-up (no live worker)";
        trace(me, "close " + c + " (give-up: no live worker)");
        Oracles.checkGiveUpClose(this, c);
    }

    void release(Actor me, Conn c) {
        me.held.remove(c);
        c.holder = null;
        if (me.deciding == c) {
            me.deciding = null;
        }
    }

    /** A process exits normally: it closes what it holds. */
    void exit(Actor a) {
        if (rebalanceOracle && a.worker != null && !a.worker.left) {
            // The rebalance worlds end while their workers still serve: the loop's last wake
            // is the run's end, not the process's, and it keeps what it holds (a kill still can).
            trace(a, "last wake (still serving " + a.held.size() + ")");
            return;
        }
        for (Conn c : a.held) {
            if (!c.served) {
                c.eof = "closed unserved at exit of " + a;
                Oracles.unservedAtExit(this, a, c);
            }
            c.holder = null;
        }
        a.held.clear();
        if (a.worker != null) {
            a.worker.exited = true;
        }
        trace(a, "exit");
    }

    // ---- the supervisor's and the fault injector's acts

    /** SIGKILL: as a transition of the calling actor (a scheduling point on the victim's process). */
    public void kill(Worker w) {
        Actor me = me();
        if (scheduling()) {
            point(me, 0, w.actor == null ? 0 : Footprint.bit(Footprint.proc(w.actor.id)));
        }
        kill(w, "SIGKILL by " + me);
    }

    void kill(Worker w, String why) {
        if (w.dead || w.exited) {
            trace(me(), "kill " + w + " (already gone)");
            return;
        }
        w.dead = true;
        Actor a = w.actor;
        if (a != null) {
            a.state = Actor.DEAD;
            diedWithHolder += a.held.size();
            for (Conn c : a.held) {
                c.eof = "holder " + a + " died";
                c.holder = null;
            }
            a.held.clear();
        }
        trace(me(), "kill " + w + " (" + why + ")");
    }

    /** SIGSTOP / SIGCONT. */
    public void stop(Worker w, boolean stop) {
        Actor me = me();
        if (scheduling()) {
            point(me, 0, w.actor == null ? 0 : Footprint.bit(Footprint.proc(w.actor.id)));
        }
        if (w.actor != null) {
            w.actor.stopped = stop;
        }
        trace(me, (stop ? "SIGSTOP " : "SIGCONT ") + w);
    }

    /**
     * waitpid returned for index i's process: the reap, then the supervisor's mark
     * ({@code markReaped}, RP) before anything decides whether to replace it. The RP oracle
     * counts "after the reap" from the end of this.
     */
    public void reap(int index, SupervisorOps<Conn> sup) {
        reap(index, sup, false);
    }

    /** The reap; with {@code replacing} the supervisor will respawn the index (counted as starting). */
    public void reap(int index, SupervisorOps<Conn> sup, boolean replacing) {
        Actor me = me();
        if (scheduling()) {
            point(me, 0, Footprint.bit(Footprint.state(index)));
        }
        Worker w = current[index];
        trace(me, "waitpid -> " + w + " " + (w.dead ? "killed" : "exited"));
        sup.markReaped(index, replacing);
        if (scheduling()) {
            // The oracles judge sends and picks against this moment, so it is an event of its
            // own, dependent with both (the state word and the acct group): the reduction
            // then orders every send and every state read against it.
            point(me, 0, Footprint.bit(Footprint.state(index)) | Footprint.bit(Footprint.acct(index)));
        }
        w.reaped = true;
        reapStep[index] = step;
        trace(me, "reaped w" + index);
    }

    /** Starts a replacement process into {@code index}; its loop runs {@code body}. */
    public Worker respawn(int index, java.util.function.Consumer<Worker> body) {
        Worker w = worker(index);
        givenUp[index] = false;
        loop(w, () -> body.accept(w));
        trace(me(), "spawn " + w);
        return w;
    }

    /**
     * The supervisor's reap of {@code index} and its replacement, as m0serve's does it: the
     * replacement marked starting before the LEFT ({@code markReaped(index, true)}), spawned into
     * the index, and watched on the page until it starts ({@code startSeen}), dies or exits.
     */
    public Worker replace(int index, SupervisorOps<Conn> sup, java.util.function.Consumer<Worker> body) {
        reap(index, sup, true);
        Worker r = respawn(index, body);
        while (!r.dead && !r.exited && !sup.startSeen(index)) {
            sleep(tick + 1_000);
        }
        return r;
    }

    /** The supervisor gives up on {@code index}: the drain runs until done. */
    public void giveUp(SupervisorOps<Conn> sup, int index) {
        SupervisorOps.Drain<Conn> drain = beginGiveUp(sup, index);
        while (stepGiveUp(drain)) {
            sleep(tick);
        }
    }

    /**
     * The give-up, then the watch that follows it: the given-up channel is read until
     * {@code until} (the index is never bound again here), re-homing what arrives late.
     */
    public void giveUpAndWatch(SupervisorOps<Conn> sup, int index, long until) {
        SupervisorOps.Drain<Conn> drain = beginGiveUp(sup, index);
        while (stepGiveUp(drain)) {
            sleep(tick);
        }
        giveUpDoneStep[index] = step;
        trace(me(), "give-up drain of index " + index + " done; watching its channel");
        while (now < until) {
            drain.watch(this::closeByGiveUp);
            sleep(tick);
        }
    }

    SupervisorOps.Drain<Conn> beginGiveUp(SupervisorOps<Conn> sup, int index) {
        givenUp[index] = true;
        giveUpAt[index] = now;
        trace(me(), "give up on index " + index);
        return sup.giveUp(index);
    }

    boolean stepGiveUp(SupervisorOps.Drain<Conn> drain) {
        return drain.step(this::closeByGiveUp);
    }

    /** A client connects: queued in the listener's backlog. */
    public Conn connect() {
        Actor me = me();
        if (scheduling()) {
            point(me, 0, Footprint.bit(Footprint.LISTENER));
        }
        Conn c = newConn();
        c.tls = tlsClients;
        c.inBacklog = true;
        c.arrivedAt = now;
        backlog.addLast(c);
        trace(me, "connect " + c);
        listener.onConnect(me);
        return c;
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

    // =====================================================================================
    // The simulated ports




    // =====================================================================================

    /** What a run found. */
    public static final class Result {
        public final boolean quiescent;
        public final boolean sleepBlocked;
        public final List<Violation> violations;
        public final String schedule;
        public final long steps;
        public final long switches;
        public final long traceHash;
        /** Raises orphaned by a death that the final accounting accepted (unhealed). */
        public final long orphans;
        /** What heals took off pending - taken, every index together. */
        public final long healed;
        private final String trace;

        Result(Sim sim, boolean quiescent) {
            this.quiescent = quiescent;
            this.sleepBlocked = sim.sleepBlocked;
            this.violations = List.copyOf(sim.violations);
            this.schedule = sim.turn.schedule.toString();
            this.steps = sim.step;
            this.switches = sim.turn.switches;
            this.traceHash = sim.log.hash();
            this.orphans = sim.orphans;
            long h = 0;
            for (long n : sim.healed) {
                h += n;
            }
            this.healed = h;
            this.trace = sim.traceText();
        }

        public boolean ok() {
            return violations.isEmpty();
        }

        /** The run's trace (in full, or its last lines for long random runs). */
        public String trace() {
            return trace;
        }
    }

    static long giveUpBound() {
        return SupervisorShare.GIVE_UP_DRAIN_NANOS;
    }
}
