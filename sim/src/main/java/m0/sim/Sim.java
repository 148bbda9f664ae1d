package m0.sim;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.locks.LockSupport;
import m0.core.Channel;
import m0.core.Clock;
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
    /** The balance oracle: at quiescence, served connections per worker differ by at most one. */
    boolean balanceOracle;
    /** Random mode: a kill is offered at each scheduling point of a killable actor, 1 in this. */
    int killOneIn;
    /** Random mode: a worker is descheduled for up to 5 ms at a scheduling point, 1 in this. */
    int stallOneIn;
    private long faultQuestions;
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
    final Worker[] current;
    final List<Worker> allWorkers = new ArrayList<>();
    final List<Conn> conns = new ArrayList<>();
    final long[] reapStep;
    final long[] bindStep;
    final boolean[] givenUp;
    final long[] giveUpAt;
    boolean stopping;

    // ---- the scheduler
    //
    // The turn: exactly one thread may change the world or the scheduler at a time, the one
    // whose actor the baton names (the controller before the first hand and after `finished`).
    // A turn ends with ONE release write, and nothing the releasing thread does after it may
    // write scheduler state: `baton = next` (hand), or `finished = true` after `baton = null`
    // (finish). Reads, unparks and the releasing actor's own `exited` flag are all it may
    // still touch. A carrier whose actor has lost its turn (killed, or the run ended) unwinds
    // at its next port access (me()). docs/adr/0008 has the hang this rule closes.
    final List<Actor> actors = new ArrayList<>();
    private final Actor setupActor;
    private boolean ended;
    private volatile Actor baton;
    private Thread controller;
    private volatile boolean finished;
    private boolean running;
    boolean aborting;
    boolean sleepBlocked;
    long step;
    long now = T0;
    long horizon = Long.MAX_VALUE;
    private Actor[] enabled = new Actor[8];
    private int enabledCount;
    private final EnabledView view = new EnabledView();

    // ---- records
    private final StringBuilder schedule = new StringBuilder();
    private final StringBuilder trace = new StringBuilder();
    private final String[] ring = new String[64];
    private long lines;
    private long traceHash = 0xcbf29ce484222325L;
    final List<Violation> violations = new ArrayList<>();
    private long switches;
    /** Raises orphaned by deaths, counted at quiescence (accepted by the oracles). */
    long orphans;

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
        this.tick = tick;
        this.channelCapacity = capacity;
        this.pageKind = PageKind.current;
        this.raw = pageKind.create(workers);
        this.page = new SimPage();
        this.channel = new SimChannel();
        this.clock = this::clockRead;
        this.ports = new Ports(this, page, channel, clock, workers);
        this.channels = new ArrayDeque[workers];
        for (int i = 0; i < workers; i++) {
            channels[i] = new ArrayDeque<>();
        }
        this.current = new Worker[workers];
        this.reapStep = new long[workers];
        this.bindStep = new long[workers];
        this.givenUp = new boolean[workers];
        this.giveUpAt = new long[workers];
        Arrays.fill(reapStep, -1);
        Arrays.fill(bindStep, -1);
        this.setupActor = new Actor(this, -1, "setup", null, null, workers);
    }

    // =====================================================================================
    // Building a world (before run, on the caller's thread: no scheduling points)

    /** A worker process at {@code index}, with no loop yet ({@link #loop} gives it one). */
    public Worker worker(int index) {
        Worker w = new Worker(this, index, "w" + index + generation(index));
        w.ops = protocol.worker(ports, index);
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
        if (running) {
            Actor parent = baton;
            source.onSpawn(parent.id, a.id);
            Carrier.run(a);
        }
        return a;
    }

    /** Clients that connected before the run: queued in the backlog. */
    public List<Conn> clients(int n) {
        List<Conn> out = new ArrayList<>();
        for (int k = 0; k < n; k++) {
            Conn c = newConn();
            c.inBacklog = true;
            backlog.add(c);
            out.add(c);
        }
        return out;
    }

    private Conn newConn() {
        Conn c = new Conn(conns.size() + 1);
        conns.add(c);
        return c;
    }

    /** Runs {@code body} now, outside the schedule (setup: its accesses are traced, not scheduled). */
    public void setup(Runnable body) {
        body.run();
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
        controller = Thread.currentThread();
        running = true;
        for (Actor a : actors) {
            Carrier.run(a);
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
        boolean quiescent = !aborting;
        aborting = true;
        for (Actor a : actors) {
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
            Oracles.atQuiescence(this);
        }
        return new Result(this, quiescent);
    }

    /** The carrier's entry: wait for the baton, run the body, hand the baton on. */
    void runActor(Actor a) {
        try {
            awaitBaton(a);
            if (aborting || a.state == Actor.DEAD) {
                throw new Killed();
            }
            a.state = Actor.RUNNING;
            a.body.run();
            exit(a);
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
            violation("CRASH", a + " threw " + t);
            trace(a, "crashed: " + t);
            aborting = true;
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

    private void awaitBaton(Actor me) {
        int spins = 0;
        while (baton != me) {
            if (++spins < 200) {
                Thread.onSpinWait();
            } else {
                LockSupport.park(this);
            }
        }
    }

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
     * set {@code aborting} ends the run itself (it holds the baton) and unwinds, instead of
     * asking for a turn the controller would have to hand back only to kill it.
     */
    private void unlessEnding(Actor me) {
        if (aborting && baton == me) {
            finish();
            throw new Killed();
        }
    }

    private void yieldFrom(Actor me) {
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
        if (aborting || me.state == Actor.DEAD) {
            throw new Killed();
        }
        me.state = Actor.RUNNING;
    }

    /** Oracles after the last step, then the choice of the next one; null ends the run. */
    private Actor decide(Actor me) {
        for (;;) {
            if (!aborting) {
                Oracles.afterStep(this);
            }
            if (aborting) {
                return null;
            }
            enabledCount = 0;
            for (Actor a : actors) {
                if (a.state == Actor.READY && !a.stopped) {
                    if (enabledCount == enabled.length) {
                        enabled = Arrays.copyOf(enabled, enabledCount * 2);
                    }
                    enabled[enabledCount++] = a;
                }
            }
            if (enabledCount == 0) {
                long t = Long.MAX_VALUE;
                for (Actor a : actors) {
                    if (a.state == Actor.SLEEPING && !a.stopped && a.wakeAt < t) {
                        t = a.wakeAt;
                    }
                }
                if (t == Long.MAX_VALUE) {
                    return null; // quiescent
                }
                if (t > horizon) {
                    violation("LIVELOCK", "still running at the horizon, " + ms(horizon));
                    aborting = true;
                    return null;
                }
                now = Math.max(now, t);
                source.onTimeAdvance();
                for (Actor a : actors) {
                    if (a.state == Actor.SLEEPING && !a.stopped && a.wakeAt <= now) {
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
            int k = source.next(view);
            if (k < 0) {
                sleepBlocked = true;
                aborting = true;
                return null;
            }
            if (enabledCount > 1) {
                ReplayChoices.record(schedule, k);
            }
            Actor next = enabled[k];
            if (killOneIn > 0 && next.worker != null && next.worker.started && source.chance('!', faultQuestions++, killOneIn)) {
                ReplayChoices.recordFault(schedule, '!', faultQuestions - 1);
                step++;
                kill(next.worker, "fault");
                continue;
            }
            if (stallOneIn > 0 && next.worker != null && next.state == Actor.READY
                    && (next.reads | next.writes) != Footprint.bit(Footprint.proc(next.id))
                    && source.chance('~', faultQuestions++, stallOneIn)) {
                ReplayChoices.recordFault(schedule, '~', faultQuestions - 1);
                next.state = Actor.SLEEPING;
                next.stalled = true;
                next.wakeAt = now + (1 + choose(50)) * 100_000L;
                trace(next, "stalled until " + ms(next.wakeAt));
                continue;
            }
            step++;
            source.onStep(next.id, next.reads, next.writes);
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
     * than acting, or being traced, as whoever holds the baton now.
     */
    Actor me() {
        Actor a = baton;
        Thread t = Thread.currentThread();
        if (running && t instanceof Carrier && ((Carrier) t).carrying() != a) {
            throw new Killed();
        }
        return a == null || !running ? (ended ? oracle : setupActor) : a;
    }

    private final Actor oracle = new Actor(this, -1, "quiescence", null, null, 1);

    private boolean scheduling() {
        return running && baton != null;
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
        yieldFrom(me);
    }

    /** A free choice (random worlds); recorded in the schedule. */
    public int choose(int n) {
        int v = source.choose(n);
        if (n > 1) {
            ReplayChoices.record(schedule, v);
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

    /** epoll: does the listener (if it accepts) or its channel have work? */
    boolean poll(Worker w) {
        Actor me = me();
        long reads = Footprint.bit(Footprint.acct(w.index)) | (w.accepts ? Footprint.bit(Footprint.LISTENER) : 0);
        point(me, reads, 0);
        boolean ready = !channels[w.index].isEmpty() || (w.accepts && !backlog.isEmpty());
        trace(me, "epoll -> " + (ready ? "ready" : "idle"));
        return ready;
    }

    Conn accept() {
        Actor me = me();
        if (scheduling()) {
            point(me, 0, Footprint.bit(Footprint.LISTENER));
        }
        Conn c = backlog.pollFirst();
        if (c != null) {
            c.inBacklog = false;
            c.holder = me;
            me.held.add(c);
        }
        trace(me, "listener.accept() -> " + (c == null ? "EAGAIN" : c));
        return c;
    }

    /** pick, and the NS / RP oracles on what the pick read. */
    int pick(Worker w, long open) {
        Actor me = me();
        Arrays.fill(me.stateReadStep, -1);
        int target = w.ops.pick(open);
        trace(me, "pick(open=" + open + ") -> w" + target);
        if (target != w.index) {
            Oracles.checkPick(this, me, target);
        }
        return target;
    }

    void serve(Worker w, Conn c) {
        Actor me = me();
        c.served = true;
        c.servedBy = w.index;
        if (c.holder != me) {
            throw new IllegalStateException(me + " serves " + c + " held by " + c.holder);
        }
        trace(me, "serve " + c);
    }

    /** A leaver closes a connection as idle: the B25-idle oracle judges it. */
    void closeIdle(Conn c) {
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

    private void release(Actor me, Conn c) {
        me.held.remove(c);
        c.holder = null;
    }

    /** A process exits normally: it closes what it holds. */
    private void exit(Actor a) {
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
        Actor me = me();
        if (scheduling()) {
            point(me, 0, Footprint.bit(Footprint.state(index)));
        }
        Worker w = current[index];
        trace(me, "waitpid -> " + w + " " + (w.dead ? "killed" : "exited"));
        sup.markReaped(index);
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

    /** The supervisor gives up on {@code index}: the drain runs until done. */
    public void giveUp(SupervisorOps<Conn> sup, int index) {
        SupervisorOps.Drain<Conn> drain = beginGiveUp(sup, index);
        while (stepGiveUp(drain)) {
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
        c.inBacklog = true;
        backlog.addLast(c);
        trace(me, "connect " + c);
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
        String line = "#" + step + " " + ms(now) + " " + a.name + " " + what;
        lines++;
        traceHash = (traceHash ^ line.hashCode()) * 0x100000001b3L;
        if (fullTrace) {
            trace.append(line).append('\n');
        } else {
            ring[(int) (lines % ring.length)] = line;
        }
    }

    static String ms(long t) {
        long d = t - T0;
        return "t=" + (d / MS) + "." + String.format("%03d", (d % MS) / 1000) + "ms";
    }

    String traceText() {
        if (fullTrace) {
            return trace.toString();
        }
        StringBuilder sb = new StringBuilder();
        long first = Math.max(1, lines - ring.length + 1);
        for (long l = first; l <= lines; l++) {
            sb.append(ring[(int) (l % ring.length)]).append('\n');
        }
        return sb.toString();
    }

    // =====================================================================================
    // The simulated ports

    private final class SimPage implements Page {
        @Override
        public int words() {
            return raw.words();
        }

        @Override
        public long getVolatile(int word) {
            Actor me = me();
            if (scheduling()) {
                point(me, Footprint.bit(Footprint.ofWord(word)), 0);
            }
            long v = raw.getVolatile(word);
            if (word >= PageLayout.HEADER_WORDS
                    && (word - PageLayout.HEADER_WORDS) % PageLayout.LINE_WORDS == PageLayout.STATE_OFFSET) {
                int i = (word - PageLayout.HEADER_WORDS) / PageLayout.LINE_WORDS;
                me.stateRead[i] = v;
                me.stateReadStep[i] = step;
                trace(me, "page.get(" + Footprint.wordName(word) + ") -> " + PageLayout.stateName(v));
            } else {
                trace(me, "page.get(" + Footprint.wordName(word) + ") -> " + v);
            }
            return v;
        }

        @Override
        public void setVolatile(int word, long value) {
            Actor me = me();
            if (scheduling()) {
                point(me, 0, Footprint.bit(Footprint.ofWord(word)));
            }
            long old = raw.getVolatile(word);
            raw.setVolatile(word, value);
            account(me, word, value - old);
            boolean state = word >= PageLayout.HEADER_WORDS
                    && (word - PageLayout.HEADER_WORDS) % PageLayout.LINE_WORDS == PageLayout.STATE_OFFSET;
            trace(me, "page.set(" + Footprint.wordName(word) + ", "
                    + (state ? PageLayout.stateName(value) : Long.toString(value)) + ")");
        }

        @Override
        public long getAndAdd(int word, long delta) {
            Actor me = me();
            if (scheduling()) {
                point(me, 0, Footprint.bit(Footprint.ofWord(word)));
            }
            long v = raw.getAndAdd(word, delta);
            account(me, word, delta);
            trace(me, "page.getAndAdd(" + Footprint.wordName(word) + ", " + (delta >= 0 ? "+" : "") + delta + ") -> " + v);
            return v;
        }

        @Override
        public boolean compareAndSet(int word, long expected, long value) {
            Actor me = me();
            if (scheduling()) {
                point(me, 0, Footprint.bit(Footprint.ofWord(word)));
            }
            long old = raw.getVolatile(word);
            boolean ok = raw.compareAndSet(word, expected, value);
            if (ok) {
                account(me, word, value - old);
            }
            trace(me, "page.compareAndSet(" + Footprint.wordName(word) + ", " + expected + ", " + value + ") -> " + ok);
            return ok;
        }
    }

    private void account(Actor me, int word, long delta) {
        if (word < PageLayout.HEADER_WORDS) {
            return;
        }
        int i = (word - PageLayout.HEADER_WORDS) / PageLayout.LINE_WORDS;
        int offset = (word - PageLayout.HEADER_WORDS) % PageLayout.LINE_WORDS;
        if (offset == PageLayout.PENDING_OFFSET) {
            me.balance[i] += delta;
        } else if (offset == PageLayout.TAKEN_OFFSET) {
            me.balance[i] -= delta;
        }
    }

    private final class SimChannel implements Channel<Conn> {
        @Override
        public boolean send(int target, Conn c) {
            Actor me = me();
            if (scheduling()) {
                point(me, 0, Footprint.bit(Footprint.acct(target)));
            }
            if (c.holder != me) {
                throw new IllegalStateException(me + " sends " + c + " held by " + c.holder);
            }
            if (channels[target].size() >= channelCapacity) {
                trace(me, "channel.send(w" + target + ", " + c + ") -> refused (full)");
                return false;
            }
            Oracles.onSend(Sim.this, me, target, c);
            release(me, c);
            channels[target].addLast(c);
            c.channel = target;
            c.sentStep = step;
            me.balance[target]--;
            trace(me, "channel.send(w" + target + ", " + c + ") -> sent");
            return true;
        }

        @Override
        public Conn receive(int index) {
            Actor me = me();
            if (scheduling()) {
                point(me, 0, Footprint.bit(Footprint.acct(index)));
            }
            Conn c = channels[index].pollFirst();
            if (c != null) {
                c.channel = -1;
                c.holder = me;
                me.held.add(c);
                me.balance[index]++;
                Oracles.onReceive(Sim.this, me, index, c);
            }
            trace(me, "channel.receive(w" + index + ") -> " + (c == null ? "EAGAIN" : c));
            return c;
        }
    }

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
        /** Raises orphaned by a death that the final accounting accepted. */
        public final long orphans;
        private final String trace;

        Result(Sim sim, boolean quiescent) {
            this.quiescent = quiescent;
            this.sleepBlocked = sim.sleepBlocked;
            this.violations = List.copyOf(sim.violations);
            this.schedule = sim.schedule.toString();
            this.steps = sim.step;
            this.switches = sim.switches;
            this.traceHash = sim.traceHash;
            this.orphans = sim.orphans;
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
