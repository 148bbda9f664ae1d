package m0.server.log;

import java.io.PrintStream;
import java.util.function.LongSupplier;

/**
 * A process logs a repeated failure once a second, not once an event: under EMFILE an accept
 * fails thousands of times a second, and a line each is a log flood (issue 9 measured 24 MB/s).
 *
 * <p>The first event prints at once; the events of the next second are counted, and the first
 * event after it prints with that count ("... (and 4711 more in the last 1.0 s)"). A burst that
 * ends inside the second leaves its count for the next line. One instance per failure site;
 * not thread-safe (each loop owns its own).
 */
public final class RateLimitedLog {

    public static final long PERIOD_NANOS = 1_000_000_000L;

    private final PrintStream out;
    private final String prefix;
    private final LongSupplier clock;
    private final long periodNanos;

    private boolean printed;
    private long lastPrinted;
    private long suppressed;
    private long total;

    public RateLimitedLog(PrintStream out, String prefix) {
        this(out, prefix, System::nanoTime, PERIOD_NANOS);
    }

    public RateLimitedLog(PrintStream out, String prefix, LongSupplier clock, long periodNanos) {
        this.out = out;
        this.prefix = prefix;
        this.clock = clock;
        this.periodNanos = periodNanos;
    }

    /** One event. @return true when it printed a line */
    public boolean log(String message) {
        return log(() -> message);
    }

    /** The same, the message made only when it is printed (a stack trace is not free). */
    public boolean log(java.util.function.Supplier<String> message) {
        total++;
        long now = clock.getAsLong();
        if (printed && now - lastPrinted < periodNanos) {
            suppressed++;
            return false;
        }
        String more = suppressed == 0 ? ""
                : " (and " + suppressed + " more in the last " + (now - lastPrinted) / 100_000_000L / 10.0 + " s)";
        out.println(prefix + message.get() + more);
        out.flush();
        printed = true;
        lastPrinted = now;
        suppressed = 0;
        return true;
    }

    /** What each line begins with. */
    public String prefix() {
        return prefix;
    }

    /** Every event logged, printed or counted. */
    public long total() {
        return total;
    }
}
