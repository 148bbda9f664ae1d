package m0.core;

import java.util.function.Consumer;

/**
 * One worker's side of accept sharing: the protocol of {@code DESIGN.md}, called by the
 * worker's loop ({@link m0.core.loop.WorkerLoop}, which m0serve and the simulator run; a
 * Lincheck thread).
 *
 * <p>The loop calls, in its life: {@link #bind()} as its first act, {@link #start()} when it
 * is ready to serve, then per pass {@link #passStart()} (or {@link #work()}), {@link #admitted()}
 * for every accept and receipt, {@link #passOn} for every accept, {@link #receive()} to EAGAIN
 * when its channel is readable, {@link #passEnd(long)}; and to
 * stop, {@link #leave()} and {@link #leaveStep} until it says done.
 *
 * <p>Nothing here blocks, spins, sleeps or starts a thread: a bounded drain is a series of
 * steps the caller drives, with its deadline read from the {@link Clock} port. Not
 * thread-safe: one instance per worker, called from that worker's loop.
 *
 * <p>With one worker or the bare race every per-pass and per-accept entry point is one boolean
 * check. The lifecycle ones (bind, start, leave: once per life) still publish the state word,
 * so that the supervisor sees a worker start and leave whatever the policy.
 */
public final class AcceptShare<C> implements WorkerShare<C> {

    /** How long a leaver drains connections raised against it before it gives up waiting. */
    public static final long LEAVE_DRAIN_NANOS = 250_000_000L;

    /**
     * How long a leaver with no live sibling holds what it would have to close, while a sibling
     * is starting (spawned, not yet PARKED). A worker JVM starts in about a second on a quiet
     * machine and in four to six with the load average at 25 (measured here); five stay inside
     * m0serve's default 10 s grace.
     */
    public static final long START_WAIT_NANOS = 5_000_000_000L;

    /**
     * Rebalance's dead band: a worker hands an idle connection over only while its load exceeds
     * the lightest live sibling's by MORE than this. One: a move across a gap of one only swaps
     * the two loads, and the next look would move it back (ping-pong).
     */
    public static final long REBALANCE_DEAD_BAND = 1;

    /**
     * Rebalance's rate: at most one idle connection handed over per this interval per worker.
     * 2 ms: a 32/0 skew is even in about 32 ms of looks, far inside the second a client might
     * notice, while a hand-over never competes with the loop's own work for long.
     */
    public static final long REBALANCE_INTERVAL_NANOS = 2_000_000L;

    /**
     * Share's BUSY word while its worker keeps what it accepts (arrivals close short, ADR 0041):
     * for {@code m0serve stats}, for whether the listener defers (every worker keeps,
     * ADR 0056), and for the rebalance looks: a keeping worker's, and a balancing one's whose
     * target keeps (ADR 0059). No pick and no fresh hand-off reads it.
     */
    public static final long KEEPING_BIT = 1L << 34;

    /**
     * Share's BUSY word below {@link #KEEPING_BIT}: this worker's settled connections (reused
     * keep-alive ones), which the siblings' rebalance looks compare (ADR 0059). Capped to the
     * field: a worker never holds 2^34 connections.
     */
    public static final long SETTLED_MASK = KEEPING_BIT - 1;

    private final Page page;
    private final Channel<C> channel;
    private final Clock clock;
    private final AcceptPolicy policy;
    private final Siblings siblings;
    private final HandOff<C> handOff;
    private final int self;
    private final boolean sharing;
    private final long leaveDrainNanos;
    private final Rebalance rebalance;

    private final int stateWord;
    private final int countsWord;
    private final int affineWord;
    /** This index's heal (ADR 0024): when asked, pending - taken recounted at an EAGAIN. */
    private final Heal<C> heal;

