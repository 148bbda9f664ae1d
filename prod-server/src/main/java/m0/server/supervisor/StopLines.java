package m0.server.supervisor;

import java.io.PrintStream;
import java.util.concurrent.TimeUnit;

/**
 * The two lines of a stop (docs/adr/0067), on the stream the "listening" and "ready" lines go
 * to: "stopping" when it begins (why, how many workers drain, the grace), "stopped" when the last
 * worker is gone (why, how long the drain took, how many workers it drained, the exit status).
 */
final class StopLines {

    private final PrintStream out;
    private String why;
    private long beganNanos;
    private int draining;
    private int killed;

    StopLines(PrintStream out) {
        this.out = out;
    }

    /** The stop begins: {@code why} is the signal's name or the cause. */
    void begin(String why, long now, int workers, long graceMillis) {
        this.why = why;
        this.beganNanos = now;
        this.draining = workers;
        out.printf("m0serve: stopping (%s): %d worker(s) draining, grace %d ms%n", why, workers, graceMillis);
        out.flush();
    }

    /** A worker outlived the grace and was SIGKILLed. */
    void killed() {
        killed++;
    }

    /** The supervisor exits with {@code status}; a stop that never began (every index given up) names {@code cause}. */
    void end(long now, int status, String cause) {
        long drainMillis = why == null ? 0 : TimeUnit.NANOSECONDS.toMillis(now - beganNanos);
        out.printf("m0serve: stopped (%s): %d worker(s) drained in %d ms%s, exit %d%n", why != null ? why : cause,
                draining, drainMillis, killed == 0 ? "" : ", " + killed + " SIGKILLed past the grace", status);
        out.flush();
    }
}
