package m0.core;

/**
 * The layout of the shared page, in 64-bit words.
 *
 * <pre>
 *   word
 *     0  +--------------------------------------------------+
 *        | EVENT_ID   reserved: a supervisor -> worker bus  |
 *     1  | ROTATION   pick's rotating start (rotation++)    |
 *     2  | REHOMED    stat: re-homed by give-up drains      |
 *     3  | LOST       stat: receipts with no connection     |
 *     4  | reserved (was STARTING: now the STARTING region) |
 *     5  | SUP_SENDING the supervisor's hand-off target + 1 |
 *     6  | START_FAILED fingerprint of the first app start- |
 *        |            up failure a worker printed (ADR 0062)|
 *     7  | FACTS     bits the workers report: APP_TLS      |
 *        +==================================================+  lineOf(0) = 8
 *   +0   | STATE      NOT_STARTED 0 | PARKED -2 | LEFT -1   |
 *        |            | &gt; 0: in a pass, stamped at its   |
 *        |            |   first stamped work (ADR 0015, 0052) |
 *   +1   | AFFINE     bit j: i holds a connection whose     |
 *        |            client pairs with worker j (ADR 0057) |
 *   +2   | COUNTS     version|active|pending|taken|HEAL |
 *        |            (Counts), one word: i's open          |
 *        |            connections (each pass end; mid-pass, |
 *        |            less its receipts), passed to i /     |
 *        |            received by i and not yet retired     |
 *   +3   | SENDING    target + 1 of i's hand-off in progress|
 *   +4   | BUSY       fountain's published load, per mille  |
 *        |            | FULL | HELD (FountainPolicy); share: |
 *        |            | settled count | KEEPING (ADR 0059)   |
 *   +5   | SENT       stat: fresh accepts passed on         |
 *   +6   | RECEIVED   stat: taken off its channel           |
 *   +7   | FORWARDED  stat: passed on again while leaving   |
 *        +==================================================+  lineOf(1) = 16
 *        | ... one 64-byte line per worker: no false sharing |
 *        +==================================================+  lineOf(workers)
 *        | STARTING   one bit per index, 64 indices a word: |
 *        |            spawned, not yet seen started         |
 *        +--------------------------------------------------+
 * </pre>
 *
 * <p>The words of a line and who writes them:
 * <ul>
 *   <li>STATE: worker i (bind, start, pass start and end, leave); the supervisor on reap.
 *   <li>BUSY, AFFINE, and the active field of COUNTS: worker i only (its replacement's start
 *       zeroes them).
 *   <li>SENT, RECEIVED, FORWARDED (line) and REHOMED, LOST (header): statistics for observers
 *       ({@code m0serve stats}), published by their owner's loop; the protocol never reads them.
 *   <li>COUNTS, its pending half: raised and taken back by any sender; retired by worker i, its
 *       replacement's start, or the supervisor's give-up; healed by i's receiver. Its HEAL bit:
 *       set by the supervisor on a reap, cleared by the heal.
 *   <li>STARTING, index i's bit: set by the supervisor before it spawns into i (or, replacing,
 *       before the reap's LEFT), cleared once it has seen i start, or reaped it for good. Read by
 *       a leaver or a give-up that finds no live worker, never for its own index (ADR 0038).
 *   <li>COUNTS, its taken half: worker i; zeroed by its replacement's start or the supervisor's
 *       give-up.
 *   <li>SENDING: worker i, around each of its hand-offs; cleared by the supervisor on i's reap.
 *       SUP_SENDING: the supervisor, around each re-homing.
 * </ul>
 *
 * <p>Invariant kept by every writer: {@code pending[i] - taken[i] >= in flight to i} (raised and
 * not yet received), at every step, across a death at any step. A death inside a hand-off (a
 * sender between its raise and its send or take-back, a receiver between recvmsg and its
 * receipt) leaves it high; the heal of index i that the reap asks for brings it back to
 * equality ({@link Heal}, ADR 0024). Every retire and start is one word: nothing in between.
 */
public final class PageLayout {