    /** Connections received (taken) since the last retire: retired at the end of the pass. */
    private long received;
    /** Leave wins: once set, no pass writes this worker's state again. */
    private boolean left;
    private long leaveDeadline;
    private long leftAt;
    /**
     * Fresh hand-offs a leaver received when no sibling was live but one was starting: held,
     * not admitted (a leaver would close them unserved), until one starts or the wait ends.
     */
    private final java.util.ArrayDeque<C> awaitingStart = new java.util.ArrayDeque<>();
    /** Inside a pass whose start is published (see {@link #work()}). */
    private boolean stamped;
    /** What the active field of this worker's counts holds: written by start, the keeps and passEnd only. */
    private long publishedActive;
    /** What this worker's AFFINE word holds: written by start and publishAffinities only. */
    private long publishedAffinities;
    /** The settled count this worker's BUSY word holds (share): written by start, shape and publishSettled only. */
    private long publishedSettled;

    private long sent;
    private long pickedAgain;
    private long receivedTotal;
    private long forwarded;
    private long lost;
    private long rebalanced;

    public AcceptShare(Page page, Channel<C> channel, Clock clock, AcceptPolicy policy,
                       int workers, int self) {
        this(page, channel, clock, policy, workers, self, LEAVE_DRAIN_NANOS);
    }

    public AcceptShare(Page page, Channel<C> channel, Clock clock, AcceptPolicy policy,
                       int workers, int self, long leaveDrainNanos) {
        this(page, channel, clock, policy, workers, self, leaveDrainNanos,
                new Rebalance(REBALANCE_DEAD_BAND, REBALANCE_INTERVAL_NANOS));
    }

    /**
     * With the rebalance rules given: {@link Rebalance#off()} for {@code --rebalance off}, or
     * other thresholds (the checkers' mutants).
     */
    public AcceptShare(Page page, Channel<C> channel, Clock clock, AcceptPolicy policy,
                       int workers, int self, long leaveDrainNanos, Rebalance rebalance) {
        if (self < 0 || self >= workers) {
            throw new IllegalArgumentException("worker index " + self + " not in 0.." + (workers - 1));
        }
        this.page = page;
        this.channel = channel;
        this.clock = clock;
        this.policy = policy;
        this.siblings = new Siblings(page, clock, workers);
        this.handOff = new HandOff<>(page, channel, siblings, PageLayout.sendingWord(self));
        this.self = self;
        this.sharing = workers > 1 && policy.shares();
        this.leaveDrainNanos = leaveDrainNanos;
        this.rebalance = rebalance;
        this.stateWord = PageLayout.stateWord(self);
        this.countsWord = PageLayout.countsWord(self);
        this.affineWord = PageLayout.affineWord(self);
        this.heal = new Heal<>(page, channel, self, workers);
    }

    /** False with one worker or the race policy: then nothing below touches the page. */
    @Override
    public boolean sharing() {
        return sharing;
    }

    @Override
    public int self() {
        return self;
    }

    @Override
    public AcceptPolicy policy() {
        return policy;
    }

    /**
     * A replacement's first act: mark the index NOT_STARTED, keeping {@code pending} and
     * {@code taken} as the predecessor left them (start settles them).
     */
    @Override
    public void bind() {
        // NS: until start, nothing reads this channel; pick must skip us, not read us as idle.
        page.setVolatile(stateWord, PageLayout.NOT_STARTED);
    }

    /**
     * The loop is ready to serve: take over the index. {@code pending -= taken; taken = 0;
     * state = PARKED}.
     */
    @Override
    public void start() {
        if (!sharing) {
            page.setVolatile(stateWord, PageLayout.PARKED); // nothing was ever passed to us
            return;
        }
        // TAKEN: a predecessor that died between taking and retiring left taken > 0, and
        // those raises will never be retired by it; subtract them, or pending stays high for
        // good and every leaver's drain on this index waits out its bound. One word (Counts):
        // a death here leaves either all of it or none, never taken lowered and pending not.
        // Nobody else changes taken meanwhile (we are the index's only receiver, not receiving).
        long counts = page.getVolatile(countsWord);
        heal.note(counts);
        if (Counts.inFlight(counts) > 0) {
            // Raised against the index beyond what the predecessor took: queued, or a receipt it
            // died with before taking it (between recvmsg and taken + 1). A heal at our first
            // EAGAIN, once the queue is drained, tells the two apart.
            heal.ask();
        }
        // ACTIVE: the predecessor's open count died with it. Left in place, a sibling's pick
        // reads a fresh replacement as loaded with connections it does not have until its
        // first pass end, and keeps a whole burst itself. Zeroed in the same add that retires
        // taken, before PARKED: pick skips us until then.
        long taken = Counts.taken(counts);
        long settle = (taken != 0 ? Counts.retire(taken) : 0) - Counts.activeBy(Counts.active(counts));
        if (settle != 0) {
            page.getAndAdd(countsWord, settle);
        }
        publishedActive = 0;
        // AFFINE: the predecessor's connections died with it; a swap must not count on them.
        page.setVolatile(affineWord, 0);
        publishedAffinities = 0;
        publishedSettled = 0;
        policy.started(siblings, self); // fountain: a predecessor's FULL dies with it; share: BUSY 0
        // NS: PARKED last, once the channel will be read.
        page.setVolatile(stateWord, PageLayout.PARKED);
    }

