package m0.server.worker;

import java.util.function.IntUnaryOperator;
import m0.core.PageLayout;

/**
 * Which worker each held connection's client pairs with, and the mark of them the core's swap
 * reads (ADR 0057): {@code SO_INCOMING_CPU}, the CPU that took the connection's latest packet,
 * mapped to a live worker by the core ({@link m0.core.AcceptShare#pairedWorker}). On loopback that is the CPU the client's thread sent from; from a NIC, the
 * one its queue's interrupt ran on. Read once per connection, at its {@link #READ_AT}th request
 * on this worker, tens of milliseconds into a busy connection's life: a connection-close load
 * never pays the call; the client's threads have settled on their CPUs (read at the second
 * request, wrk's two threads paired in 2 of 6 rounds; at the 64th in 3 of 6 and 5 of 8; at the
 * 256th in 7 of 8; ADR 0057); only connections busy enough for a swap to pay are read; and a
 * connection keeps the group it was read into while its client's thread wanders (a fresh
 * reading at every look would move it after each migration). A received connection is read
 * afresh at its {@link #READ_AT}th request here.
 *
 * <p>Invariant: {@code counts[j]} is the number of held connections whose affinity is j, and bit
 * j of {@link #mark} is set exactly while it is above zero. Not thread-safe: the loop owns it.
 */
final class Affinities {

    /** A connection whose affinity is not read yet, or could not be. */
    static final int UNKNOWN = -1;
    /** The request at which a connection's affinity is read: see the class comment. */
    static final int READ_AT = 256;

    private final IntUnaryOperator incomingCpu;
    private final IntUnaryOperator workerOfCpu;
    private final int workers;
    private final int readAt;
    private final int[] counts;
    private long mark;

    /**
     * @param incomingCpu descriptor to the CPU its latest packet arrived on, negative when the
     *                    kernel cannot say
     * @param workerOfCpu CPU to the worker index its clients pair with
     * @param lines       the page's worker lines: the indices a kind can name
     * @param readAt      the request at which a connection is read
     */
    Affinities(IntUnaryOperator incomingCpu, IntUnaryOperator workerOfCpu, int lines, int readAt) {
        this.incomingCpu = incomingCpu;
        this.workerOfCpu = workerOfCpu;
        this.readAt = readAt;
        this.workers = Math.min(lines, PageLayout.AFFINE_WORKERS);
        this.counts = new int[this.workers];
    }

    /** No reading at all (one worker, race, fountain, --rebalance off, M0_PAIR=0): the mark stays 0. */
    static Affinities none() {
        return new Affinities(fd -> UNKNOWN, cpu -> UNKNOWN, 0, Integer.MAX_VALUE);
    }

    /** {@code c} has begun its {@code requests}th request here: its affinity is read once due. */
    void requested(Connection c, long requests) {
        if (requests >= readAt && c.affinity == UNKNOWN) {
            read(c);
        }
    }

    /** Reads {@code c}'s affinity if it has none yet and counts it. */
    void read(Connection c) {
        if (c.affinity != UNKNOWN || workers == 0) {
            return;
        }
        int cpu = incomingCpu.applyAsInt(c.fd);
        if (cpu < 0) {
            return;
        }
        int j = workerOfCpu.applyAsInt(cpu);
        if (j < 0 || j >= workers) {
            return;
        }
        c.affinity = j;
        if (counts[j]++ == 0) {
            mark |= PageLayout.affineBit(j);
        }
    }

    /** {@code c} leaves the worker (closed or handed off): uncounted. */
    void forget(Connection c) {
        int j = c.affinity;
        if (j == UNKNOWN) {
            return;
        }
        c.affinity = UNKNOWN;
        if (--counts[j] == 0) {
            mark &= ~PageLayout.affineBit(j);
        }
    }

    /** Bit j while a held connection's affinity is j. */
    long mark() {
        return mark;
    }
}
