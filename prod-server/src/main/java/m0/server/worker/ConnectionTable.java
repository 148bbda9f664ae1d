package m0.server.worker;

import java.util.Arrays;
import java.util.function.Consumer;
import java.util.function.Predicate;

/**
 * A worker's open connections, by descriptor: the one table, and the one scan over it.
 * Invariant: {@link #open()} is the number of entries, and an entry is at its descriptor's slot
 * from its admission to its close or hand-off. Not thread-safe: the worker's loop owns it.
 */
final class ConnectionTable {

    private final Affinities affinities;
    private Connection[] byFd = new Connection[1024];
    private int maxFd = -1;
    private long open;
    /** Where the last {@link #next} stopped: connections are taken in turn. */
    private int cursor;

    ConnectionTable() {
        this(Affinities.none());
    }

    ConnectionTable(Affinities affinities) {
        this.affinities = affinities;
    }

    /** The affinities of the connections held (ADR 0057). */
    Affinities affinities() {
        return affinities;
    }

    /** The connection at {@code fd}, or null. */
    Connection get(int fd) {
        return fd >= 0 && fd <= maxFd ? byFd[fd] : null;
    }

    void put(Connection c) {
        if (c.fd >= byFd.length) {
            byFd = Arrays.copyOf(byFd, Math.max(c.fd + 1, byFd.length * 2));
        }
        byFd[c.fd] = c;
        maxFd = Math.max(maxFd, c.fd);
        open++;
    }

    /** Forgets {@code c} (closed, or handed off): its slot is free for the next descriptor. */
    void remove(Connection c) {
        if (byFd[c.fd] == c) {
            byFd[c.fd] = null;
            open--;
            affinities.forget(c);
        }
    }

    long open() {
        return open;
    }

    /** Every connection, in descriptor order; {@code action} may remove the one it is given. */
    void forEach(Consumer<Connection> action) {
        for (int fd = 0; fd <= maxFd; fd++) {
            Connection c = byFd[fd];
            if (c != null) {
                action.accept(c);
            }
        }
    }

    /** The next connection after the last one returned that {@code test} accepts, or null. */
    Connection next(Predicate<Connection> test) {
        for (int k = 0; k <= maxFd; k++) {
            int fd = cursor = cursor >= maxFd ? 0 : cursor + 1;
            Connection c = byFd[fd];
            if (c != null && test.test(c)) {
                return c;
            }
        }
        return null;
    }
}