    /**
     * A pass that will do work begins: publish its start time, so a pass that runs long is
     * skipped by pick. A loop whose wake-ups may find nothing (a listener whose connection a
     * sibling accepted first) calls {@link #work()} instead, at the first work it finds.
     */
    @Override
    public void passStart() {
        if (!sharing || left) {
            return;
        }
        stamped = true;
        long now = clock.nanoTime();
        page.setVolatile(stateWord, now > 0 ? now : 1); // > 0 means "in a pass"
    }

    /**
     * This pass has work (a request to parse, the app's code inline, a move; an accept or a
     * receipt where the policy counts it as busy, {@link #admitted()}):
     * publish the pass start now, once per pass. Busy means busy: a worker woken for nothing
     * and descheduled before it parks again stays PARKED to pick, where a stamp written at the
     * wake-up would read as "inside one pass for over 2 ms" and turn connections away from an
     * idle worker. A slow pass that does work is still stamped before its work, so pick skips it
     * (an admission is such work only where the policy says so, {@link #admitted()}).
     */
    @Override
    public void work() {
        if (!stamped) {
            passStart();
        }
    }

    /** An accept or a receipt stamps the pass where the policy counts it as busy (ADR 0052). */
    @Override
    public void admitted() {
        if (policy.admissionIsBusy()) {
            work();
        }
    }

    /** A TLS handshake is its connection's admission: stamped where an admission is (ADR 0069, addendum). */
    @Override
    public void handshaking() {
        admitted();
    }

    /**
     * A pass ends: publish {@code open} and retire what this pass received (one add), then
     * PARKED (unless left: leave wins). A word that already holds its value is not written again: a wake-up
     * that found nothing (a sibling won the accept, a timer with nothing due) costs no store on
     * the shared line, and nobody's pick sees a write that changed nothing.
     */
    @Override
    public void passEnd(long open) {
        if (!sharing) {
            return;
        }
        // Active and the retire in ONE add (ADR 0040): a received connection leaves pending in
        // the same instant it enters active, so a sibling's pick counts it exactly once, however
        // long we are descheduled here. A leaver publishes no load (LEFT: nobody picks it).
        long delta = 0;
        if (!left && open != publishedActive) {
            delta = Counts.activeBy(open - publishedActive);
            publishedActive = open;
        }
        if (received != 0) {
            delta += Counts.retire(received);
            received = 0;
        }
        if (delta != 0) {
            heal.note(page.getAndAdd(countsWord, delta));
        }
        if (!left && stamped) {
            page.setVolatile(stateWord, PageLayout.PARKED); // unstamped, it reads PARKED already
        }
        stamped = false;
        policy.passEnded(); // the next pass's picks judge the siblings' passes afresh (ADR 0052)
    }

    /** Who should serve a connection this worker accepted with {@code open} others open. */
    @Override
    public int pick(long open) {
        if (!sharing) {
            return self;
        }
        siblings.forgetOwn();
        return policy.pick(siblings, self, open);
    }

    /**
     * Pass the connection {@code R5 + B25}-safely to {@code target}. On false the caller still
     * owns it and serves it.
     */
    @Override
    public boolean sendWith(int target, C connection) {
        if (!sharing) {
            return false;
        }
        if (handOff.sendWith(target, connection)) {
            sent++;
            return true;
        }
        return false;
    }