    /** Word 0: reserved for a supervisor-to-worker event bus. */
    public static final int EVENT_ID_WORD = 0;
    /** Word 1: the rotation counter; pick scans siblings from {@code rotation++ % n}. */
    public static final int ROTATION_WORD = 1;
    /** Word 2: statistic, connections the supervisor's give-up drains re-homed (all indices). */
    public static final int REHOMED_WORD = 2;
    /**
     * Word 3: statistic, receipts that carried no connection (all indices): a hand-off whose
     * descriptor the receiver's kernel could not install (out of descriptors) or a datagram
     * without one. Each was taken and retired like any receipt; added to by the receiving
     * worker's loop and by give-up drains.
     */
    public static final int LOST_WORD = 3;
    /**
     * Word 5: the supervisor's {@link #SENDING_OFFSET}: target + 1 while it re-homes a connection
     * from a given-up index (its give-up drain and watch are senders too), else 0.
     */
    public static final int SUPERVISOR_SENDING_WORD = 5;
    /**
     * Word 6: not the protocol's. The fingerprint of the first app start-up failure a worker
     * printed in full (0: none yet), so that N workers failing alike print the cause once
     * (docs/adr/0062). Set once by compare-and-set from 0; the protocol never reads it.
     */
    public static final int START_FAILED_WORD = 6;
    /**
     * Word 7: not the protocol's. Facts about the app the workers run that the supervisor cannot
     * know before they start, one bit each, OR-ed in by compare-and-set; the supervisor's ready
     * line reads them. It is the header's last free word (docs/adr/0062), so a fact takes a bit,
     * not a word. The protocol never reads it.
     */
    public static final int FACTS_WORD = 7;
    /**
     * In {@link #FACTS_WORD}: a worker's listener speaks TLS from the app's own {@code
     * HttpsServer} (under {@code --main}); set before its start shows.
     */
    public static final long FACT_APP_TLS = 1L;
    /** Words before the first worker line. */
    public static final int HEADER_WORDS = 8;
    /** Words per worker: one 64-byte cache line. */
    public static final int LINE_WORDS = 8;

    /** Offset in a line: the worker's state. */
    public static final int STATE_OFFSET = 0;
    /**
     * Offset in a line: the siblings this worker holds a connection for, bit j for worker j
     * (j below {@link #AFFINE_WORKERS}, never its own): a connection whose client's thread
     * pairs with worker j, which a rebalance swap would place there (ADR 0057). Published at
     * pass ends, on a change; read by a sibling deciding whether a swap with this worker pays.
     * The word once held active alone, whose tear ADR 0012 measured; active is in COUNTS now.
     */
    public static final int AFFINE_OFFSET = 1;
    /** Workers an AFFINE word can name: one bit each. Indices past it never swap. */
    public static final int AFFINE_WORKERS = 64;
    /**
     * Offset in a line: the worker's counts ({@link Counts}), active (its open connections, as
     * published at each pass end and each kept accept), pending (passed to it and not yet
     * retired) and taken (received by it and not yet retired) in one word: a sibling reads its
     * load {@code active + pending} from one load (ADR 0040).
     */
    public static final int COUNTS_OFFSET = 2;
    /**
     * Offset in a line: the target + 1 of the hand-off the worker is making (published before
     * its raise, cleared after its send or take-back), else 0. A heal counts a raise it cannot
     * see the end of as in flight; the supervisor clears a dead worker's on its reap.
     */
    public static final int SENDING_OFFSET = 3;
    /**
     * Offset in a line: the fountain policy's published busy share, per mille, with
     * {@link BusyEstimator#FULL_BIT} while the worker is full (see {@link BusyEstimator#word});
     * under share, the worker's settled connections ({@link AcceptShare#SETTLED_MASK}) with
     * {@link AcceptShare#KEEPING_BIT} while it keeps (ADR 0041, 0059).
     */
    public static final int BUSY_OFFSET = 4;

    /** Offset in a line: statistic, fresh accepts this worker passed to a sibling. */
    public static final int SENT_OFFSET = 5;
    /** Offset in a line: statistic, connections this worker took off its channel. */
    public static final int RECEIVED_OFFSET = 6;
    /** Offset in a line: statistic, connections this worker forwarded while leaving. */
    public static final int FORWARDED_OFFSET = 7;

