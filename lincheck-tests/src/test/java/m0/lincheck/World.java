package m0.lincheck;

import static m0.core.PageLayout.LEFT;
import static m0.core.PageLayout.NOT_STARTED;
import static m0.core.PageLayout.PARKED;

import java.util.concurrent.atomic.AtomicLong;
import m0.core.AtomicLongArrayPage;
import m0.core.Channel;
import m0.core.Clock;
import m0.core.Counts;
import m0.core.Page;
import m0.core.PageLayout;
import m0.core.Siblings;

/**
 * One scenario's world: the real {@link AtomicLongArrayPage}, an in-memory bounded channel per
 * worker, a fake clock, the actors that use them, and the oracles of {@code DESIGN.md}'s table.
 *
 * <p>Every port access of every actor goes through that actor's own {@link Page} and
 * {@link Channel} view, and each access runs under the world's monitor. The page's accesses are
 * sequentially consistent already, so the monitor adds no ordering the core does not have; it
 * makes each access one atomic step, after which the oracles read the page and the channels as
 * one consistent snapshot ("pending never below what is in flight" at EVERY step, not only at
 * the end). Lincheck switches threads at the monitor, so every port access stays a switch point.
 *
 * <p>Actors can be killed at a fixed point of their own run: {@link #killAfter} makes the victim
 * die at its n-th port access, and a scenario sweeps n over every access the victim makes, each
 * under Lincheck (a killer thread racing the victim was tried first: Lincheck's bounded search
 * almost never placed it between two adjacent accesses). What a killed actor held is lost with
 * it, as a dead worker's connections are.
 *
 * <p>Time: the fake clock is frozen while any other actor can still run, so a bounded drain
 * never gives up on a sender that is merely slow in this schedule (the 250 ms bound is far
 * longer than a live sender's raise-to-send). It moves only when every other running actor has
 * finished or died ({@link #advanceIfAlone}): then nothing can arrive, and the bound ends the
 * wait on a raise a dead sender orphaned.
 *
 * <p>Orphaned raises: every complete core operation leaves {@code pending[i] - taken[i] -
 * queued[i]} (the slack) unchanged; only an operation cut short by a death leaves it higher
 * (a sender between its raise and its send, a receiver between the two words of a retire or
 * between its receive and its {@code taken += 1}). The world sums each actor's own effect on
 * the slack, so at quiescence the oracle knows exactly how many raises the dead orphaned, and
 * accepts those and nothing else. A slack below 0 at any step is always a violation.
 */
final class World {

    /** Where the fake clock starts: a pass's start time must read > 0. */
    static final long T0 = 1_000_000_000L;

    private static final long UNSEEN = Long.MIN_VALUE;

    /** At most this many actors and connections per scenario: plain arrays, no JDK collections. */
    private static final int MAX_ACTORS = 8;
    private static final int MAX_CONNS = 8;

    private final int workers;
    private final int capacity;
    private final AtomicLongArrayPage page;
    /** One ring per worker: its channel. */
    private final Conn[][] rings;
    private final int[] heads;
    private final int[] sizes;
    /** The fake clock: see {@link #advanceIfAlone}. */
    private final AtomicLong time = new AtomicLong(T0);
    private final Clock clock = time::get;
    private final Actor[] actors = new Actor[MAX_ACTORS];
    private int actorCount;
    private final Conn[] conns = new Conn[MAX_CONNS];
    private int connCount;
    /** Step at which index i was reaped (markReaped done); MAX until then or after a respawn. */
    private final long[] reapStep;
    /** Whether index i's current incarnation has started (PARKED written since the last bind). */
    private final boolean[] started;
    /** Per index: what heals took off pending - taken. */
    private final long[] healed;

    private long step;
    private String violation;

    World(int workers, int capacity) {
        this.workers = workers;
        this.capacity = capacity;
        this.page = AtomicLongArrayPage.forWorkers(workers);
        this.rings = new Conn[workers][capacity];
        this.heads = new int[workers];
        this.sizes = new int[workers];
        this.reapStep = new long[workers];
        this.started = new boolean[workers];
        this.healed = new long[workers];
        for (int i = 0; i < workers; i++) {
            reapStep[i] = Long.MAX_VALUE;
        }
    }