    /**
     * The accept path's send (ADR 0043): raised only on the target's counts as this worker's
     * last pick read them ({@link Siblings#seen}); {@link HandOff#MOVED}: pick again.
     */
    @Override
    public int sendPicked(int target, C connection) {
        if (!sharing) {
            return HandOff.REFUSED;
        }
        int result = handOff.sendIfUnchanged(target, connection, siblings.seen(target));
        if (result == HandOff.SENT) {
            sent++;
        } else if (result == HandOff.MOVED) {
            pickedAgain++;
        }
        return result;
    }

    /**
     * A connection this worker accepted stays here: publish our load now rather than at pass
     * end, so that a sibling accepting from the same burst in its own pass picks against it
     * (ADR 0007). Less what this pass received: those are still in pending, and a sibling reads
     * active + pending, which stays exactly our open connections plus those in flight to us.
     * The accept path ({@link #passOn}) publishes a keep through {@link #keptIfUnchanged}, and
     * with this only on its last pick or after a refused send.
     */
    @Override
    public void kept(long open) {
        if (sharing) {
            long active = open + 1 - received;
            if (active != publishedActive) {
                page.getAndAdd(countsWord, Counts.activeBy(active - publishedActive));
                publishedActive = active;
            }
        }
    }

    /**
     * The accept path's keep (ADR 0053): published only on this worker's counts as its pick read
     * them ({@link Siblings#ownInFlight}); false, nothing published: a sibling's raise (or
     * anything else) moved them since, so the pick is made again. Where the pick read none of
     * this worker's counts (share keeping everything, the race, fountain), there is nothing to
     * hold the keep to and it is published as {@link #kept} does.
     *
     * <p>Why: a sibling's send is raised on the counts its pick read (ADR 0043), and so is this
     * keep, so of a send and a keep decided on one reading of this worker's counts only the first
     * to publish stands. Published blind, a keep and a sibling's send both landed here on the
     * same reading, and with three workers or more the one neither chose was left a connection
     * short (BURST-three: 1/2/0; a burst of 64 on four workers: 17/16/16/15). Where the active field
     * would not move (a close this pass, not yet published, makes up for the keep), the word is
     * only read again: a word that moved still sends the pick round again, and one that did not
     * already shows this worker's load with the keep in it, so a sibling's send decided on it
     * decides on the truth.
     */
    @Override
    public boolean keptIfUnchanged(long open) {
        if (!sharing) {
            return true;
        }
        if (!siblings.ownSeen()) {
            kept(open);
            return true;
        }
        long active = open + 1 - received;
        long seen = siblings.seen(self);
        if (active == publishedActive ? page.getVolatile(countsWord) != seen
                : !page.compareAndSet(countsWord, seen, seen + Counts.activeBy(active - publishedActive))) {
            pickedAgain++;
            return false;
        }
        publishedActive = active;
        return true;
    }

    /**
     * The next connection from this worker's channel to admit through the accept path's tail,
     * or null at EAGAIN. Call until null. After {@link #leave()} it forwards what arrives to a
     * live sibling and returns only what no sibling would take.
     */
    @Override
    public C receive() {
        if (!sharing) {
            return null;
        }
        for (;;) {
            C connection = channel.receive(self);
            // At EAGAIN, when asked: heal this index's counts (a connection that arrived while
            // the heal looked is taken like any other).
            if (connection == null && (connection = heal.atEagain()) == null) {
                return null;
            }
            // Published before admission: if we die holding it, our replacement's start (or the
            // supervisor's give-up) knows this raise will never be retired by us.
            heal.note(page.getAndAdd(countsWord, Counts.RECEIPT));
            received++;
            receivedTotal++;
            // A receipt with no connection in it (the kernel could not install the descriptor):
            // taken above and retired with the rest at the pass end, like any receipt; only
            // counted, nothing to admit or forward.
            if (channel.lost(connection)) {
                lost++;
                continue;
            }
            if (!left) {
                return connection;
            }
            // B25, idle side: a leaver must not admit a fresh hand-off only to close it as idle;
            // a sibling that still serves gets it.
            if (handOff.forward(self, connection) >= 0) {
                forwarded++;
                continue;
            }
            if (awaitingStart()) {
                awaitingStart.addLast(connection); // a sibling is starting: hold it for that one
                continue;
            }
            return connection; // no sibling is live: serve it here
        }
    }

