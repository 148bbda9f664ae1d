package m0.server.stats;

import java.io.IOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import m0.server.jnr.Fds;
import m0.server.share.Memfds;

/**
 * A worker's counters that have no word on the protocol's page (every word of a worker's line
 * is taken, and the page's layout is the core's): a memfd of the worker's own ({@value #NAME}),
 * written by its loop alone, mapped read-only by {@code m0serve stats} and the supervisor's
 * metrics through {@code /proc/<worker pid>/fd}. It lives and dies with the worker: a respawned
 * index counts from zero. Words:
 *
 * <pre>
 *   0  REBALANCED     idle connections this worker handed to a sibling to even the load
 *   1  ACCEPTED       connections it accepted from the listener (fresh accepts, kept or passed on)
 *   2  EMPTY_WAKEUPS  listener readiness it was woken for that accepted nothing (a sibling was
 *                     first, or fountain left the connection to an earlier worker): the herd
 *   3  LOOKS          fountain: zero-timeout looks at a listener it had left to an earlier worker
 *   4  BUSY_NANOS     its loop's time outside epoll_wait, cumulative (any policy)
 *   5  WAKEUPS        returns from epoll_wait (its loop's passes), any policy
 *   6  POOL_BUSY_NANOS  its blocking pool's threads' time inside a task, cumulative (a task
 *                     still running counted up to the pass end); fountain's second reading
 *   7  PASSED_OVER_SLOW  share: siblings its picks passed over for being over 2 ms into one
 *                     pass when the batch began (what skews a burst that lands uneven)
 *   8  PICKED_AGAIN   share: sends not raised and keeps not published because the counts they
 *                     were decided on moved since the pick, picked again (ADR 0043, 0053: two
 *                     acceptors of one burst)
 *   9  RING_SENDS     sends through io_uring, a chunk of an answer each (docs/adr/0049)
 *  10  RING_CALLS     the io_uring_enter calls that submitted them: RING_SENDS / RING_CALLS is
 *                     what one call carried (many at 1 worker, two or three at 2: ADR 0050)
 *  11  WRITES         answers' write(2) calls: a kernel without io_uring, --dev-ring-sends off, or an
 *                     answer made after the pass's call (a timeout's 408)
 *  12  HANDLER_FAILURES  requests whose app code threw (or answered nothing): each answered 500,
 *                     or cut after what it had sent (docs/adr/0061)
 *  13  SENDFILES      file answers' sendfile(2) calls (docs/adr/0071)
 *  14  SENDFILE_BYTES the bytes they sent: file to socket in the kernel, never through the heap
 *  15  TLS_FULL_HANDSHAKES     TLS handshakes finished with a full key exchange (docs/adr/0073)
 *  16  TLS_RESUMED_HANDSHAKES  ...that resumed a session: a ticket sealed by any worker's shared key
 * </pre>
 *
 * The loop counts in plain fields and, at a pass's end, copies the words that changed with
 * release stores (BUSY_NANOS, WAKEUPS and, while a pool task runs, POOL_BUSY_NANOS every pass:
 * up to three stores, to a line no other writer touches); a
 * reader's acquire loads see each word exact, the set not as one snapshot.
 */
public final class WorkerCounters {

    /** The memfd's name: {@code /proc/<pid>/fd/N} links read {@code /memfd:m0-worker (deleted)}. */
    public static final String NAME = "m0-worker";

    public static final int REBALANCED = 0;
    public static final int ACCEPTED = 1;
    public static final int EMPTY_WAKEUPS = 2;
    public static final int LOOKS = 3;
    public static final int BUSY_NANOS = 4;
    public static final int WAKEUPS = 5;
    public static final int POOL_BUSY_NANOS = 6;
    public static final int PASSED_OVER_SLOW = 7;
    public static final int PICKED_AGAIN = 8;
    public static final int RING_SENDS = 9;
    public static final int RING_CALLS = 10;
    public static final int WRITES = 11;
    public static final int HANDLER_FAILURES = 12;
    public static final int SENDFILES = 13;
    public static final int SENDFILE_BYTES = 14;
    public static final int TLS_FULL_HANDSHAKES = 15;
    public static final int TLS_RESUMED_HANDSHAKES = 16;
    static final int WORDS = 17;

