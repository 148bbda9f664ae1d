package m0.server.it;

import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import m0.server.stats.PageSnapshot;
import m0.server.stats.SupervisorPage;
import m0.server.stats.WorkerProcesses;

/**
 * A running server's shared page, mapped read-only from the test (as {@code m0serve stats}
 * does), and bounded waits on what it publishes: the synchronisation the spread tests use
 * instead of sleeps.
 */
final class PageWatch {

    private static final long POLL_MILLIS = 5;

    final SupervisorPage page;

    private PageWatch(SupervisorPage page) {
        this.page = page;
    }

    static PageWatch of(ServerProcess server) throws IOException {
        return new PageWatch(SupervisorPage.open(server.pid(), 0));
    }

    /** The first {@code workers} lines, whatever the supervisor's --workers (a server grown by SIGTTIN). */
    static PageWatch of(ServerProcess server, int workers) throws IOException {
        return new PageWatch(SupervisorPage.open(server.pid(), workers));
    }

    PageSnapshot read() {
        return page.read();
    }

    /** Every worker serves: its epoll set watches the listener and (share) its line left NOT_STARTED. */
    void awaitReady(long timeoutMillis) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        while (!WorkerProcesses.allReady(page)) {
            if (System.nanoTime() - deadline >= 0) {
                throw new AssertionError("workers not all serving after " + timeoutMillis + " ms:\n"
                        + page.read().format());
            }
            Thread.sleep(POLL_MILLIS); // polling a condition, bounded by the deadline
        }
    }

    /** Waits until the page satisfies {@code condition}; returns the snapshot that did. */
    PageSnapshot await(String what, Predicate<PageSnapshot> condition, long timeoutMillis) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        for (;;) {
            PageSnapshot s = page.read();
            if (condition.test(s)) {
                return s;
            }
            if (System.nanoTime() - deadline >= 0) {
                throw new AssertionError("page not " + what + " after " + timeoutMillis + " ms:\n" + s.format());
            }
            Thread.sleep(POLL_MILLIS);
        }
    }

    /**
     * Nothing open, nothing in flight: the last round's closes have been published (active is
     * written at the end of the pass that saw each EOF), so the next round starts from even loads.
     */
    PageSnapshot awaitQuiescent(long timeoutMillis) throws InterruptedException {
        return await("quiescent (active, pending, taken all 0)", PageSnapshot::quiescent, timeoutMillis);
    }
}