    /**
     * True while this leaver should hold what no live sibling takes: a sibling is live or
     * starting (see {@link Siblings#anyLiveOrStarting}), and {@link #START_WAIT_NANOS} has not
     * passed since the leave. A leaver's
     * caller keeps its idle connections (retrying {@link #handOver}) while this says so.
     */
    @Override
    public boolean awaitingStart() {
        return left && sharing && clock.nanoTime() - leftAt - START_WAIT_NANOS < 0 && siblings.anyLiveOrStarting(self);
    }

    /**
     * Start leaving (SIGTERM, reload, scale-down). Then call {@link #leaveStep} until false.
     */
    @Override
    public void leave() {
        if (left) {
            return;
        }
        left = true;
        // B25, leaver side: LEFT is stored FIRST, before any receive of the drain, so that a
        // sender either reads LEFT after its raise or its raise is seen by our drain condition.
        page.setVolatile(stateWord, PageLayout.LEFT);
        if (sharing) {
            leftAt = clock.nanoTime();
            leaveDeadline = leftAt + leaveDrainNanos;
        }
    }

    /**
     * One step of the leaver's bounded drain: receive to EAGAIN, forwarding each connection to
     * a live sibling (handing to {@code admit} only what none would take), retire what was
     * received, and say whether to go on.
     *
     * @return true while a connection raised against this worker is still in flight
     *         ({@code pending - taken > 0}) and the bound has not passed
     */
    @Override
    public boolean leaveStep(Consumer<? super C> admit) {
        if (!left) {
            throw new IllegalStateException("leaveStep before leave");
        }
        if (!sharing) {
            return false;
        }
        C connection;
        while ((connection = receive()) != null) {
            admit.accept(connection);
        }
        retire();
        // What waits for a starting sibling: forwarded once one is live, admitted once none is
        // starting any more (it died, or the wait is over).
        for (int n = awaitingStart.size(); n > 0; n--) {
            C held = awaitingStart.pollFirst();
            if (handOff.forward(self, held) >= 0) {
                forwarded++;
            } else if (awaitingStart()) {
                awaitingStart.addLast(held);
            } else {
                admit.accept(held);
            }
        }
        long counts = page.getVolatile(countsWord);
        heal.note(counts);
        long inFlight = Counts.inFlight(counts);
        return !awaitingStart.isEmpty() || inFlight > 0 && clock.nanoTime() - leaveDeadline < 0;
    }

    /**
     * After {@link #leave()}: pass one of this worker's own idle connections (between requests,
     * nothing buffered, nothing owed: all its state is in the kernel) to a live sibling, which
     * admits it like a fresh accept. A reload or scale-down is then invisible to keep-alive
     * clients, where a close would race with their next request. Not under a policy whose
     * connections never move (fountain).
     *
     * @return true when a sibling took it; false: no live sibling would, or the policy keeps
     *         connections where they are: close it
     */
    @Override
    public boolean handOver(C connection) {
        if (!sharing || !left || !policy.movesConnections()) {
            // Fountain: established connections never move (seed 004), a leaver's neither; the
            // loop closes them once idle, as nginx's old workers do (ADR 0038).
            return false;
        }
        if (handOff.forward(self, connection) >= 0) {
            forwarded++;
            return true;
        }
        return false;
    }

    @Override
    public boolean rebalances() {
        return sharing && rebalance.on() && policy.movesConnections();
    }

    /**
     * Rebalance, the look: to whom this worker, holding {@code open} connections of which at
     * least one is idle, should hand one idle connection over now; {@code self} for nobody.
     * Call inside a pass (a move changes what {@link #passEnd} publishes), at most once per
     * move. See {@link Rebalance} for the rules.
     */
    @Override
    public int rebalancePick(long open, long settled, long affinities) {
        if (!sharing || left || !rebalance.on() || !policy.movesConnections()) {
            return self;
        }
        if (!policy.balancing()) {
            // Keeping (ADR 0041): arrivals close short, and a move counted in them would chase
            // them; the settled ones are still evened (ADR 0059).
            return policy.judgesShape() ? rebalance.pickSettled(siblings, self, settled, clock.nanoTime()) : self;
        }
        return rebalance.pick(siblings, self, open, settled, affinities & ~PageLayout.affineBit(self), clock.nanoTime());
    }

