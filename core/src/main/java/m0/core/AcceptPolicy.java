package m0.core;

/**
 * The seam where a worker decides who serves a connection it accepted. A policy only picks;
 * the hand-off, its handshake and its accounting stay in {@link AcceptShare}, so a policy
 * cannot break them.
 *
 * <p>A policy instance belongs to one worker and is called from that worker's loop only.
 */
public interface AcceptPolicy {

    /** The policy's name, as {@code --accept-policy} spells it. */
    String name();

    /**
     * False for the bare accept race: then every entry point of {@link AcceptShare} is one
     * boolean check and nothing else runs.
     */
    boolean shares();

    /**
     * Who should serve the connection {@code self} just accepted.
     *
     * @param siblings the page's view of every worker
     * @param self     the accepting worker's index
     * @param open     the accepting worker's live open connection count, this one excluded
     * @return {@code self}, or the index of a live sibling
     */
    int pick(Siblings siblings, int self, long open);

    /**
     * Picks that passed over a live sibling because it was over 2 ms into one pass when the
     * picker's batch began (ADR 0052; cumulative, for {@code m0serve stats}): what skews a
     * burst that lands uneven.
     */
    default long passedOverSlow() {
        return 0;
    }

    /**
     * Whether an established connection may move to a sibling (rebalance). Fountain: no, the
     * note's "established connections never move"; a move would also undo the fill order.
     */
    default boolean movesConnections() {
        return true;
    }

    /**
     * Whether the listener is registered so that one new connection wakes one waiting worker
     * ({@code EPOLLEXCLUSIVE}): share and race, where whoever wakes serves or passes it on.
     * Fountain: no, a worker woken for a connection it leaves to its head would sit on it while
     * the head, not woken, slept (ADR 0022).
     */
    default boolean wakesOne() {
        return true;
    }

    /**
     * The worker keeps its listener out of its interest set for reasons of its own ({@code held}:
     * at its connection cap, or backing off after EMFILE), or takes it back. A policy whose
     * siblings leave connections to this worker must tell them (fountain's HELD, ADR 0038);
     * others ignore it.
     */
    default void holdListener(Siblings siblings, int self, boolean held) {
    }

    /**
     * Whether admitting a connection, accepted or received, stamps the pass on the page, as
     * reading a request does (busy means busy, ADR 0015). No by default (ADR 0052): an admission
     * runs no view, and under share a pass that only accepted or received, descheduled for a
     * few milliseconds on a small machine, read to its siblings' picks as a slow inline view,
     * and they kept the rest of a burst. Fountain says yes: its head stuck inside an accept
     * batch is taken over after 2 ms (ADR 0019).
     */
    default boolean admissionIsBusy() {
        return false;
    }

    /**
     * The worker's pass ended ({@link AcceptShare#passEnd}): share's next pick judges its
     * siblings' passes afresh (ADR 0052).
     */
    default void passEnded() {
    }

    /** The worker took over its index ({@link AcceptShare#start()}): forget the predecessor's load. */
    default void started(Siblings siblings, int self) {
    }

    /**
     * Whether the policy judges its worker's load from busy time (fountain): the loop then hands
     * in a reading at every pass end and wakes at least every sample period to do so.
     */
    default boolean samplesBusy() {
        return false;
    }

    /** A reading of the loop's cumulative busy time (fountain's estimator); others ignore it. */
    default void sample(Siblings siblings, int self, long busyNanosTotal) {
    }

    /**
     * The same with the blocking pool's cumulative busy time and size (ADR 0029). By default the
     * pool is ignored, so a policy (or a checker's wrapper) that knows only the loop's reading
     * keeps working.
     */
    default void sample(Siblings siblings, int self, long busyNanosTotal, long poolBusyNanosTotal, int poolThreads) {
        sample(siblings, self, busyNanosTotal);
    }

