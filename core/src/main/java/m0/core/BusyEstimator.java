package m0.core;

/**
 * The fountain's judgement of one worker's own load (seed 004, ADR 0019): how busy its loop is,
 * and whether that makes it <em>full</em>. Pure: the loop hands in its cumulative busy time and
 * the clock's now; nothing here reads a clock, the page or the request path.
 *
 * <ul>
 *   <li><b>Busy share.</b> Sampled at most every {@link #SAMPLE_NANOS} (20 ms): busy time over
 *       wall time since the previous sample, per mille, smoothed over about two samples
 *       ({@code smoothed = (smoothed + sample) / 2}: the last sample weighs 1/2, the one before
 *       1/4, ...).
 *   <li><b>The blocking pool.</b> A worker serves with its loop and, for blocking requests, its
 *       pool's threads: two resources side by side, each of which can be the one that is
 *       saturated. The sample's share is the larger of the loop's and the pool's (pool busy
 *       time over wall time times its threads), so a loop that idles while every pool thread
 *       is occupied reads full (ADR 0029). The larger, not the sum: a loop at 50 % and a pool
 *       at 50 % both have room.
 *   <li><b>Surge.</b> Each connection accepted in a sample window beyond the previous window's
 *       count adds {@link #SURGE_PER_MILLE} (10 %) until the next sample. A steady stream adds
 *       nothing: its load is already in the measured share. 64 connections at once into an idle
 *       worker make it full at the ninth (9 x 10 % >= 85 %).
 *   <li><b>Hysteresis.</b> Full from {@link #FULL_FROM} (85 %); free again only below
 *       {@link #FREE_BELOW} (70 %). The smoothed share changes only at a sample and the surge
 *       only grows between samples, so a worker turns free only at a sample: it cannot flap
 *       faster than it samples.
 * </ul>
 *
 * <p>The published word ({@code busy} on the worker's line) is the estimate in per mille, with
 * {@link #FULL_BIT} set while full: a sibling must read the hysteresis state, not re-derive it
 * from a share that lies between the two thresholds. The policy adds {@link #HELD_BIT} while
 * the worker's listener is out for its own reasons ({@link FountainPolicy}).
 */
public final class BusyEstimator {

    /** Samples are at least this far apart: 20 ms. */
    public static final long SAMPLE_NANOS = 20_000_000L;
    /** Full from 85 % busy (estimate, surge included). */
    public static final int FULL_FROM = 850;
    /** Free again below 70 %. */
    public static final int FREE_BELOW = 700;
    /** What one connection beyond the previous window's count adds until the next sample: 10 %. */
    public static final int SURGE_PER_MILLE = 100;
    /** Set in the published busy word while the worker is full. */
    public static final long FULL_BIT = 1L << 32;
    /**
     * Set in the published busy word while the worker keeps its listener out for reasons of its
     * own (at {@code --max-connections}, or backing off after EMFILE): it takes no new
     * connection however free it is, and a sibling must not leave one to it (ADR 0038).
     */
    public static final long HELD_BIT = 1L << 33;

    private final long sampleNanos;
    private final int fullFrom;
    private final int freeBelow;

    private boolean sampled;
    private long sampleAt;
    private long busyAtSample;
    private long poolBusyAtSample;
    private int smoothed;
    private int windowAccepts;
    private int previousWindowAccepts;
    private boolean full;

    /** The note's rules: 20 ms samples, full from 85 %, free below 70 %. */
    public BusyEstimator() {
        this(SAMPLE_NANOS, FULL_FROM, FREE_BELOW);
    }

    /** Other periods and thresholds: the checkers' mutants (an unsampled or band-less estimator). */
    public BusyEstimator(long sampleNanos, int fullFrom, int freeBelow) {
        if (sampleNanos < 0 || freeBelow > fullFrom) {
            throw new IllegalArgumentException("period >= 0 and free-below <= full-from");
        }
        this.sampleNanos = sampleNanos;
        this.fullFrom = fullFrom;
        this.freeBelow = freeBelow;
    }

    /**
     * A reading of the loop's cumulative busy time at {@code now}. Takes a sample when the last
     * one is at least 20 ms old (the first reading only sets the baseline); a reading sooner is
     * ignored, so the loop may call this at every pass end.
     *
     * @return true when a sample was taken
     */
    public boolean sample(long now, long busyNanosTotal) {
        return sample(now, busyNanosTotal, 0, 0);
    }

    /**
     * A reading of the loop's cumulative busy time and its blocking pool's: {@code
     * poolBusyNanosTotal} is the pool threads' cumulative time inside a task (tasks still running
     * counted up to {@code now}), {@code poolThreads} the pool's size (0: no pool, the pool reads
     * idle). The sample's share is the larger of the two shares.
     *
     * @return true when a sample was taken
     */
    public boolean sample(long now, long busyNanosTotal, long poolBusyNanosTotal, int poolThreads) {
        if (!sampled) {
            sampled = true;
            sampleAt = now;
            busyAtSample = busyNanosTotal;
            poolBusyAtSample = poolBusyNanosTotal;
            return false;
        }
        long wall = now - sampleAt;
        if (wall < sampleNanos || wall <= 0) {
            return false;
        }
        int share = Math.max(perMille(busyNanosTotal - busyAtSample, wall),
                poolThreads <= 0 ? 0 : perMille(poolBusyNanosTotal - poolBusyAtSample, wall * poolThreads));
        smoothed = (smoothed + share) / 2;
        previousWindowAccepts = windowAccepts;
        windowAccepts = 0;
        sampleAt = now;
        busyAtSample = busyNanosTotal;
        poolBusyAtSample = poolBusyNanosTotal;
        judge();
        return true;
    }

    /** busy over wall, per mille, in [0, 1000] (a counter that went back reads 0). */
    private static int perMille(long busy, long wall) {
        return busy <= 0 ? 0 : (int) Math.min(1000, busy * 1000 / wall);
    }

    /** This worker accepted a connection from the listener: the surge estimate may grow. */
    public void accepted() {
        windowAccepts++;
        judge();
    }

    /** Forget everything: a fresh incarnation starts free, at 0. */
    public void reset() {
        sampled = false;
        smoothed = 0;
        windowAccepts = 0;
        previousWindowAccepts = 0;
        full = false;
    }

    /** The smoothed measured share, per mille. */
    public int smoothed() {
        return smoothed;
    }

    /** The surge estimate until the next sample, per mille. */
    public int surge() {
        return Math.max(0, windowAccepts - previousWindowAccepts) * SURGE_PER_MILLE;
    }

    /** Smoothed share plus surge, per mille, at most 1000. */
    public int estimate() {
        return (int) Math.min(1000, (long) smoothed + surge());
    }

    public boolean full() {
        return full;
    }

    /** The word published on the worker's line: estimate per mille, {@link #FULL_BIT} while full. */
    public long word() {
        return estimate() | (full ? FULL_BIT : 0);
    }

    /** Whether a published busy word says full. */
    public static boolean full(long word) {
        return (word & FULL_BIT) != 0;
    }

    /** Whether a published busy word says the worker holds its listener out (see {@link #HELD_BIT}). */
    public static boolean held(long word) {
        return (word & HELD_BIT) != 0;
    }

    /** The per mille a published busy word carries (for stats). */
    public static int perMille(long word) {
        return (int) (word & 0xFFFF_FFFFL);
    }

    private void judge() {
        int e = estimate();
        if (e >= fullFrom) {
            full = true;
        } else if (e < freeBelow) {
            full = false;
        }
    }
}
