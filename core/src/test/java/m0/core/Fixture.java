package m0.core;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * N workers' {@link AcceptShare}s over one recording page and one in-memory channel, with one
 * log holding both page accesses and channel operations in the order they happened.
 */
final class Fixture {

    static final long T0 = 1_000_000_000L;

    final List<String> log = new ArrayList<>();
    final RecordingPage page;
    final QueueChannel<String> channel;
    final FakeClock clock = new FakeClock(T0);
    final List<AcceptShare<String>> workers = new ArrayList<>();
    final SupervisorShare<String> supervisor;

    Fixture(int n) {
        this(n, 1024);
    }

    Fixture(int n, int channelCapacity) {
        this(n, channelCapacity, AcceptPolicy::share);
    }

    /** Each worker with its own instance of {@code policy} (a policy keeps per-worker state). */
    Fixture(int n, Supplier<AcceptPolicy> policy) {
        this(n, 1024, policy);
    }

    Fixture(int n, int channelCapacity, Supplier<AcceptPolicy> policy) {
        page = new RecordingPage(n, log);
        channel = new QueueChannel<>(n, channelCapacity, log);
        for (int i = 0; i < n; i++) {
            workers.add(new AcceptShare<>(page, channel, clock, policy.get(), n, i));
        }
        supervisor = new SupervisorShare<>(page, channel, clock, n, true);
    }

    AcceptShare<String> w(int i) {
        return workers.get(i);
    }

    /** Every worker binds and starts, as at server start; the log is cleared after. */
    Fixture started() {
        for (AcceptShare<String> w : workers) {
            w.bind();
            w.start();
        }
        log.clear();
        return this;
    }

    long state(int i) {
        return page.peek(PageLayout.stateWord(i));
    }

    long active(int i) {
        return Counts.active(page.peek(PageLayout.countsWord(i)));
    }

    /** Arranges worker i's published open connections, its counts' active field (not recorded). */
    void active(int i, long open) {
        long w = page.peek(PageLayout.countsWord(i));
        page.put(PageLayout.countsWord(i), w + Counts.activeBy(open - Counts.active(w)));
    }

    long pending(int i) {
        return Counts.pending(page.peek(PageLayout.countsWord(i)));
    }

    long taken(int i) {
        return Counts.taken(page.peek(PageLayout.countsWord(i)));
    }

    /**
     * A live sender in the middle of a hand-off: {@code sender} (-1: the supervisor) has
     * published it and raised {@code target}'s pending, and its datagram is not queued yet.
     */
    void midHandOff(int sender, int target) {
        page.put(sender < 0 ? PageLayout.SUPERVISOR_SENDING_WORD : PageLayout.sendingWord(sender), target + 1);
        page.put(PageLayout.countsWord(target), page.peek(PageLayout.countsWord(target)) + Counts.RAISE);
    }

    /** That hand-off's datagram lands: queued, and the sender's SENDING cleared. */
    void landed(int sender, int target, String connection) {
        channel.send(target, connection);
        page.put(sender < 0 ? PageLayout.SUPERVISOR_SENDING_WORD : PageLayout.sendingWord(sender), 0);
    }

    /** Arranges worker i's counts (not recorded). */
    void counts(int i, long pending, long taken) {
        page.put(PageLayout.countsWord(i), Counts.of(pending, taken, active(i)));
    }

    void put(int word, long value) {
        page.put(word, value);
    }

    long get(int word) {
        return page.getVolatile(word);
    }

    /** Index in the log of the first entry starting with {@code prefix}, or -1. */
    int first(String prefix) {
        for (int k = 0; k < log.size(); k++) {
            if (log.get(k).startsWith(prefix)) {
                return k;
            }
        }
        return -1;
    }
}