    @Override
    public boolean settledOnly() {
        return rebalance.settledOnly();
    }

    /**
     * At a pass end: this worker's settled connections, published in its BUSY word on a change
     * (share only), for the siblings' rebalance looks and stats (ADR 0059). Before the pass end's retire: a
     * connection moved here is in {@code pending} until then, so a sibling reading pending first
     * and this second never misses it.
     */
    @Override
    public void publishSettled(long settled) {
        long n = Math.min(settled, SETTLED_MASK);
        if (sharing && !left && policy.judgesShape() && n != publishedSettled) {
            publishedSettled = n;
            siblings.publishBusy(self, busyWord());
        }
    }

    /** Share's BUSY word: the mode bit and the settled count. */
    private long busyWord() {
        return (policy.balancing() ? 0 : KEEPING_BIT) | publishedSettled;
    }

    @Override
    public int affinityToMove(int target, long affinities) {
        return Rebalance.affinityToMove(target, affinities);
    }

    @Override
    public boolean swapping() {
        return rebalance.swapping();
    }

    /** The worker a client whose packets arrive on {@code cpu} pairs with: {@link Siblings#pairedWorker}. */
    public int pairedWorker(int cpu) {
        return siblings.pairedWorker(self, cpu);
    }

    /**
     * AFFINE, this worker's mark: the siblings it holds a connection for, which a sibling's
     * swap reads (ADR 0057). Written on a change only, by this worker alone; a leaver's stays as
     * it was (LEFT: nobody swaps with it), a replacement's start zeroes it, a keeping worker
     * clears it.
     */
    @Override
    public void publishAffinities(long affinities) {
        // Keeping, it neither swaps nor returns a swap (its look names nobody): it marks none.
        long mark = policy.balancing() ? affinities & ~PageLayout.affineBit(self) : 0;
        if (sharing && !left && mark != publishedAffinities) {
            page.setVolatile(affineWord, mark);
            publishedAffinities = mark;
        }
    }

    /**
     * Rebalance, the move: hand the idle {@code connection} (between requests, nothing buffered,
     * nothing owed: all its state is in the kernel) to {@code target}, which admits it like a
     * fresh accept. The same R5 + B25 hand-off as a fresh pass: nothing lost, nothing doubled.
     *
     * @return true when the target's channel holds it (close our descriptor, forget it); false:
     *         keep serving it
     */
    @Override
    public boolean rebalance(int target, C connection) {
        if (!sharing || left || target == self) {
            return false;
        }
        if (!handOff.sendWith(target, connection)) {
            return false;
        }
        rebalanced++;
        rebalance.moved(clock.nanoTime());
        return true;
    }

    /**
     * Fountain: a reading of the loop's cumulative busy nanoseconds (time outside its wait for
     * events). Call at every pass end and at least every 20 ms while parked (bound the wait's
     * timeout by it): a sample is taken when the last is 20 ms old, and a full worker turns
     * free only at a sample. Costs a clock read and a compare otherwise; nothing for share/race.
     */
    public void sample(long busyNanosTotal) {
        if (sharing && !left) {
            policy.sample(siblings, self, busyNanosTotal);
        }
    }

    /**
     * Fountain: the same with the blocking pool's reading (ADR 0029): its threads' cumulative
     * busy nanoseconds (a task still running counted up to now) and its size. A worker whose loop
     * idles while every pool thread is occupied reads full. Without a pool, {@link #sample(long)}.
     */
    @Override
    public void sample(long busyNanosTotal, long poolBusyNanosTotal, int poolThreads) {
        if (sharing && !left) {
            policy.sample(siblings, self, busyNanosTotal, poolBusyNanosTotal, poolThreads);
        }
    }

    /**
     * The loop looked at the listener: epoll found it readable, or it looks (a zero-timeout poll)
     * at the deadline of the last answer. True: listen to it (keep it in epoll) and, when
     * {@code readable}, accept from it now. False (fountain only, while an earlier worker is
     * taking): leave it to them, take the listener out of epoll, look again at
     * {@link #listenDeadline()} (within 1 ms). Always true for share and race.
     */
    @Override
    public boolean takeListener(boolean readable) {
        if (!sharing || left) {
            return true;
        }
        return policy.takeListener(siblings, self, readable);
    }