    int workers() {
        return workers;
    }

    Clock clock() {
        return clock;
    }

    /** A new actor: a worker's incarnation at {@code index}, or the supervisor (-1). */
    synchronized Actor actor(String name, int index) {
        Actor a = new Actor(name, index);
        actors[actorCount++] = a;
        return a;
    }

    /** A connection {@code a} has just accepted off the listener. */
    synchronized Conn accept(Actor a) {
        Conn c = new Conn(connCount, a);
        conns[connCount++] = c;
        return c;
    }

    // ---------------------------------------------------------------- actors' life and death

    /** Runs an actor's part; a death or another actor's violation ends it quietly. */
    void run(Actor a, Runnable body) {
        try {
            started(a);
            body.run();
            finished(a);
        } catch (Killed | Abort expected) {
            // Killed: the victim stops where it stood. Abort: someone else broke a rule.
        } catch (RuntimeException | AssertionError t) {
            // Not Throwable: Lincheck ends a thread with an Error of its own, which must pass.
            synchronized (this) {
                if (violation == null) {
                    violation = "HARNESS: " + a + " threw " + t;
                }
            }
        }
    }

    /** Makes {@code a} die at its port access after the next {@code accesses} (a fixed death point). */
    synchronized void killAfter(Actor a, int accesses) {
        a.accessesLeft = accesses;
    }

    /**
     * Called by a drain between its steps: when no other running actor can act any more, time
     * passes by {@code nanos}; otherwise the clock stays where it is.
     */
    void advanceIfAlone(Actor self, long nanos) {
        synchronized (this) {
            for (int k = 0; k < actorCount; k++) {
                Actor a = actors[k];
                if (a != self && a.running && !a.finished && !a.dead) {
                    return;
                }
            }
        }
        time.addAndGet(nanos);
    }

    /**
     * Time passes inside a pass: what an inline view running long does to the clock. A thread of
     * its own calls this, so Lincheck chooses where, among the other actors' port accesses, a
     * sibling's pass turns slow (over {@link m0.core.PageLayout#SLOW_PASS_NANOS} since its stamp).
     * Under the monitor: one switch point, ordered against every port access.
     */
    synchronized void passTime(long nanos) {
        time.addAndGet(nanos);
    }

    private synchronized void started(Actor a) {
        a.running = true;
        a.finished = false;
    }

    private synchronized void finished(Actor a) {
        a.finished = true;
    }

    /** {@code a} exits or is killed between port accesses (a worker that dies parked). */
    synchronized void die(Actor a) {
        if (!a.dead) {
            bury(a);
        }
    }

    private void bury(Actor a) {
        a.dead = true;
        for (int k = 0; k < connCount; k++) {
            Conn c = conns[k];
            if (c.fate == Conn.Fate.HELD && c.holder == a) {
                c.fate = Conn.Fate.LOST;
            }
        }
    }

    /** The supervisor has reaped index i (called after markReaped, or where the mutant skips it). */
    synchronized void reaped(int i) {
        reapStep[i] = step;
    }

    /** A replacement is placed at index i: what follows is its business, not the dead one's. */
    synchronized void respawned(int i) {
        reapStep[i] = Long.MAX_VALUE;
    }

    // ---------------------------------------------------------------- what actors do with a connection

    synchronized void serve(Actor a, Conn c) {
        own(a, c);
        c.fate = Conn.Fate.SERVED;
    }

    /**
     * A leaver closes a connection it admitted, before serving it (the historical drain
     * closed it as idle). Only allowed when no sibling serves.
     */
    synchronized void closeUnserved(Actor a, Conn c) {
        own(a, c);
        int sibling = liveOtherThan(a.index);
        if (sibling >= 0) {
            fail("IDLE-CLOSE: " + a + " closed never-served " + c + " while worker " + sibling
                    + " serves (" + stateName(page.getVolatile(PageLayout.stateWord(sibling))) + ")");
        }
        c.fate = Conn.Fate.CLOSED;
    }

