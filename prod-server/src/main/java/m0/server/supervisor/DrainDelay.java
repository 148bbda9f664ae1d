package m0.server.supervisor;

import java.io.PrintStream;
import java.util.concurrent.TimeUnit;

/**
 * {@code --drain-delay-ms} (docs/adr/0067, addendum): a stop asked with a delay turns
 * {@code /readyz} 503 at once, and the workers serve on, accepting, until the delay ends or a
 * second stop signal comes; then the stop begins. Without a delay the stop begins at once.
 */
final class DrainDelay {

    private final long delayMillis;
    private final Health health;
    private final PrintStream out;
    /** The stop signal came and the delay runs (or has run). */
    private boolean begun;
    /** When the delay ends, once {@link #begun}. */
    private long ends;

    DrainDelay(long delayMillis, Health health, PrintStream out) {
        this.delayMillis = delayMillis;
        this.health = health;
        this.out = out;
    }

    /**
     * Asked at each loop pass once a stop was requested by {@code signal}, the
     * {@code stopSignals}-th stop signal: true once the stop may begin. The first ask with a
     * delay turns /readyz 503 and says so on {@code out}.
     */
    boolean over(long now, String signal, int stopSignals) {
        if (delayMillis == 0) {
            return true;
        }
        if (!begun) {
            begun = true;
            health.stopping();
            ends = now + TimeUnit.MILLISECONDS.toNanos(delayMillis);
            out.printf("m0serve: %s: /readyz 503, serving %d ms more before the stop (--drain-delay-ms; "
                    + "a second signal stops now)%n", signal, delayMillis);
            out.flush();
            return false;
        }
        return now - ends >= 0 || stopSignals > 1;
    }

    /** The delay has begun: the loop polls for its end. */
    boolean begun() {
        return begun;
    }
}
