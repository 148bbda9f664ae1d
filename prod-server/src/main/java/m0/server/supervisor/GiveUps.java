package m0.server.supervisor;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import m0.core.GiveUp;
import m0.core.Page;
import m0.core.PageLayout;
import m0.core.SupervisorShare;
import m0.server.jnr.Epoll;
import m0.server.jnr.Fds;
import m0.server.log.RateLimitedLog;
import m0.server.share.Accepted;

/**
 * The indices given up (not replaced), each through the core's {@link GiveUp}: first its drain,
 * stepped from the loop every 10 ms until done (RB: what was queued to the dead worker re-homed
 * to a live one, or closed when none is live, within 250 ms; pending and taken settled); then
 * the watch of its channel until the index is spawned into again (docs/adr/0020: a sender that
 * read the index live before the reap and stalled past the drain still queues into it).
 *
 * <p>An index is not free while its drain runs ({@link Slot#draining}); its watch ends before
 * anything is spawned into it ({@link #unwatch}), so a channel never has two readers.
 */
final class GiveUps {

    /** Epoll data of a watched channel: this tag | the index (a worker's pidfd has the bare index). */
    private static final long WATCH_TAG = 1L << 32;

    private final Slots slots;
    private final Epoll epoll;
    private final int[] receiveFds;
    private final SupervisorShare<Accepted> share;
    private final Page page;
    private final ServerCounters counters;
    private final RateLimitedLog failures;
    private final List<Drain> drains = new ArrayList<>();
    /** Finished give-ups whose channel is in the epoll set, by index; null: not watched. */
    private final GiveUp<Accepted>[] watched;

    /** A give-up drain in progress and when its worker was reaped (for the log). */
    private record Drain(GiveUp<Accepted> giveUp, long reapedAt) {
    }

    GiveUps(Slots slots, Epoll epoll, int[] receiveFds, SupervisorShare<Accepted> share, Page page,
            ServerCounters counters, RateLimitedLog failures) {
        this.slots = slots;
        this.epoll = epoll;
        this.receiveFds = receiveFds;
        this.share = share;
        this.page = page;
        this.counters = counters;
        this.failures = failures;
        @SuppressWarnings({"unchecked", "rawtypes"}) // no generic array creation in Java
        GiveUp<Accepted>[] none = new GiveUp[slots.lines()];
        this.watched = none;
    }

    /** The epoll event is a watched channel's, not a pidfd's. */
    static boolean isWatch(long data) {
        return (data & WATCH_TAG) != 0;
    }

    static int watchedIndex(long data) {
        return (int) (data & ~WATCH_TAG);
    }

    /** A drain is still running: the loop polls every 10 ms and does not exit. */
    boolean draining() {
        return !drains.isEmpty();
    }

    /**
     * The index will not be replaced. RB: what was queued to it goes to a live worker (or is
     * closed) within 250 ms, and pending/taken are settled, so the index is clean for whoever
     * takes it next.
     */
    void giveUp(int index, long now) {
        slots.at(index).givenUp();
        counters.gaveUp();
        drains.add(new Drain(share.giveUp(index), now));
    }

    /** Drives every drain one step; a finished one adds its counts to the page and starts its watch. */
    void step() {
        drains.removeIf(d -> {
            GiveUp<Accepted> g = d.giveUp();
            try {
                if (g.step(c -> Fds.close(c.fd()))) {
                    return false;
                }
            } catch (RuntimeException e) {
                // The drain keeps its counts (a send that failed took its raise back): step again.
                failures.log("give-up drain of index " + g.index() + ": " + e + "; retrying");
                return false;
            }
            if (g.rehomed() > 0) {
                page.getAndAdd(PageLayout.REHOMED_WORD, g.rehomed());
            }
            if (g.lost() > 0) {
                page.getAndAdd(PageLayout.LOST_WORD, g.lost());
            }
            if (g.drained() > 0) {
                System.err.println("m0serve: index " + g.index() + " given up: " + g.rehomed() + " queued connection(s) "
                        + "re-homed, " + g.closed() + " closed, in "
                        + TimeUnit.NANOSECONDS.toMicros(System.nanoTime() - d.reapedAt()) / 1000.0 + " ms");
            }
            slots.at(g.index()).draining = false;
            watch(g);
            return true;
        });
    }

    /** The give-up of {@code g.index()} is done: read its channel until the index is bound again. */
    private void watch(GiveUp<Accepted> g) {
        int index = g.index();
        if (watched[index] != null || !share.sharing()) {
            return;
        }
        watched[index] = g;
        epoll.add(receiveFds[index], Epoll.IN, WATCH_TAG | index);
    }

    /** Something arrived late in a given-up channel: re-home it (or close it: no live worker). */
    void watchStep(int index) {
        GiveUp<Accepted> g = watched[index];
        if (g == null) {
            return;
        }
        long rehomed = g.rehomed();
        long lost = g.lost();
        long closed = g.closed();
        try {
            g.watch(c -> Fds.close(c.fd()));
        } catch (RuntimeException e) {
            // Level-triggered: what is still queued is tried again at the next wait.
            failures.log("watching given-up index " + index + ": " + e + "; retrying");
        }
        if (g.rehomed() > rehomed) {
            page.getAndAdd(PageLayout.REHOMED_WORD, g.rehomed() - rehomed);
        }
        if (g.lost() > lost) {
            page.getAndAdd(PageLayout.LOST_WORD, g.lost() - lost);
        }
        if (g.rehomed() + g.lost() + g.closed() > rehomed + lost + closed) {
            failures.log("index " + index + " given up: a late hand-off arrived after its drain; "
                    + (g.rehomed() - rehomed) + " re-homed, " + (g.closed() - closed) + " closed");
        }
    }

    /**
     * A reap asked every index's receiver to heal its counts (ADR 0024); the given-up ones we
     * watch are ours to heal (a sender killed against one leaves a raise nothing takes off).
     */
    void healWatched() {
        for (int j = 0; j < watched.length; j++) {
            if (watched[j] != null) {
                watchStep(j);
            }
        }
    }

    /** The index is about to be bound again: its new worker reads the channel from now on. */
    void unwatch(int index) {
        if (watched[index] != null) {
            watched[index] = null;
            epoll.delete(receiveFds[index]);
        }
    }
}