    /** The give-up drain closes a connection nobody would take. Allowed only when none is live. */
    synchronized void closeNoSibling(Actor a, int deadIndex, Conn c) {
        own(a, c);
        int sibling = liveOtherThan(deadIndex);
        if (sibling >= 0) {
            fail("STRANDED: give-up closed " + c + " queued to " + deadIndex + " while worker "
                    + sibling + " serves");
        }
        c.fate = Conn.Fate.CLOSED;
    }

    private int liveOtherThan(int index) {
        for (int j = 0; j < workers; j++) {
            if (j != index && Siblings.live(page.getVolatile(PageLayout.stateWord(j)))) {
                return j;
            }
        }
        return -1;
    }

    private void own(Actor a, Conn c) {
        if (c.fate != Conn.Fate.HELD || c.holder != a) {
            fail("HARNESS: " + a + " used " + c + " it does not hold (" + c.fate + " by " + c.holder + ")");
        }
    }

    // ---------------------------------------------------------------- oracles

    /** Records the first violation and stops every actor at its next port access. */
    private void fail(String what) {
        if (violation == null) {
            violation = what + " [step " + step + ", page " + lines() + ", queues " + queuesText() + "]";
        }
        throw new Abort();
    }

    /** Per index: {@code pending - taken - queued}, which no step may take below 0 (R5). */
    private long slack(int i) {
        return Counts.inFlight(page.getVolatile(PageLayout.countsWord(i))) - sizes[i];
    }

    /**
     * After a step that could lower index i's slack (a send to it, a drop of its pending, a
     * rise of its taken): no step may leave pending below what is in flight (R5).
     */
    private void checkSlack(int i) {
        long slack = slack(i);
        if (slack < 0) {
            fail("IN-FLIGHT: pending[" + i + "] - taken[" + i + "] is " + (-slack)
                    + " below the " + sizes[i] + " connection(s) in flight to it");
        }
    }

    /**
     * Raises orphaned by the dead at index i and not healed: the sum of each dead actor's net
     * effect on the slack, less what heals took off (ADR 0024).
     */
    private long orphans(int i) {
        long n = -healed[i];
        for (int k = 0; k < actorCount; k++) {
            Actor a = actors[k];
            if (a.dead) {
                n += a.slack[i];
            }
        }
        return n;
    }

    /**
     * After every thread has joined and the live workers have run their last pass: no
     * violation seen at any step; every connection served, lost with a killed holder, or
     * closed when no sibling served; nothing stranded in a channel; at every index the slack
     * is exactly the raises the dead orphaned; at every live index pending is back to those
     * orphans and taken to 0.
     */
    synchronized void assertQuiescent(int... liveIndexes) {
        if (violation != null) {
            throw new AssertionError(violation);
        }
        for (int k = 0; k < connCount; k++) {
            Conn c = conns[k];
            if (c.fate == Conn.Fate.QUEUED) {
                throw new AssertionError("STRANDED: " + c + " left in the channel of worker " + c.at
                        + " (" + stateName(page.getVolatile(PageLayout.stateWord(c.at))) + ") at quiescence"
                        + " [page " + lines() + "]");
            }
            if (c.fate == Conn.Fate.HELD) {
                throw new AssertionError("HARNESS: " + c + " still held by " + c.holder + " at quiescence");
            }
        }
        for (int i = 0; i < workers; i++) {
            long slack = slack(i);
            long orphans = orphans(i);
            if (slack != orphans) {
                throw new AssertionError("SETTLE: pending[" + i + "] - taken[" + i + "] - queued = " + slack
                        + " at quiescence, but the dead orphaned " + orphans + " raise(s) [page " + lines() + "]");
            }
        }
        for (int i : liveIndexes) {
            long counts = page.getVolatile(PageLayout.countsWord(i));
            long pending = Counts.pending(counts);
            long taken = Counts.taken(counts);
            long orphans = orphans(i);
            if (pending != orphans || taken != 0) {
                throw new AssertionError("SETTLE: live worker " + i + " ends with pending " + pending
                        + " and taken " + taken + "; expected pending " + orphans
                        + " (orphaned raises) and taken 0 [page " + lines() + "]");
            }
        }
    }

