package m0.server.stats;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.file.Path;
import java.util.Optional;
import m0.server.jnr.Fds;
import m0.server.share.Memfds;

/**
 * One worker's request counters, in a memfd of its own ({@value #NAME}) that the worker's loop
 * alone writes and the supervisor maps read-only through {@code /proc/<worker pid>/fd} at each
 * scrape (docs/adr/0017). Apart from the protocol's page: its lines are full, and these words
 * are statistics nobody decides anything by. The loop counts in plain fields and copies them
 * here with release stores once per pass that answered something; a reader's acquire loads may
 * see one pass's words half copied (each word is exact; the set is not one snapshot).
 *
 * <pre>
 *   word
 *    0..4   REQUESTS_1XX .. REQUESTS_5XX   responses by status class
 *    5      BYTES_IN                       bytes read from connections
 *    6      BYTES_OUT                      bytes written to connections
 *    7      DURATION_SUM_MICROS            sum of parse-to-queued times
 *    8..24  BUCKET_0 .. BUCKET_16          responses per duration bucket, NOT cumulative:
 *                                          k counts durations in (BOUNDS[k-1], BOUNDS[k]];
 *                                          the last one (+Inf) those past BOUNDS[15]
 * </pre>
 *
 * A worker's counters start at 0 and die with it: a respawned or reloaded worker is a counter
 * reset, which Prometheus' rate() expects.
 */
public final class RequestStats {

    /** {@code /proc/<pid>/fd/N} of the memfd links to {@code /memfd:m0-requests (deleted)}. */
    public static final String NAME = "m0-requests";

    public static final int REQUESTS_1XX = 0;
    public static final int BYTES_IN = 5;
    public static final int BYTES_OUT = 6;
    public static final int DURATION_SUM_MICROS = 7;
    public static final int FIRST_BUCKET = 8;
    /** Upper bounds of the duration buckets, microseconds (Prometheus' defaults, from 100 µs). */
    public static final long[] BOUNDS_MICROS = {100, 250, 500, 1_000, 2_500, 5_000, 10_000, 25_000, 50_000,
        100_000, 250_000, 500_000, 1_000_000, 2_500_000, 5_000_000, 10_000_000};
    /** The bounds and +Inf. */
    public static final int BUCKETS = BOUNDS_MICROS.length + 1;
    public static final int WORDS = FIRST_BUCKET + BUCKETS;

    private static final VarHandle WORD = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());

    private final MappedByteBuffer mapped;
    /** The writer's own counts (null in a reader). */
    private final long[] counts;
    private boolean dirty;

    private RequestStats(MappedByteBuffer mapped, boolean writer) {
        this.mapped = mapped;
        this.counts = writer ? new long[WORDS] : null;
    }

    /** A worker's, zeroed; its descriptor stays open for the process's life so the supervisor can find it. */
    public static RequestStats create() {
        int fd = Fds.memfd(NAME);
        return new RequestStats(map(Path.of("/proc/self/fd/" + fd), true), true);
    }

    /** A read-only view of worker {@code pid}'s counters; empty when it has none (yet) or is gone. */
    public static Optional<RequestStats> attach(long pid) {
        try {
            Optional<Path> p = Memfds.find(pid, NAME);
            return p.isEmpty() ? Optional.empty() : Optional.of(new RequestStats(map(p.get(), false), false));
        } catch (IOException | UncheckedIOException e) {
            return Optional.empty(); // exited meanwhile
        }
    }

    private static MappedByteBuffer map(Path file, boolean write) {
        return Memfds.mapWords(file, WORDS, write);
    }

    // ---- the worker's loop ----

    /** One response queued: its status and how long from the pass that parsed it. */
    public void responded(int status, long micros) {
        int cls = status / 100 - 1;
        counts[REQUESTS_1XX + (cls < 0 ? 0 : Math.min(cls, 4))]++;
        counts[DURATION_SUM_MICROS] += micros;
        counts[FIRST_BUCKET + bucket(micros)]++;
        dirty = true;
    }

    /** The bucket a duration falls in: the first bound it does not exceed, else +Inf. */
    static int bucket(long micros) {
        for (int k = 0; k < BOUNDS_MICROS.length; k++) {
            if (micros <= BOUNDS_MICROS[k]) {
                return k;
            }
        }
        return BOUNDS_MICROS.length;
    }

    public void bytesIn(long n) {
        counts[BYTES_IN] += n;
        dirty = true;
    }

    public void bytesOut(long n) {
        counts[BYTES_OUT] += n;
        dirty = true;
    }

    /** At a pass's end: the counts to shared memory, only when something changed. */
    public void publish() {
        if (!dirty) {
            return;
        }
        dirty = false;
        for (int w = 0; w < WORDS; w++) {
            WORD.setRelease(mapped, 8 * w, counts[w]);
        }
    }

    // ---- a reader ----

    public long word(int w) {
        return (long) WORD.getAcquire(mapped, 8 * w);
    }

    /** Responses of status class {@code cls} (1..5). */
    public long requests(int cls) {
        return word(REQUESTS_1XX + cls - 1);
    }
}
