package m0.server.worker;

import java.util.Arrays;
import java.util.function.IntUnaryOperator;
import m0.core.PageLayout;

/**
 * Which worker each held connection's client pairs with, and the mark of them the core's swap
 * reads (ADR 0057): {@code SO_INCOMING_CPU}, the CPU that took the connection's latest packet,
 * mapped to a live worker by the core ({@link m0.core.Siblings#pairedWorker}). On loopback
 * that is the CPU the client's thread sent from; from a NIC, the one its queue's interrupt ran
 * on. Read once per connection, at its {@link #READ_AT}th request on this worker, tens of
 * milliseconds into a busy connection's life:
 * <ul>
 *   <li>a connection-close load never pays the call, and only connections busy enough for a
 *       swap to pay are read;
 *   <li>wrk's threads start on one CPU and settle later (paired rounds, ADR 0057: 2 of 6 and 5
 *       of 8 read at the second request, 7 of 8 and 6 of 8 at the 256th);
 *   <li>a client thread that runs on the other CPU at that moment labels a connection with the
 *       other client's kind, and its worker then holds a mix no swap sorts; a re-read every so
 *       many requests would correct it ({@link #REREAD_EVERY}, off for now), and a reading at
 *       every look would move connections after each passing migration.
 * </ul>
 * A received connection is read afresh at its {@link #READ_AT}th request here.
 *
 * <p>Invariant: {@code counts[j]} is the number of held connections whose affinity is j, and bit
 * j of {@link #mark} is set exactly while it is above zero. Not thread-safe: the loop owns it.
 */
final class Affinities {

    /** A connection whose affinity is not read yet, or could not be. */
    static final int UNKNOWN = -1;
    /** The request at which a connection's affinity is read: see the class comment. */
    static final int READ_AT = 256;
    /**
     * Read again every this many requests (0: never; {@code --dev-pair-reread}). Off: one run paired
     * 8 of 8 rounds re-reading every 1024 against 6 of 8 reading once, but a figures.sh run and a
     * jar-ab run with it read 0.886x and 0.984x nginx, against 0.727x and 0.894x reading once in
     * the runs before (ADR 0057). Not settled.
     */
    static final int REREAD_EVERY = 0;

    private final IntUnaryOperator incomingCpu;
    private final IntUnaryOperator workerOfCpu;
    private final int workers;
    private final int readAt;
    private final int rereadEvery;
    private final int[] counts;
    private long mark;

    /**
     * @param incomingCpu descriptor to the CPU its latest packet arrived on, negative when the
     *                    kernel cannot say
     * @param workerOfCpu CPU to the worker index its clients pair with
     * @param lines       the page's worker lines: the indices a kind can name
     * @param readAt      the request at which a connection is read
     * @param rereadEvery then every this many requests again; 0: never
     */
    Affinities(IntUnaryOperator incomingCpu, IntUnaryOperator workerOfCpu, int lines, int readAt, int rereadEvery) {
        this.incomingCpu = incomingCpu;
        this.workerOfCpu = workerOfCpu;
        this.readAt = readAt;
        this.rereadEvery = rereadEvery;
        this.workers = Math.min(lines, PageLayout.AFFINE_WORKERS);
        this.counts = new int[this.workers];
    }

    /**
     * {@code pairedWorker} asked with a CPU's place among {@code cpus}, the CPUs the workers are
     * pinned to (the worker of rank r on {@code cpus[r]}, ADR 0058), so a client on a worker's
     * CPU pairs with that worker whatever the CPUs' numbers (a cpuset of 1-2: CPU 1 is place 0,
     * worker 0's); a CPU outside them, or any CPU when the workers run free, is asked as it is.
     */
    static IntUnaryOperator placedAmong(int[] cpus, IntUnaryOperator pairedWorker) {
        if (cpus.length == 0) {
            return pairedWorker;
        }
        int[] place = new int[Arrays.stream(cpus).max().getAsInt() + 1];
        Arrays.fill(place, -1);
        for (int i = 0; i < cpus.length; i++) {
            place[cpus[i]] = i;
        }
        return cpu -> pairedWorker.applyAsInt(cpu >= 0 && cpu < place.length && place[cpu] >= 0 ? place[cpu] : cpu);
    }

    /** No reading at all (one worker, race, fountain, --rebalance off, --dev-pair-at 0): the mark stays 0. */
    static Affinities none() {
        return new Affinities(fd -> UNKNOWN, cpu -> UNKNOWN, 0, Integer.MAX_VALUE, 0);
    }

    /** {@code c} has begun its {@code requests}th request here: its affinity is read once due. */
    void requested(Connection c, long requests) {
        if (c.affinity == UNKNOWN) {
            if (requests >= readAt && c.sinceRead == 0) {
                read(c);
                if (c.affinity == UNKNOWN) {
                    c.sinceRead = -1; // the kernel could not say: not asked again on every request
                }
            }
        } else if (rereadEvery > 0 && ++c.sinceRead >= rereadEvery) {
            c.sinceRead = 0;
            int was = c.affinity;
            forget(c);
            read(c);
            if (c.affinity == UNKNOWN) { // the kernel could not say: keep the kind it had
                c.affinity = was;
                count(was);
            }
        }
    }

    private void count(int j) {
        if (counts[j]++ == 0) {
            mark |= PageLayout.affineBit(j);
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
        count(j);
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