    /** State: a fresh page's zero; the worker has not started, nothing reads its channel yet. */
    public static final long NOT_STARTED = 0L;
    /** State: leaving, left, or reaped. Final for the incarnation that wrote it. */
    public static final long LEFT = -1L;
    /** State: between passes, waiting in epoll. */
    public static final long PARKED = -2L;
    // Any state > 0 is inside a pass: the pass's start time in Clock nanoseconds.

    /** A sibling inside one pass for longer than this is skipped by pick (a slow inline view). */
    public static final long SLOW_PASS_NANOS = 2_000_000L;

    /** Most workers one page serves; keeps every word index well inside an int. */
    public static final int MAX_WORKERS = 4096;

    private PageLayout() {
    }

    /**
     * Words a page for {@code workers} workers must hold: the header, a line per worker, and the
     * STARTING region ({@code 8 + 8 * workers + ceil(workers / 64)}).
     */
    public static int slots(int workers) {
        if (workers < 1 || workers > MAX_WORKERS) {
            throw new IllegalArgumentException("workers must be 1.." + MAX_WORKERS + ": " + workers);
        }
        return HEADER_WORDS + LINE_WORDS * workers + ((workers + 63) >>> 6);
    }

    /**
     * The inverse of {@link #slots}: the workers a page of {@code words} words is laid out for,
     * or -1 when no count of workers gives that size (not an m0 page).
     */
    public static int workersOf(long words) {
        for (long n = Math.min(MAX_WORKERS, (words - HEADER_WORDS) / LINE_WORDS); n >= 1; n--) {
            long size = HEADER_WORDS + LINE_WORDS * n + ((n + 63) >>> 6);
            if (size == words) {
                return (int) n;
            }
            if (size < words) {
                return -1;
            }
        }
        return -1;
    }

    /** The word of the STARTING region of a page for {@code workers} that holds index i's bit. */
    public static int startingWord(int workers, int i) {
        return lineOf(workers) + (i >>> 6);
    }

    /** Index i's bit in its {@link #startingWord}. */
    public static long startingBit(int i) {
        return 1L << (i & 63);
    }

    /** First word of worker {@code i}'s line. */
    public static int lineOf(int i) {
        return HEADER_WORDS + LINE_WORDS * i;
    }

    public static int stateWord(int i) {
        return lineOf(i) + STATE_OFFSET;
    }

    /** Worker i's AFFINE mark: the siblings it holds a connection for. */
    public static int affineWord(int i) {
        return lineOf(i) + AFFINE_OFFSET;
    }

    /** Worker j's bit in an AFFINE word; 0 for an index past {@link #AFFINE_WORKERS}. */
    public static long affineBit(int j) {
        return j < AFFINE_WORKERS ? 1L << j : 0L;
    }

    /** Worker i's active, pending and taken, in one word ({@link Counts}). */
    public static int countsWord(int i) {
        return lineOf(i) + COUNTS_OFFSET;
    }

    /** Worker i's hand-off in progress: its target + 1, or 0. */
    public static int sendingWord(int i) {
        return lineOf(i) + SENDING_OFFSET;
    }

    public static int busyWord(int i) {
        return lineOf(i) + BUSY_OFFSET;
    }

    public static int sentWord(int i) {
        return lineOf(i) + SENT_OFFSET;
    }

    public static int receivedWord(int i) {
        return lineOf(i) + RECEIVED_OFFSET;
    }

    public static int forwardedWord(int i) {
        return lineOf(i) + FORWARDED_OFFSET;
    }

    /** True for a state inside a pass (a start time). */
    public static boolean inPass(long state) {
        return state > 0;
    }

    /** A readable name for a state word, for traces and stats. */
    public static String stateName(long state) {
        if (state == NOT_STARTED) {
            return "NOT_STARTED";
        }
        if (state == LEFT) {
            return "LEFT";
        }
        if (state == PARKED) {
            return "PARKED";
        }
        return state > 0 ? "IN_PASS@" + state : "UNKNOWN(" + state + ")";
    }
}