    /**
     * The loop looked at the listener and found it {@code readable} or not: listen to it (and
     * accept now, when readable)? False leaves it to an earlier worker until
     * {@link #listenDeadline()}. Share and race: always true.
     */
    default boolean takeListener(Siblings siblings, int self, boolean readable) {
        return true;
    }

    /** After {@link #takeListener} said no: when to look at the listener again. */
    default long listenDeadline() {
        throw new IllegalStateException(name() + " never leaves the listener");
    }

    /**
     * Whether the policy judges the shape of the arriving connections (share's gate, ADR 0041):
     * the loop then hands in its driver's short closes and reuses at the start of every pass.
     */
    default boolean judgesShape() {
        return false;
    }

    /**
     * The loop's reading of its connections' shape ({@link LoadShape#observe}); true when the
     * policy's mode changed at it. Others ignore it.
     */
    default boolean shape(long now, long shortCloses, long reuses) {
        return false;
    }

    /** When the policy wants its next shape reading even if no pass comes; MAX_VALUE: never. */
    default long shapeDeadline() {
        return Long.MAX_VALUE;
    }

    /**
     * Whether this worker places and moves connections now. Share: not while its arrivals close
     * short (it keeps what it accepts, as the race does, and moves nothing).
     */
    default boolean balancing() {
        return true;
    }

    /** {@link #endBatch}: go on accepting. */
    int GO_ON = -1;
    /** {@link #endBatch}: end the accept batch, and tell nobody. */
    int END_BATCH = -2;

    /**
     * After an accept this worker kept: go on with the accept batch ({@link #GO_ON}), end it
     * ({@link #END_BATCH}), or end it and have the sibling whose index is returned look at the
     * listener now. Fountain ends the batch of a worker that is full while another live worker
     * is free (a later one, or an earlier one still taking): the note's "64 connections opened
     * at once spread over the loops (about nine per loop before the next one starts)" needs the
     * full worker to stop taking the burst, and the next one, which has left the listener to
     * it, to look at once rather than at its next look (up to 1 ms later, by when a loopback
     * burst is all taken). Share while keeping ends every batch at its first accept (ADR 0046).
     * Others: always go on.
     */
    default int endBatch(Siblings siblings, int self) {
        return GO_ON;
    }

    /** The bare race: always self. */
    static AcceptPolicy race() {
        return RacePolicy.INSTANCE;
    }

    /**
     * Least loaded: {@code active + pending}, ties to self, equal siblings in turn; while the
     * arriving connections close short ({@link LoadShape}), keep them.
     */
    static AcceptPolicy share() {
        return new SharePolicy();
    }

    /** Share judging the load's shape with {@code shape} (other thresholds: mutants). */
    static AcceptPolicy share(LoadShape shape) {
        return new SharePolicy(shape);
    }

    /**
     * Fill workers in index order (seed 004, ADR 0019): worker i accepts only while every
     * earlier worker is full (85 % busy, free below 70 %) or not taking, else leaves the
     * listener to them for up to 2 ms. Keeps what it accepts; moves nothing.
     */
    static AcceptPolicy fountain() {
        return fountain(new BusyEstimator());
    }

    /** Fountain judging its load with {@code estimator} (other periods and thresholds: mutants). */
    static AcceptPolicy fountain(BusyEstimator estimator) {
        return new FountainPolicy(estimator);
    }

    /**
     * The policy a server runs when {@code --accept-policy} names none: share, whatever the
     * worker count. A server started with one worker may be grown by SIGTTIN, and its workers
     * must share then; with one live worker share's pick reads the spare lines and keeps the
     * connection, and the keep-alive path never calls pick at all.
     */
    static String defaultName() {
        return "share";
    }

    /** The policy {@code --accept-policy} names. */
    static AcceptPolicy named(String name) {
        switch (name) {
            case "share":
                return share();
            case "race":
                return race();
            case "fountain":
                return fountain();
            default:
                throw new IllegalArgumentException("unknown accept policy '" + name + "' (share, race, fountain)");
        }
    }
}
