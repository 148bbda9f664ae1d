package m0.server.worker;

/**
 * Logs a failed connection at most once a second, with how many were not logged: one client
 * that trips the same bug on every request must not flood the log (or slow the loop with it).
 */
final class FailureLog {
    private static final long WINDOW_NANOS = 1_000_000_000L;

    private final String prefix;
    private long lastLogged;
    private boolean logged;
    private long suppressed;

    FailureLog(String prefix) {
        this.prefix = prefix;
    }

    /** Returns true when this one was printed. */
    boolean failed(Throwable e, long now) {
        if (logged && now - lastLogged < WINDOW_NANOS) {
            suppressed++;
            return false;
        }
        StackTraceElement[] at = e.getStackTrace();
        String where = at.length > 0 ? " at " + at[0] : "";
        String more = suppressed > 0 ? " (" + suppressed + " more since the last such line)" : "";
        System.err.println(prefix + "closing a connection: " + e + where + more);
        logged = true;
        lastLogged = now;
        suppressed = 0;
        return true;
    }
}
