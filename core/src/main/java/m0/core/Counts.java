package m0.core;

/**
 * One index's {@code pending}, {@code taken} and {@code active} in ONE 64-bit word
 * ({@link PageLayout#countsWord}), so that every retire, receipt, raise, take-back and start's
 * subtraction is a single atomic add, and a reader gets the index's whole load from one load
 * (ADR 0024, ADR 0040).
 *
 * <pre>
 *   63         52 51                31 30            16 15             1    0
 *  +-------------+--------------------+----------------+----------------+------+
 *  | version (12)| active (signed 21) | pending (s 15) | taken (s 15)   | HEAL |
 *  +-------------+--------------------+----------------+----------------+------+
 * </pre>
 *
 * <p>Why one word for pending and taken: a retire was {@code taken -= n} then
 * {@code pending -= n}, and a worker killed between the two left {@code pending - taken} n high
 * for good (ADR 0002 chose high over low); start's subtraction had the same window. Why active
 * too (ADR 0040): a sibling's load is {@code active + pending}, and a pass end that published
 * active (now counting its receipts) in one word and retired them from pending in another left,
 * for as long as the worker was descheduled between the two stores, a load that counted every
 * receipt of its pass twice; a pick read it, kept the connection, and a burst landed 19/13
 * (ADR 0012's torn read). In one word there is no "between": a pass end's publish and retire,
 * and a start's zeroing, are one add.
 *
 * <p>Each field is a signed count; a field that goes below zero borrows from the one above, and
 * the decoding below undoes exactly that, so any sum of the deltas here decodes to the sums of
 * its parts. The widths: taken and pending hold what one index has raised and not retired
 * ({@link #IN_FLIGHT_MAX}: a channel queues a few hundred; the loop receives at most
 * {@link m0.core.loop.WorkerLoop#RECEIVE_BATCH} a pass); active holds a worker's open
 * connections, below a descriptor limit of 2^20 ({@link #ACTIVE_MAX}). Nothing but a set or a
 * clear ever touches bit 0. The version is not a count: every change of pending or taken adds one
 * to it (it wraps), so a heal's compare-and-set fails when any raise, take-back or receipt
 * changed the word since the heal read it, even a raise and a take-back that left both counts
 * as they were (an ABA the heal must not miss). Active moves no version: only the index's own
 * receiver writes it, and the heal is that receiver's (a heal never runs between its own
 * publishes). Twelve bits: a heal fooled by its word coming back to the same value would need
 * 4 096 changes to one index's counts (a multiple of them, netting zero) between two reads a few
 * microseconds apart. HEAL is the supervisor's request that the index's receiver heal its counts
 * ({@link Heal}), set on a reap, cleared by the heal that completes it: in the word the
 * receiver's own receipts and retires already return, so that noticing it costs nothing.
 */
public final class Counts {

    /** The heal request: set by a reap, cleared by the receiver's complete heal. */
    public static final long HEAL = 1L;
    /** One received connection, in the taken field (bits 1-15). */
    public static final long TAKEN_ONE = 1L << 1;
    /** One raised connection, in the pending field (bits 16-30). */
    public static final long PENDING_ONE = 1L << 16;
    /** One open connection, in the active field (bits 31-51): no version move (see above). */
    public static final long ACTIVE_ONE = 1L << 31;
    /** The version field's unit (bits 52-63): added by every change of pending or taken. */
    public static final long VERSION_ONE = 1L << 52;

    /** Most connections raised against one index and not yet retired that the fields hold. */
    public static final long IN_FLIGHT_MAX = (1L << 14) - 1;
    /** Most open connections one worker's active field holds: 2^20 - 1, a descriptor limit's worth. */
    public static final long ACTIVE_MAX = (1L << 20) - 1;

    /** A sender's raise (R5): pending + 1. */
    public static final long RAISE = PENDING_ONE + VERSION_ONE;
    /** A sender's take-back (target LEFT, channel full or failed): pending - 1. */
    public static final long TAKE_BACK = -PENDING_ONE + VERSION_ONE;
    /** A receipt published before admission: taken + 1. */
    public static final long RECEIPT = TAKEN_ONE + VERSION_ONE;
    /**
     * A receipt retired as it is taken by a receiver that never published it in taken (the
     * supervisor draining a dead index): pending - 1.
     */
    public static final long DRAINED = -PENDING_ONE + VERSION_ONE;

    private Counts() {
    }

    /** Retire {@code n} receipts: {@code pending -= n; taken -= n}, one word. */
    public static long retire(long n) {
        return -n * (PENDING_ONE + TAKEN_ONE) + VERSION_ONE;
    }

    /**
     * A heal: {@code pending -= excess} (raises orphaned by the dead), one compare-and-set; with
     * {@code complete}, the request is cleared too.
     */
    public static long healed(long counts, long excess, boolean complete) {
        return (complete ? counts & ~HEAL : counts) - excess * PENDING_ONE + VERSION_ONE;
    }

    /** A counts word with the heal request set (and the version moved). */
    public static long requestHeal(long counts) {
        return (counts | HEAL) + VERSION_ONE;
    }

    /** True when a reap asked this index's receiver to heal its counts. */
    public static boolean healRequested(long counts) {
        return (counts & HEAL) != 0;
    }

    /** The taken field of a counts word (or of a delta). */
    public static long taken(long counts) {
        return (counts << 48) >> 49;
    }

    /** The pending field of a counts word (or of a delta). */
    public static long pending(long counts) {
        return ((counts - taken(counts) * TAKEN_ONE) << 33) >> 49;
    }

    /** The active field of a counts word (or of a delta): the worker's published open connections. */
    public static long active(long counts) {
        long t = taken(counts);
        long p = ((counts - t * TAKEN_ONE) << 33) >> 49;
        return ((counts - t * TAKEN_ONE - p * PENDING_ONE) << 12) >> 43;
    }

    /**
     * The index's load as a sibling's pick reads it, {@code active + pending}, from one word: a
     * receipt is in pending until its retire and in active from the publish that retires it, so
     * a connection is counted exactly once at every instant (ADR 0040).
     */
    public static long load(long counts) {
        long t = taken(counts);
        long p = ((counts - t * TAKEN_ONE) << 33) >> 49;
        return (((counts - t * TAKEN_ONE - p * PENDING_ONE) << 12) >> 43) + p;
    }

    /** Active moved by {@code n} (no version move: only the index's receiver writes it). */
    public static long activeBy(long n) {
        return n * ACTIVE_ONE;
    }

    /** {@code pending - taken}: raised against the index and not yet received. */
    public static long inFlight(long counts) {
        return pending(counts) - taken(counts);
    }

    /** A counts word holding {@code pending} and {@code taken} (active 0, version 0): set-up and tests. */
    public static long of(long pending, long taken) {
        return pending * PENDING_ONE + taken * TAKEN_ONE;
    }

    /** A counts word holding {@code pending}, {@code taken} and {@code active} (version 0). */
    public static long of(long pending, long taken, long active) {
        return of(pending, taken) + activeBy(active);
    }

    /** "active 2 pending 3 taken 1": for traces and stats. */
    public static String toString(long counts) {
        return "active " + active(counts) + " pending " + pending(counts) + " taken " + taken(counts)
                + (healRequested(counts) ? " heal" : "");
    }
}
