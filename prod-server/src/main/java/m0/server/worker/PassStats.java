package m0.server.worker;

import m0.core.AcceptShare;
import m0.core.Page;
import m0.core.PageLayout;
import m0.core.loop.PassMeter;
import m0.server.share.Accepted;
import m0.server.stats.WorkerCounters;

/**
 * What a worker shows of itself, written at each pass end: its loop's counts and busy time in
 * its own counters (a memfd, docs/adr/0023), and the hand-off statistics on its line of the page
 * (sent, received, forwarded: the predecessors' totals plus ours; receipts lost, for every
 * index in one header word). A word is written only when it changed, so a pass without
 * hand-offs costs compares.
 */
final class PassStats {

    private final Page page;
    private final AcceptShare<Accepted> share;
    private final int index;
    private final PassMeter meter;
    private final BlockingPool pool;
    private final ConnectionIo io;
    /** Null where the worker writes with write(2) only. */
    private final RingSends sends;
    private final WorkerCounters counters = WorkerCounters.create();
    /** The index's stats words as the predecessors left them: this worker adds to them. */
    private final long sentBase;
    private final long receivedBase;
    private final long forwardedBase;
    private long shownSent;
    private long shownReceived;
    private long shownForwarded;
    private long shownLost;

    PassStats(Page page, AcceptShare<Accepted> share, int index, PassMeter meter, BlockingPool pool, ConnectionIo io,
              RingSends sends) {
        this.page = page;
        this.io = io;
        this.sends = sends;
        this.share = share;
        this.index = index;
        this.meter = meter;
        this.pool = pool;
        this.sentBase = page.getVolatile(PageLayout.sentWord(index));
        this.receivedBase = page.getVolatile(PageLayout.receivedWord(index));
        this.forwardedBase = page.getVolatile(PageLayout.forwardedWord(index));
    }

    void endOfPass(long now) {
        counters.set(WorkerCounters.WAKEUPS, meter.wakeups());
        counters.set(WorkerCounters.EMPTY_WAKEUPS, meter.emptyWakeups());
        counters.set(WorkerCounters.ACCEPTED, meter.accepted());
        counters.set(WorkerCounters.LOOKS, meter.looks());
        counters.set(WorkerCounters.BUSY_NANOS, meter.busyNanos());
        counters.set(WorkerCounters.POOL_BUSY_NANOS, pool == null ? 0 : pool.busyNanos(now));
        counters.set(WorkerCounters.RING_SENDS, sends == null ? 0 : sends.sendCount());
        counters.set(WorkerCounters.RING_CALLS, sends == null ? 0 : sends.callCount());
        counters.set(WorkerCounters.WRITES, io.writeCalls());
        counters.set(WorkerCounters.SENDFILES, io.sendfileCalls());
        counters.set(WorkerCounters.SENDFILE_BYTES, io.sendfileBytes());
        counters.set(WorkerCounters.HANDLER_FAILURES, io.handlerFailures());
        counters.set(WorkerCounters.TLS_FULL_HANDSHAKES, io.tlsFullHandshakes());
        counters.set(WorkerCounters.TLS_RESUMED_HANDSHAKES, io.tlsResumedHandshakes());
        if (share.sharing()) { // one worker, or the bare race: nothing handed off to count
            counters.set(WorkerCounters.REBALANCED, share.rebalancedCount());
            counters.set(WorkerCounters.PASSED_OVER_SLOW, share.passedOverSlowCount());
            counters.set(WorkerCounters.PICKED_AGAIN, share.pickedAgainCount());
            publishHandOffs();
        }
        counters.publish();
    }

    private void publishHandOffs() {
        long lost = share.lostCount();
        if (lost != shownLost) {
            page.getAndAdd(PageLayout.LOST_WORD, lost - shownLost); // one header word for every index
            shownLost = lost;
        }
        long sent = share.sentCount();
        if (sent != shownSent) {
            shownSent = sent;
            page.setVolatile(PageLayout.sentWord(index), sentBase + sent);
        }
        long received = share.receivedCount();
        if (received != shownReceived) {
            shownReceived = received;
            page.setVolatile(PageLayout.receivedWord(index), receivedBase + received);
        }
        long forwarded = share.forwardedCount();
        if (forwarded != shownForwarded) {
            shownForwarded = forwarded;
            page.setVolatile(PageLayout.forwardedWord(index), forwardedBase + forwarded);
        }
    }
}
