package m0.server.worker;

import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import m0.core.Page;
import m0.core.PageLayout;
import m0.server.launch.ExitCodes;

/**
 * The app could not start in this worker: {@code --app}'s load or {@code init} failed, or
 * {@code --main}'s main threw, returned, or did not start its server within its bound. The
 * worker says so and exits {@link ExitCodes#CONFIG}, which the supervisor never respawns and,
 * before any worker has started, stops the server on (docs/adr/0062).
 *
 * <p>Every worker loads the same app, so N workers usually fail alike; the app's throwable (its
 * stack and every cause) is printed in full once for the server: the first worker to print sets
 * its fingerprint on the page ({@link PageLayout#START_FAILED_WORD}), and a sibling whose failure
 * has the same fingerprint prints one line. A different failure is printed in full.
 */
final class StartFailure extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** The app's own throwable, printed with its causes; null when there is none (a timeout, a bad name). */
    private final transient Throwable appCause;

    /** @param summary one line: what could not start and how; {@code appCause} may be null */
    StartFailure(String summary, Throwable appCause) {
        super(summary, null, false, false);
        this.appCause = appCause;
    }

    Throwable appCause() {
        return appCause;
    }

    /**
     * Prints the failure for worker {@code name}: one line, then the app's throwable unless a
     * sibling already printed the same one. {@code page} null: no sibling to share it with.
     */
    void report(String name, Page page, PrintStream err) {
        String trace = appCause == null ? "" : stackOf(appCause);
        boolean full = appCause != null && firstToPrint(page, fingerprint(appCause));
        String tail = appCause == null ? "" : full ? "; the app's exception:" : "; its exception as printed once by a sibling";
        StringBuilder b = new StringBuilder(name).append(": the app cannot start: ").append(getMessage())
                .append(" (exit ").append(ExitCodes.CONFIG).append(", not respawned)").append(tail)
                .append(System.lineSeparator());
        if (full) {
            b.append(trace);
        }
        err.print(b); // one string: a sibling's line lands before or after it, rarely inside
        err.flush();
    }

    /** Claims the page's word for this fingerprint; false when a sibling printed this very failure. */
    private static boolean firstToPrint(Page page, long fingerprint) {
        if (page == null) {
            return true;
        }
        return page.compareAndSet(PageLayout.START_FAILED_WORD, 0, fingerprint)
                || page.getVolatile(PageLayout.START_FAILED_WORD) != fingerprint;
    }

    static String stackOf(Throwable t) {
        StringWriter w = new StringWriter();
        try (PrintWriter p = new PrintWriter(w)) {
            t.printStackTrace(p);
        }
        return w.toString();
    }

    /**
     * A 64-bit hash of the chain's classes and messages, nonzero (0 is the page's "none yet").
     * Not of its frames: a lambda's hidden class is named differently in each JVM.
     */
    static long fingerprint(Throwable t) {
        long h = 1125899906842597L;
        java.util.Set<Throwable> seen = java.util.Collections.newSetFromMap(new java.util.IdentityHashMap<>());
        for (Throwable c = t; c != null && seen.add(c); c = c.getCause()) {
            h = hash(hash(h, c.getClass().getName()), String.valueOf(c.getMessage()));
        }
        return h == 0 ? 1 : h;
    }

    private static long hash(long h, String s) {
        for (int i = 0; i < s.length(); i++) {
            h = 31 * h + s.charAt(i);
        }
        return 31 * h + 1; // a separator: "ab"+"c" is not "a"+"bc"
    }
}