    /**
     * After an accept this worker kept: {@link AcceptPolicy#GO_ON} with the batch,
     * {@link AcceptPolicy#END_BATCH}, or end it and have the sibling returned look at the
     * listener now (fountain, a worker the accept turned full: {@link AcceptPolicy#endBatch}).
     */
    @Override
    public int endBatch() {
        if (!sharing || left) {
            return AcceptPolicy.GO_ON;
        }
        return policy.endBatch(siblings, self);
    }

    /** After {@link #takeListener} said false: when the loop looks at the listener again. */
    @Override
    public long listenDeadline() {
        return policy.listenDeadline();
    }

    /**
     * The loop keeps its listener out for reasons of its own, or takes it back (fountain
     * publishes it: a sibling must not leave new connections to a worker that will not take
     * them, ADR 0038). Nothing for share and race.
     */
    @Override
    public void holdListener(boolean held) {
        if (sharing && !left) {
            policy.holdListener(siblings, self, held);
        }
    }

    /**
     * Share's gate (ADR 0041): the loop's reading of what its connections did. A change of mode
     * is published in this worker's BUSY word ({@link LoadShape} keeping: {@link #KEEPING_BIT}),
     * for {@code m0serve stats}, the listener's deferral (ADR 0056) and the siblings' rebalance
     * looks (ADR 0059); no pick reads it.
     */
    @Override
    public void shape(long now, long shortCloses, long reuses) {
        if (sharing && !left && policy.shape(now, shortCloses, reuses)) {
            siblings.publishBusy(self, busyWord());
        }
    }

    @Override
    public long shapeDeadline() {
        return sharing && !left ? policy.shapeDeadline() : Long.MAX_VALUE;
    }

    /**
     * Every worker that serves keeps: this one by its own shape, each started sibling by the
     * {@link #KEEPING_BIT} in its BUSY word. A sibling's word may be a window old; the loop's
     * {@link m0.core.loop.ListenerDeferral} re-asks once a window, so a wrong answer lasts until
     * then.
     */
    @Override
    public boolean keepingEverywhere() {
        return sharing && !left && policy.judgesShape() && !policy.balancing()
                && siblings.everyLiveSiblingShows(self, KEEPING_BIT);
    }

    /** Idle connections this worker handed over to even the load. */
    public long rebalancedCount() {
        return rebalanced;
    }

    public boolean left() {
        return left;
    }

    /**
     * True when a heal of this index's counts was asked for (by a reap, or by this worker's own
     * start) and is not complete: one read of its counts word. The loop then receives (to
     * EAGAIN, where the heal happens) even without a readable channel; m0serve looks once a pass.
     */
    @Override
    public boolean healDue() {
        return sharing && heal.due();
    }

    /** A heal was asked for and is not complete, as far as this worker has seen (no page access). */
    public boolean healRequested() {
        return sharing && heal.requested();
    }

    /** Retire what was received since the last retire: {@code taken -= n; pending -= n}. */
    private void retire() {
        long n = received;
        if (n == 0) {
            return;
        }
        received = 0;
        heal.note(page.getAndAdd(countsWord, Counts.retire(n))); // one word: no death between taken and pending
    }

    /** Hand-offs this worker sent (fresh accepts passed to a sibling). */
    public long sentCount() {
        return sent;
    }

    /** Sends and keeps not published because the counts they were decided on moved (ADR 0043, 0053): picked again. */
    public long pickedAgainCount() {
        return pickedAgain;
    }

    /** Picks that passed a sibling over 2 ms into one pass when the batch began (share; else 0). */
    public long passedOverSlowCount() {
        return policy.passedOverSlow();
    }

    /** Connections this worker took off its channel. */
    public long receivedCount() {
        return receivedTotal;
    }

    /** Connections this worker, leaving, forwarded or handed over to a sibling. */
    public long forwardedCount() {
        return forwarded;
    }

    /** Receipts that carried no connection (see {@link Channel#lost}): taken and retired, counted. */
    public long lostCount() {
        return lost;
    }
}
