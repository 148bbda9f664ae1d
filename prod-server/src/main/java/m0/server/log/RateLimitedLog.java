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
    /** The clock read of the event being printed. */
    private long dueAt;
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
        if (!due()) {
            return false;
        }
        print(message);
        return true;
    }

    /** The same, the message made only when it is printed (a stack trace is not free). */
    public boolean log(java.util.function.Supplier<String> message) {
        if (!due()) {
            return false;
        }
        print(message.get());
        return true;
    }

    /** Counts the event; true when its line is to be printed now. */
    private boolean due() {
        total++;
        long now = clock.getAsLong();
        if (printed && now - lastPrinted < periodNanos) {
            suppressed++;
            return false;
        }
        dueAt = now;
        return true;
    }

    private void print(String message) {
        String more = suppressed == 0 ? ""
                : " (and " + suppressed + " more in the last " + (dueAt - lastPrinted) / 100_000_000L / 10.0 + " s)";
        out.println(prefix + message + more);
        out.flush();
        printed = true;
        lastPrinted = dueAt;
        suppressed = 0;
    }

    /** A line printed whatever the rate (a once-per-process event: why the process leaves). */
    public void logAlways(String message) {
        total++;
        out.println(prefix + message);
        out.flush();
    }

    /** Every event logged, printed or counted. */
    public long total() {
        return total;
    }
}