    private static final VarHandle WORD = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());

    private final MappedByteBuffer mapped;
    /** The writer's counts and what it last stored (null in a reader). */
    private final long[] counts;
    private final long[] shown;

    private WorkerCounters(MappedByteBuffer mapped, boolean writer) {
        this.mapped = mapped;
        this.counts = writer ? new long[WORDS] : null;
        this.shown = writer ? new long[WORDS] : null;
    }

    /** The worker's own, zeroed; held (close-on-exec) for the worker's life. */
    public static WorkerCounters create() {
        int fd = Fds.memfd(NAME);
        return new WorkerCounters(Memfds.mapWords(Path.of("/proc/self/fd/" + fd), WORDS, true), true);
    }

    /** An observer's read-only view of worker {@code pid}'s, if it holds one. */
    public static Optional<WorkerCounters> attach(long pid) {
        try {
            Optional<Path> p = Memfds.find(pid, NAME);
            return p.isEmpty() ? Optional.empty()
                    : Optional.of(new WorkerCounters(Memfds.mapWordsAtMost(p.get(), WORDS), false));
        } catch (IOException | RuntimeException e) {
            return Optional.empty(); // gone, or not ours to read (an older build's fewer words are read: has())
        }
    }

    // ---- the worker's loop ----

    /** {@code word} grows by one (published at the pass's end). */
    public void count(int word) {
        counts[word]++;
    }

    /** {@code word} is now {@code value} (a total the loop keeps elsewhere). */
    public void set(int word, long value) {
        counts[word] = value;
    }

    /** At a pass's end: each word that changed to shared memory. */
    public void publish() {
        for (int w = 0; w < WORDS; w++) {
            long v = counts[w];
            if (v != shown[w]) {
                shown[w] = v;
                WORD.setRelease(mapped, 8 * w, v);
            }
        }
    }

    // ---- a reader ----

    /** Word {@code w}; 0 where the worker's build has no such word ({@link #has}). */
    public long word(int w) {
        return has(w) ? (long) WORD.getAcquire(mapped, 8 * w) : 0;
    }

    /** Whether the worker's build counts word {@code w}: one from before it was added has fewer words. */
    public boolean has(int w) {
        return 8 * (w + 1) <= mapped.capacity();
    }

    public long rebalanced() {
        return word(REBALANCED);
    }

    /** Wake-ups that accepted nothing per accepted connection; NaN before the first accept. */
    public static double emptyPerAccepted(long empty, long accepted) {
        return accepted == 0 ? Double.NaN : (double) empty / accepted;
    }

    /** Each live worker of {@code supervisorPid} by index, with its counters (workers without any left out). */
    public static Map<Integer, WorkerCounters> ofLiveWorkers(long supervisorPid) {
        Map<Integer, WorkerCounters> byIndex = new TreeMap<>();
        for (ProcessHandle worker : WorkerProcesses.of(supervisorPid)) {
            int index = WorkerProcesses.specValue(worker.pid(), "index").map(Integer::parseInt).orElse(-1);
            Optional<WorkerCounters> c = attach(worker.pid());
            if (index >= 0 && c.isPresent()) {
                byIndex.putIfAbsent(index, c.get()); // a leaver and its replacement: one line (the first found)
            }
        }
        return byIndex;
    }

    /**
     * Two lines for {@code m0serve stats}: each live worker's rebalance count by index, and its
     * listener counters (accepted, empty wake-ups, fountain's looks, all wake-ups, loop busy seconds).
     */
    public static String format(long supervisorPid) {
        Map<Integer, WorkerCounters> byIndex = ofLiveWorkers(supervisorPid);
        StringBuilder b = new StringBuilder("rebalanced (idle connections moved, live workers):");
        if (byIndex.isEmpty()) {
            b.append(" -");
        }
        byIndex.forEach((i, c) -> b.append(" w").append(i).append('=').append(c.rebalanced()));
        b.append(System.lineSeparator());
        b.append("listener (live workers: accepted/wake-ups that accepted nothing/looks/wake-ups/loop busy s):");
        if (byIndex.isEmpty()) {
            b.append(" -");
        }
        byIndex.forEach((i, c) -> b.append(String.format(java.util.Locale.ROOT, " w%d=%d/%d/%d/%d/%.3f", i,
                c.word(ACCEPTED), c.word(EMPTY_WAKEUPS), c.word(LOOKS), c.word(WAKEUPS), c.word(BUSY_NANOS) / 1e9)));
        b.append(System.lineSeparator());
        b.append("picks (live workers: siblings passed over inside a pass over 2 ms/picked again, counts moved):");
        if (byIndex.isEmpty()) {
            b.append(" -");
        }
        byIndex.forEach((i, c) -> b.append(" w").append(i).append('=').append(c.word(PASSED_OVER_SLOW)).append('/')
                .append(c.word(PICKED_AGAIN)));
        b.append(System.lineSeparator());
        b.append("answers (live workers: sends through io_uring/their calls/write(2) calls):");
        if (byIndex.isEmpty()) {
            b.append(" -");
        }
        byIndex.forEach((i, c) -> b.append(" w").append(i).append('=').append(c.has(WRITES)
                ? c.word(RING_SENDS) + "/" + c.word(RING_CALLS) + "/" + c.word(WRITES) : "?"));
        return b.append(System.lineSeparator()).toString();
    }
}
