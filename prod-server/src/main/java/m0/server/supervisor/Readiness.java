package m0.server.supervisor;

import java.io.PrintStream;
import m0.core.Counts;
import m0.core.Page;
import m0.core.PageLayout;
import m0.core.SupervisorShare;
import m0.server.log.StartTrace;
import m0.server.share.Accepted;

/**
 * Which workers have started, as the page shows it; the "ready" line once every first worker
 * has, and at least one (docs/adr/0062), which turns {@code /readyz} to 200 (docs/adr/0067); and
 * everything systemd is told (READY, RELOADING,
 * STOPPING, STATUS: docs/adr/0018).
 */
final class Readiness {

    private final Slots slots;
    private final Page page;
    private final SupervisorShare<Accepted> share;
    private final StartupTimes startup;
    private final ServerCounters counters;
    private final SystemdNotify notify;
    private final PrintStream out;
    private final Health health;
    /** The "ready" line was printed: every first-generation worker has started. */
    private boolean announcedReady;
    /** A worker has been seen started, ever: from then on a 78 is one index's, not the server's. */
    private boolean anyStarted;
    /** The address whose scheme the app's main decides (--main without --tls-cert), or null: the start line said it. */
    private final String appScheme;

    Readiness(Slots slots, Page page, SupervisorShare<Accepted> share, StartupTimes startup, ServerCounters counters,
              SystemdNotify notify, PrintStream out, Health health, String appScheme) {
        this.slots = slots;
        this.appScheme = appScheme;
        this.page = page;
        this.share = share;
        this.startup = startup;
        this.counters = counters;
        this.notify = notify;
        this.out = out;
        this.health = health;
    }

    /**
     * A worker has started once the core sees it so on the page ({@code startSeen}: PARKED or a
     * pass, what its start writes); the core then lowers its STARTING mark.
     */
    void observeStarts(long now, boolean stopping) {
        boolean allStarted = true;
        for (int i = 0; i < slots.lines(); i++) {
            Slot s = slots.at(i);
            if (s.awaitingStart()) {
                if (share.startSeen(i)) {
                    s.sawStart(now);
                    anyStarted = true;
                    System.err.printf("m0serve: worker %d (pid %d) started %.0f ms after its spawn%n",
                            i, s.pid, startup.started(i, now));
                } else {
                    allStarted = false;
                }
            }
        }
        if (allStarted && anyStarted && !announcedReady && !stopping) {
            // "listening" is printed once the port is bound; a connection made before a worker has
            // started is served, but not shared with that worker (NS). Say when all are in, and
            // only once one serves: workers that all died before their start are no "ready".
            announcedReady = true;
            // The timing line first: whoever waits for the ready line on stdout then finds it.
            System.err.printf("m0serve: ready %d ms after launch%n", startup.ready());
            out.printf("m0serve: ready: %d worker(s) started%s%n", slots.running(), servingLine());
            StartTrace.mark("ready");
            out.flush();
            health.serving(); // after the line: a probe that reads 200 finds "ready" printed
            notify.ready(ProcessHandle.current().pid(), statusLine(stopping));
        }
    }

    /**
     * Under --main without --tls-cert: what the start line could not say, read off the page's
     * word every started worker wrote (an app makes the same server in each).
     */
    private String servingLine() {
        if (appScheme == null) {
            return "";
        }
        boolean tls = (page.getVolatile(PageLayout.FACTS_WORD) & PageLayout.FACT_APP_TLS) != 0;
        return ", serving " + (tls ? "https" : "http") + "://" + appScheme + "/ (the app's "
                + (tls ? "HttpsServer" : "HttpServer") + ")";
    }

    /** Some worker has started since the server's launch (what a 78 at start-up is read against). */
    boolean anyStarted() {
        return anyStarted;
    }

    /** STATUS= for systemd, when it listens (sent at most once a second, and only when changed). */
    void status(boolean stopping) {
        if (notify.enabled()) {
            notify.status(statusLine(stopping));
        }
    }

    void stopping() {
        notify.stopping(statusLine(true));
    }

    void reloading(int workers) {
        notify.reloading("reloading " + workers + " worker(s)");
    }

    /** The reload's queue is done. A reload runs only while the server is not stopping. */
    void reloaded() {
        notify.ready(ProcessHandle.current().pid(), statusLine(false));
    }

    /** For {@code systemctl status}: what a person wants to know at a glance. */
    private String statusLine(boolean stopping) {
        long open = 0;
        for (int i = 0; i < slots.lines(); i++) {
            if (slots.at(i).running()) {
                open += Math.max(0, Counts.active(page.getVolatile(PageLayout.countsWord(i))));
            }
        }
        return (stopping ? "stopping: " : "") + slots.running() + " worker(s) live, " + open + " connection(s) open, "
                + counters.respawns() + " respawn(s)";
    }
}
