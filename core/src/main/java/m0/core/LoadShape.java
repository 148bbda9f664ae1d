package m0.core;

/**
 * Whether the connections arriving now are worth balancing (share's gate, ADR 0041).
 *
 * <p>A hand-off pays for itself when the connection it places lives: a keep-alive connection
 * balanced once is served evenly for its whole life. A connection that closes after one request
 * gains nothing from being placed (the load it adds is gone before the next pick could see it),
 * and its hand-off costs a sendmsg, a recvmsg and a second worker woken: under churn that made
 * share cost 1.47x nginx's CPU per request at 4 workers where the race cost 1.00x.
 *
 * <p>What the worker already sees of the connections it serves, counted by its driver:
 * <ul>
 *   <li>a <b>short close</b>: a connection closed having answered at most one request;
 *   <li>a <b>reuse</b>: a connection's second request (once per connection, however many follow).
 * </ul>
 * Both are about connections that arrived recently, not about how busy the old ones are: under a
 * mix of settled keep-alive clients and connection-close clients, the keep-alive ones add nothing
 * once reused, and every arrival closes short.
 *
 * <p>The rule, judged once a window ({@link #WINDOW_NANOS}), so the mode changes within two
 * windows of a change of load:
 * <ul>
 *   <li>balancing &rarr; <b>keeping</b> when the window's short closes reach
 *       {@link #KEEP_MIN_SHORT} a window (as a rate) AND at most one in {@link #KEEP_SHORT_PER_REUSE}
 *       of them is matched by a reuse; judged as soon as the window holds {@link #KEEP_MIN_SHORT}
 *       short closes so matched, not only at its end (ADR 0044: a spell of churn keeps after a
 *       few milliseconds, not a quarter-second of hand-offs);
 *   <li>keeping &rarr; <b>balancing</b> when the short closes fall below half that rate, OR a reuse
 *       comes for every {@link #BALANCE_SHORT_PER_REUSE} of them.
 * </ul>
 * Leaving is judged at window ends only. The gap between the two ratios and the two rates is the
 * hysteresis: a load at either threshold stays in the mode it is in (without it, a load at 91 % short flaps every window, and every
 * flap into balancing moves idle connections about).
 *
 * <p>A cold start has no history and balances; a worker whose load stops stops keeping at its
 * next look (the rate falls below the exit threshold over however long it was idle). Not
 * thread-safe: one per worker, called from its loop.
 */
public final class LoadShape {

    /** How long one judgement's evidence is gathered: switches within two of these, 0.5 s. */
    public static final long WINDOW_NANOS = 250_000_000L;
    /** Short closes a window must reach before keeping: 32 per 250 ms, 128 a second. */
    public static final long KEEP_MIN_SHORT = 32;
    /** Keeping needs at least this many short closes per reuse (91 % of arrivals short). */
    public static final long KEEP_SHORT_PER_REUSE = 10;
    /** Keeping ends with a reuse per this many short closes (20 % of arrivals kept alive). */
    public static final long BALANCE_SHORT_PER_REUSE = 4;

    private final long windowNanos;
    private final long keepMinShort;
    private final long keepShortPerReuse;
    private final long balanceShortPerReuse;

    private boolean begun;
    private boolean keeping;
    private long windowStart;
    private long shortAtStart;
    private long reusesAtStart;
    private long switches;

    public LoadShape() {
        this(WINDOW_NANOS, KEEP_MIN_SHORT, KEEP_SHORT_PER_REUSE, BALANCE_SHORT_PER_REUSE);
    }

    /** Other thresholds: the checkers' mutants (equal ratios and rates: no hysteresis). */
    public LoadShape(long windowNanos, long keepMinShort, long keepShortPerReuse, long balanceShortPerReuse) {
        if (windowNanos <= 0 || keepMinShort < 1 || keepShortPerReuse < 1 || balanceShortPerReuse < 1
                || balanceShortPerReuse > keepShortPerReuse) {
            throw new IllegalArgumentException("window > 0, rates >= 1, exit ratio <= entry ratio");
        }
        this.windowNanos = windowNanos;
        this.keepMinShort = keepMinShort;
        this.keepShortPerReuse = keepShortPerReuse;
        this.balanceShortPerReuse = balanceShortPerReuse;
    }

    /**
     * The loop's reading, at the start of a pass (before its accepts): the driver's cumulative
     * short closes and reuses. Judges when a window has passed since the last judgement.
     *
     * @return true when the mode changed at this reading
     */
    public boolean observe(long now, long shortCloses, long reuses) {
        if (!begun) {
            begun = true;
            restart(now, shortCloses, reuses);
            return false;
        }
        long elapsed = now - windowStart;
        long shortN = shortCloses - shortAtStart;
        long reuseN = reuses - reusesAtStart;
        if (elapsed < windowNanos) {
            if (keeping || shortN < keepMinShort || reuseN * keepShortPerReuse > shortN) {
                return false;
            }
            // Early entry: a window's worth of short closes is in, few of them reused. The entry
            // rate is met whatever the rest of the window brings, so waiting for its end would
            // only pay hand-offs for nothing (the first quarter-second of every spell of churn,
            // ADR 0044). The window runs on: its end judges it as a keeping worker's, and leaving
            // is judged at window ends only, so the hysteresis band holds.
            keeping = true;
            switches++;
            return true;
        }
        restart(now, shortCloses, reuses);
        boolean keep;
        if (keeping) {
            // Below half the entry rate (shortN / elapsed < keepMinShort / 2 / window), or reused.
            keep = !(2 * shortN * windowNanos < keepMinShort * elapsed || reuseN * balanceShortPerReuse > shortN);
        } else {
            keep = shortN * windowNanos >= keepMinShort * elapsed && reuseN * keepShortPerReuse <= shortN;
        }
        if (keep == keeping) {
            return false;
        }
        keeping = keep;
        switches++;
        return true;
    }

    private void restart(long now, long shortCloses, long reuses) {
        windowStart = now;
        shortAtStart = shortCloses;
        reusesAtStart = reuses;
    }

    /** True while arrivals close short: keep what is accepted, move nothing. */
    public boolean keeping() {
        return keeping;
    }

    /** When the next judgement is due (a keeping worker's loop wakes for it, to stop keeping when idle). */
    public long nextJudgement() {
        return begun ? windowStart + windowNanos : Long.MIN_VALUE;
    }

    /** How often the mode changed (stats, tests). */
    public long switches() {
        return switches;
    }
}
