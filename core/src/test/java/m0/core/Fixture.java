package m0.core;

import java.util.ArrayList;
import java.util.List;

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
        page = new RecordingPage(n, log);
        channel = new QueueChannel<>(n, channelCapacity, log);
        for (int i = 0; i < n; i++) {
            workers.add(new AcceptShare<>(page, channel, clock, AcceptPolicy.share(), n, i));
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
        return page.peek(PageLayout.activeWord(i));
    }

    long pending(int i) {
        return page.peek(PageLayout.pendingWord(i));
    }

    long taken(int i) {
        return page.peek(PageLayout.takenWord(i));
    }

    void put(int word, long value) {
        page.put(word, value);
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
