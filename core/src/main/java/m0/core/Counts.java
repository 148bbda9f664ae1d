package m0.core;

/**
 * One index's {@code pending} and {@code taken} in ONE 64-bit word ({@link PageLayout#countsWord}),
 * so that every retire, receipt, raise, take-back and start's subtraction is a single atomic
 * add, and a reader gets both counts from one load (ADR 0024).
 *
 * <pre>
 *   63                  41 40                  21 20                   1    0
 *  +----------------------+----------------------+----------------------+------+
 *  | version (+1 a change)| pending (signed 20)  | taken (signed 20)    | HEAL |
 *  +----------------------+----------------------+----------------------+------+
 * </pre>
 *
 * <p>Why one word: a retire was {@code taken -= n} then {@code pending -= n}, and a worker killed
 * between the two left {@code pending - taken} n high for good (ADR 0002 chose high over low);
 * start's subtraction had the same window. In one word there is no "between". Each field is a
 * signed 20-bit count (a line never holds half a million connections raised and unretired: its
 * channel queues a few hundred); a field that goes below zero borrows from the one above, and
 * the decoding below undoes exactly that, so any sum of the deltas here decodes to the sums of
 * its parts. Every delta is even: nothing but a set or a clear ever touches bit 0. The version is not a count: every delta adds one to it (it wraps), so a heal's
 * compare-and-set fails when anything at all changed the word since the heal read it, even a
 * raise and a take-back that left both counts as they were (an ABA the heal must not miss).
 * HEAL is the supervisor's request that the index's receiver heal its counts ({@link Heal}),
 * set on a reap, cleared by the heal that completes it: in the word the receiver's own receipts
 * and retires already return, so that noticing it costs nothing.
 */
public final class Counts {

    /** The heal request: set by a reap, cleared by the receiver's complete heal. */
    public static final long HEAL = 1L;
    /** One received connection, in the taken field. */
    public static final long TAKEN_ONE = 1L << 1;
    /** One raised connection, in the pending field. */
    public static final long PENDING_ONE = 1L << 21;
    /** The version field's unit: added by every change. */
    public static final long VERSION_ONE = 1L << 41;

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
        return (counts << 43) >> 44;
    }

    /** The pending field of a counts word (or of a delta). */
    public static long pending(long counts) {
        return ((counts - taken(counts) * TAKEN_ONE) << 23) >> 44;
    }

    /** {@code pending - taken}: raised against the index and not yet received. */
    public static long inFlight(long counts) {
        return pending(counts) - taken(counts);
    }

    /** A counts word holding {@code pending} and {@code taken} (version 0): set-up and tests. */
    public static long of(long pending, long taken) {
        return pending * PENDING_ONE + taken * TAKEN_ONE;
    }

    /** "pending 3 taken 1": for traces and stats. */
    public static String toString(long counts) {
        return "pending " + pending(counts) + " taken " + taken(counts) + (healRequested(counts) ? " heal" : "");
    }
}
