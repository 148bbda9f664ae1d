package m0.core.loop;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import m0.core.PageLayout;
import m0.core.Rebalance;

/** The loop's ports as plain objects a test arranges and reads: a listener, connections, channels. */
final class FakePorts {

    private FakePorts() {
    }

    /** Thrown by {@link FakeListener#accept} while {@code emfile}: the port says it is EMFILE. */
    static final class OutOfDescriptors extends RuntimeException {
        OutOfDescriptors() {
            super("accept: EMFILE");
        }
    }

    /** One worker's view of a listener whose backlog every worker of a test shares. */
    static final class FakeListener implements Listener<String> {
        final ArrayDeque<String> backlog;
        final List<String> events = new ArrayList<>();
        boolean in;
        boolean closed;
        boolean emfile;
        /** Thrown once by the next accept, as a port does for a failure of that one connection (ECONNABORTED). */
        RuntimeException failNext;
        int accepts;

        FakeListener(ArrayDeque<String> backlog) {
            this.backlog = backlog;
        }

        @Override
        public String accept() {
            accepts++;
            if (emfile) {
                throw new OutOfDescriptors();
            }
            if (failNext != null) {
                RuntimeException e = failNext;
                failNext = null;
                throw e;
            }
            return backlog.poll();
        }

        @Override
        public boolean outOfDescriptors(RuntimeException failure) {
            return failure instanceof OutOfDescriptors;
        }

        @Override
        public boolean readable() {
            events.add("poll");
            return !backlog.isEmpty();
        }

        @Override
        public void listen(boolean in) {
            events.add(in ? "in" : "out");
            this.in = in;
        }

        @Override
        public void deferAccept(boolean on) {
            events.add(on ? "defer" : "no-defer");
        }

        @Override
        public void close() {
            events.add("close");
            closed = true;
        }
    }

    /** One held connection: its name, whether it is idle (movable), whether it was received, its affinity. */
    static final class Held {
        final String name;
        final boolean received;
        boolean idle = true;
        /** Reused keep-alive (ADR 0059): what a keeping worker's look counts and moves. */
        boolean settled;
        int affinity = Rebalance.ANY_AFFINITY;
        /** Its TLS handshake began here (ADR 0069): the loop must never move it. */
        boolean handshakeBegun;

        Held(String name, boolean received) {
            this.name = name;
            this.received = received;
        }

        @Override
        public String toString() {
            return name;
        }
    }

    static final class FakeConnections implements Connections<String> {
        final List<Held> held = new ArrayList<>();
        /** Every admit and close, in order: "admit c1", "admit c2 received", "close c3". */
        final List<String> log = new ArrayList<>();
        long unmodelled;
        long deadline = Long.MAX_VALUE;
        int expired;
        long poolBusy;
        int poolThreads;
        /** What the driver counted: connections closed after one request or none, second requests. */
        long shortCloses;
        long reuses;
        /** Receipts arrive settled, as a keeping sibling's moves do in m0serve (the hand-off carries it). */
        boolean receiptsSettled;
        /** Run at each admit, before it is logged: lets a test read the page mid-pass. */
        Runnable onAdmit = () -> { };
        /** Run when the timers are served: lets a test read the page and the log at that point of the pass. */
        Runnable onExpire = () -> { };

        void hold(String name) {
            held.add(new Held(name, false));
        }

        /** Holds an idle connection whose client pairs with worker {@code affinity}. */
        void hold(String name, int affinity) {
            Held h = new Held(name, false);
            h.affinity = affinity;
            held.add(h);
        }

        /** Holds an idle TLS connection whose handshake ran here (ADR 0069). */
        void holdTls(String name) {
            Held h = new Held(name, false);
            h.handshakeBegun = true;
            held.add(h);
        }

        @Override
        public boolean handshakeBegun(String connection) {
            return held.stream().anyMatch(h -> h.name.equals(connection) && h.handshakeBegun);
        }

        /** Holds an idle settled keep-alive connection (ADR 0059). */
        void holdSettled(String name) {
            Held h = new Held(name, false);
            h.settled = true;
            held.add(h);
        }

        @Override
        public long settled() {
            return held.stream().filter(h -> h.settled).count();
        }

        @Override
        public boolean moveSettled(Predicate<? super String> send) {
            return moveFirst(h -> h.idle && h.settled, send);
        }

        /** The first held connection {@code which} picks, offered to {@code send}: gone on true. */
        private boolean moveFirst(Predicate<Held> which, Predicate<? super String> send) {
            for (Held h : held) {
                if (which.test(h)) {
                    if (send.test(h.name)) {
                        held.remove(h);
                        log.add("moved " + h.name);
                        return true;
                    }
                    return false;
                }
            }
            return false;
        }

        @Override
        public long affinities() {
            long mask = 0;
            for (Held h : held) {
                mask |= h.affinity < 0 ? 0 : PageLayout.affineBit(h.affinity);
            }
            return mask;
        }

        @Override
        public long open() {
            return unmodelled + held.size();
        }

        @Override
        public void admit(String connection, boolean received) {
            onAdmit.run();
            Held h = new Held(connection, received);
            h.settled = received && receiptsSettled;
            held.add(h);
            log.add("admit " + connection + (received ? " received" : ""));
        }

        @Override
        public boolean moveIdle(int affinity, boolean onlyThatKind, Predicate<? super String> send) {
            Held kind = null;
            for (Held h : held) {
                if (h.idle && h.affinity == affinity && kind == null) {
                    kind = h;
                }
            }
            if (kind == null && onlyThatKind && affinity >= 0) {
                return false;
            }
            Held chosen = kind;
            return moveFirst(h -> h.idle && (chosen == null || h == chosen), send);
        }

        @Override
        public void leaveIdle(Predicate<? super String> handOver, BooleanSupplier keep) {
            for (Held h : List.copyOf(held)) {
                if (!h.idle) {
                    continue;
                }
                if (handOver.test(h.name)) {
                    held.remove(h);
                    log.add("handed over " + h.name);
                } else if (!keep.getAsBoolean()) {
                    held.remove(h);
                    log.add("close " + h.name);
                }
            }
        }

        @Override
        public void closeAll() {
            for (Held h : held) {
                log.add("close " + h.name);
            }
            held.clear();
        }

        @Override
        public long deadline() {
            return deadline;
        }

        @Override
        public void expire(long now) {
            onExpire.run();
            expired++;
            deadline = Long.MAX_VALUE;
        }

        @Override
        public long poolBusyNanos(long now) {
            return poolBusy;
        }

        @Override
        public int poolThreads() {
            return poolThreads;
        }

        @Override
        public long shortCloses() {
            return shortCloses;
        }

        @Override
        public long reuses() {
            return reuses;
        }
    }

    static final class FakeChannels implements Channels {
        final List<Integer> nudges = new ArrayList<>();
        boolean nudged;
        boolean watching = true;

        @Override
        public void nudge(int target) {
            nudges.add(target);
        }

        @Override
        public boolean nudged() {
            boolean n = nudged;
            nudged = false;
            return n;
        }

        @Override
        public void stopWatching() {
            watching = false;
        }
    }
}