    private String lines() {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < workers; i++) {
            s.append(i == 0 ? "" : " | ").append(i).append(": state ")
                    .append(stateName(page.getVolatile(PageLayout.stateWord(i))))
                    .append(' ').append(Counts.toString(page.getVolatile(PageLayout.countsWord(i))));
        }
        return s.toString();
    }

    private String queuesText() {
        StringBuilder s = new StringBuilder();
        for (int i = 0; i < workers; i++) {
            s.append(i == 0 ? "" : " ").append(i).append("=[");
            for (int k = 0; k < sizes[i]; k++) {
                s.append(k == 0 ? "" : ",").append(rings[i][(heads[i] + k) % capacity]);
            }
            s.append(']');
        }
        return s.toString();
    }

    static String stateName(long state) {
        return PageLayout.stateName(state);
    }

    // ---------------------------------------------------------------- port accesses

    /** Every port access starts here, under the monitor. */
    private void enter(Actor a) {
        step++;
        if (violation != null) {
            throw new Abort();
        }
        if (a.dead) {
            fail("HARNESS: dead " + a + " touched a port");
        }
        if (a.accessesLeft >= 0 && a.accessesLeft-- == 0) {
            a.killRequested = true;
        }
        if (a.killRequested) {
            bury(a);
            throw new Killed();
        }
    }

    private static int lineIndex(int word) {
        return (word - PageLayout.HEADER_WORDS) / PageLayout.LINE_WORDS;
    }

    /** A word's offset in its worker's line; -1 for the header and the STARTING region after the lines. */
    private int offset(int word) {
        return word < PageLayout.HEADER_WORDS || word >= PageLayout.lineOf(workers) ? -1
                : (word - PageLayout.HEADER_WORDS) % PageLayout.LINE_WORDS;
    }

    /** Book-keeps an actor's change of {@code word} from {@code before} to {@code after}. */
    private void wrote(Actor a, int word, long before, long after) {
        int off = offset(word);
        if (off == PageLayout.COUNTS_OFFSET) {
            int i = lineIndex(word);
            long change = Counts.inFlight(after) - Counts.inFlight(before);
            a.slack[i] += change;
            if (change < 0) {
                checkSlack(i);
            }
        } else if (off == PageLayout.STATE_OFFSET) {
            int i = lineIndex(word);
            if (after == NOT_STARTED) {
                started[i] = false; // bind: a new incarnation
            } else if (after == PARKED) {
                started[i] = true;
            }
        } else if (word == PageLayout.ROTATION_WORD) {
            // Every pick and every forward begins by taking the rotation: a new choice starts.
            a.newChoice();
        }
    }

    private void read(Actor a, int word, long value) {
        if (offset(word) == PageLayout.STATE_OFFSET) {
            int t = lineIndex(word);
            a.lastStateStep[t] = step;
            if (a.pickSaw[t] == UNSEEN) {
                a.pickSaw[t] = value; // the first look at t in this choice: what the pick saw
            }
        }
    }

    private final class ActorPage implements Page {
        private final Actor a;

        ActorPage(Actor a) {
            this.a = a;
        }

        @Override
        public int words() {
            return page.words();
        }

        @Override
        public long getVolatile(int word) {
            synchronized (World.this) {
                enter(a);
                long v = page.getVolatile(word);
                read(a, word, v);
                return v;
            }
        }

        @Override
        public void setVolatile(int word, long value) {
            synchronized (World.this) {
                enter(a);
                long before = page.getVolatile(word);
                page.setVolatile(word, value);
                wrote(a, word, before, value);
            }
        }

        @Override
        public long getAndAdd(int word, long delta) {
            synchronized (World.this) {
                enter(a);
                long before = page.getAndAdd(word, delta);
                wrote(a, word, before, before + delta);
                return before;
            }
        }

        @Override
        public boolean compareAndSet(int word, long expected, long value) {
            synchronized (World.this) {
                enter(a);
                boolean set = page.compareAndSet(word, expected, value);
                if (set && value - expected == Counts.RAISE) {
                    wrote(a, word, expected, value); // the accept path's raise (ADR 0043): the sender's, as an add's
                } else if (set && offset(word) == PageLayout.COUNTS_OFFSET) {
                    // A heal (it never raises) or a keep (ADR 0053: active alone, nothing off):
                    // what a heal takes off is the dead's orphans, not the healer's own slack.
                    int i = lineIndex(word);
                    healed[i] -= Counts.inFlight(value) - Counts.inFlight(expected);
                    checkSlack(i);
                } else if (set) {
                    wrote(a, word, expected, value);
                }
                return set;
            }
        }
    }

    private final class ActorChannel implements Channel<Conn> {
        private final Actor a;

        ActorChannel(Actor a) {
            this.a = a;
        }

        @Override
        public boolean send(int target, Conn c) {
            synchronized (World.this) {
                enter(a);
                own(a, c);
                if (sizes[target] == capacity) {
                    return false; // full: EAGAIN, the sender keeps it
                }
                long sawAtPick = a.pickSaw[target];
                if (sawAtPick == NOT_STARTED && !started[target]) {
                    fail("NOT-STARTED: " + a + " handed " + c + " to worker " + target
                            + ", which its pick read as not started, and which has not started");
                }
                if (a.lastStateStep[target] > reapStep[target]) {
                    fail("REAPED: " + a + " handed " + c + " to worker " + target + " after its reap (step "
                            + reapStep[target] + "): it read the state at step " + a.lastStateStep[target]);
                }
                a.newChoice();
                rings[target][(heads[target] + sizes[target]) % capacity] = c;
                sizes[target]++;
                c.fate = Conn.Fate.QUEUED;
                c.holder = null;
                c.at = target;
                a.slack[target] -= 1;
                checkSlack(target);
                return true;
            }
        }

        @Override
        public Conn receive(int index) {
            synchronized (World.this) {
                enter(a);
                if (sizes[index] == 0) {
                    return null; // EAGAIN
                }
                Conn c = rings[index][heads[index]];
                rings[index][heads[index]] = null;
                heads[index] = (heads[index] + 1) % capacity;
                sizes[index]--;
                c.fate = Conn.Fate.HELD;
                c.holder = a;
                c.at = -1;
                a.slack[index] += 1;
                return c;
            }
        }
    }

    /** A worker incarnation or the supervisor, with its own view of the ports. */
    final class Actor {
        final String name;
        final int index;
        /** This actor's net effect on each index's slack; non-zero only while an operation is open. */
        final long[] slack = new long[workers];
        /** Step of this actor's latest read of each worker's state. */
        final long[] lastStateStep = new long[workers];
        /** What this actor's current pick first read of each worker's state. */
        final long[] pickSaw = new long[workers];
        final Page page = new ActorPage(this);
        final Channel<Conn> channel = new ActorChannel(this);
        boolean killRequested;
        int accessesLeft = -1;
        boolean dead;
        /** Inside {@link World#run}, and whether that part has returned. */
        boolean running;
        boolean finished;

        Actor(String name, int index) {
            this.name = name;
            this.index = index;
            for (int i = 0; i < workers; i++) {
                lastStateStep[i] = -1;
            }
            newChoice();
        }

        /** A pick, a forward or a send begins or ends: forget what the last choice saw. */
        void newChoice() {
            for (int i = 0; i < workers; i++) {
                pickSaw[i] = UNSEEN;
            }
        }

        @Override
        public String toString() {
            return name;
        }
    }

    /**
     * Thrown at a killed actor's next port access: it stops there. An Error, as the core's
     * Channel contract says a death is: the core takes a raise back after a send that throws an
     * exception, and a dead actor must not write.
     */
    static final class Killed extends Error {
        Killed() {
            super("killed", null, false, false);
        }
    }

    /** Thrown at every actor's next port access once a rule is broken: the run is over. */
    static final class Abort extends RuntimeException {
        Abort() {
            super("aborted", null, false, false);
        }
    }
}
