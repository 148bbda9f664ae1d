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
 *
 * <p>The entry points the rest of the code calls; each part of the protocol is a class of its
 * own, and this one hands each call to it: {@link AcceptPublication} (pick, send, keep, and
 * every add to this worker's counts word), {@link Receipts} (what arrives on its channel),
 * {@link PassStamp} (a pass's start and end on the state word), {@link Leaving} (LEFT, the
 * bounded drain, forwarding), {@link RebalanceMoves} and {@link RebalanceMarks} (rebalance's
 * look and move, and the marks the siblings' looks read), {@link ListenerTurns} (the policy's
 * say over the listener), {@link Heal} (the index's counts).
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
    private final AcceptPolicy policy;
    private final Siblings siblings;
    private final int self;
    private final boolean sharing;
    private final int stateWord;
    /** This index's heal (ADR 0024): when asked, pending - taken recounted at an EAGAIN. */
    private final Heal<C> heal;

    private final AcceptPublication<C> publication;
    private final Receipts<C> receipts;
    private final Leaving<C> leaving;
    private final PassStamp<C> pass;
    private final RebalanceMoves<C> moves;
    private final RebalanceMarks<C> marks;
    private final ListenerTurns<C> turns;

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
        this.policy = policy;
        this.siblings = new Siblings(page, clock, workers);
        HandOff<C> handOff = new HandOff<>(page, channel, siblings, PageLayout.sendingWord(self));
        this.self = self;
        this.sharing = workers > 1 && policy.shares();
        this.stateWord = PageLayout.stateWord(self);
        this.heal = new Heal<>(page, channel, self, workers);
        this.publication = new AcceptPublication<>(page, policy, siblings, handOff, heal, self, sharing);
        this.receipts = new Receipts<>(channel, heal, publication, self);
        this.leaving = new Leaving<>(page, clock, policy, siblings, handOff, heal, receipts, publication,
                self, sharing, leaveDrainNanos);
        this.pass = new PassStamp<>(page, clock, policy, publication, leaving, self, sharing);
        this.moves = new RebalanceMoves<>(clock, policy, siblings, handOff, rebalance, leaving, self, sharing);
        this.marks = new RebalanceMarks<>(page, policy, siblings, leaving, self, sharing);
        this.turns = new ListenerTurns<>(policy, siblings, leaving, self, sharing);
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
        publication.start(); // TAKEN and ACTIVE: the predecessor's counts, settled in one add
        marks.start(); // AFFINE and settled: the predecessor's marks
        policy.started(siblings, self); // fountain: a predecessor's FULL dies with it; share: BUSY 0
        // NS: PARKED last, once the channel will be read.
        page.setVolatile(stateWord, PageLayout.PARKED);
    }

    @Override
    public void passStart() {
        pass.passStart();
    }

    @Override
    public void work() {
        pass.work();
    }

    @Override
    public void admitted() {
        pass.admitted();
    }

    /** A TLS handshake is its connection's admission: stamped where an admission is (ADR 0069, addendum). */
    @Override
    public void handshaking() {
        admitted();
    }

    @Override
    public void passEnd(long open) {
        pass.passEnd(open);
    }

    @Override
    public int pick(long open) {
        return publication.pick(open);
    }

    @Override
    public boolean sendWith(int target, C connection) {
        return publication.sendWith(target, connection);
    }

    @Override
    public int sendPicked(int target, C connection) {
        return publication.sendPicked(target, connection);
    }

    @Override
    public void kept(long open) {
        publication.kept(open);
    }

    @Override
    public boolean keptIfUnchanged(long open) {
        return publication.keptIfUnchanged(open);
    }

    @Override
    public C receive() {
        return leaving.receive();
    }

    @Override
    public boolean awaitingStart() {
        return leaving.awaitingStart();
    }

    @Override
    public void leave() {
        leaving.leave();
    }

    @Override
    public boolean leaveStep(Consumer<? super C> admit) {
        return leaving.leaveStep(admit);
    }

    @Override
    public boolean handOver(C connection) {
        return leaving.handOver(connection);
    }

    @Override
    public boolean rebalances() {
        return moves.rebalances();
    }

    @Override
    public int rebalancePick(long open, long settled, long affinities) {
        return moves.rebalancePick(open, settled, affinities);
    }

    @Override
    public boolean settledOnly() {
        return moves.settledOnly();
    }

    @Override
    public void publishSettled(long settled) {
        marks.publishSettled(settled);
    }

    @Override
    public int affinityToMove(int target, long affinities) {
        return Rebalance.affinityToMove(target, affinities);
    }

    @Override
    public boolean swapping() {
        return moves.swapping();
    }

    /** The worker a client whose packets arrive on {@code cpu} pairs with: {@link Siblings#pairedWorker}. */
    public int pairedWorker(int cpu) {
        return siblings.pairedWorker(self, cpu);
    }

    @Override
    public void publishAffinities(long affinities) {
        marks.publishAffinities(affinities);
    }

    @Override
    public boolean rebalance(int target, C connection) {
        return moves.rebalance(target, connection);
    }

    /**
     * Fountain: a reading of the loop's cumulative busy nanoseconds (time outside its wait for
     * events); see {@link ListenerTurns#sample(long)}. Nothing for share/race.
     */
    public void sample(long busyNanosTotal) {
        turns.sample(busyNanosTotal);
    }

    @Override
    public void sample(long busyNanosTotal, long poolBusyNanosTotal, int poolThreads) {
        turns.sample(busyNanosTotal, poolBusyNanosTotal, poolThreads);
    }

    @Override
    public boolean takeListener(boolean readable) {
        return turns.takeListener(readable);
    }

    @Override
    public int endBatch() {
        return turns.endBatch();
    }

    @Override
    public long listenDeadline() {
        return turns.listenDeadline();
    }

    @Override
    public void holdListener(boolean held) {
        turns.holdListener(held);
    }

    @Override
    public void shape(long now, long shortCloses, long reuses) {
        marks.shape(now, shortCloses, reuses);
    }

    @Override
    public long shapeDeadline() {
        return marks.shapeDeadline();
    }

    @Override
    public boolean keepingEverywhere() {
        return marks.keepingEverywhere();
    }

    /** Idle connections this worker handed over to even the load. */
    public long rebalancedCount() {
        return moves.rebalancedCount();
    }

    public boolean left() {
        return leaving.left();
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

    /** Hand-offs this worker sent (fresh accepts passed to a sibling). */
    public long sentCount() {
        return publication.sentCount();
    }

    /** Sends and keeps not published because the counts they were decided on moved (ADR 0043, 0053): picked again. */
    public long pickedAgainCount() {
        return publication.pickedAgainCount();
    }

    /** Picks that passed a sibling over 2 ms into one pass when the batch began (share; else 0). */
    public long passedOverSlowCount() {
        return policy.passedOverSlow();
    }

    /** Connections this worker took off its channel. */
    public long receivedCount() {
        return receipts.receivedCount();
    }

    /** Connections this worker, leaving, forwarded or handed over to a sibling. */
    public long forwardedCount() {
        return leaving.forwardedCount();
    }

    /** Receipts that carried no connection (see {@link Channel#lost}): taken and retired, counted. */
    public long lostCount() {
        return receipts.lostCount();
    }
}
