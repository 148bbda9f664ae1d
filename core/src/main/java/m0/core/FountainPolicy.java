package m0.core;

/**
 * Fountain (seed 004, ADR 0019): workers fill in index order, like the tiers of a fountain.
 * Worker 0 takes new connections; worker i takes one only while every worker before it is full
 * or not taking, and otherwise leaves it to them for up to {@link #LEAVE_NANOS} (2 ms).
 *
 * <p>A connection this worker does accept stays here: pick is self (the note has no hand-off;
 * "established connections never move", so rebalance and a leaver's hand-over are off too). Pick
 * counts the accept for the surge estimate.
 *
 * <p><b>Taking.</b> Worker j takes new connections when it is live (not LEFT, not NOT_STARTED),
 * not inside one pass for over 2 ms, not full by its published word, does not hold its listener
 * out for reasons of its own (its word's HELD bit: at its connection cap, or backing off after
 * EMFILE, ADR 0038), and is not marked stuck by this worker.
 *
 * <p>The listener rule, asked each time the loop looks at the listener (epoll found it readable,
 * or a look at the last answer's deadline):
 * <ul>
 *   <li>The <b>head</b> is the first earlier worker that is taking. No head: listen, and accept
 *       now (a full worker leaves it to the first later one that is taking, ADR 0031).
 *   <li>Otherwise leave the listener to the head and look again within {@link #LOOK_NANOS}
 *       (1 ms), sooner if the head's pass turns slow first. When two looks a look apart both
 *       find the listener readable and the head's state and active words unchanged between them
 *       (a head stopped while parked, or dead and not yet reaped: its state cannot tell), take
 *       it: a connection arriving just after a look is taken within two looks, 2 ms. A healthy
 *       head takes a connection within microseconds of its arrival, and that changes its words.
 *   <li>A head found stuck is marked, and stays skipped while its words stay unchanged, so only
 *       the first connection behind it waits; once they change it is taking again (a head
 *       continued after a stop, idle again, shows the words it stopped with: they must not keep
 *       it skipped). Each worker has a mark of its own: a full worker between a stuck head and a
 *       stuck later worker keeps both marked, where one mark would swap between them and make
 *       every connection wait its two looks.
 * </ul>
 *
 * <p>One instance per worker, called from that worker's loop.
 */
final class FountainPolicy implements AcceptPolicy {

    /** How long a worker leaves a readable listener to an earlier one, at most: 2 ms. */
    static final long LEAVE_NANOS = PageLayout.SLOW_PASS_NANOS;
    /** Looks at a listener left to an earlier worker: two of them bound the wait by 2 ms. */
    static final long LOOK_NANOS = LEAVE_NANOS / 2;

    private final BusyEstimator estimator;
    private long published = -1;
    /** The listener is out for this worker's own reasons: HELD on its busy word. */
    private boolean held;
    /** The last accept turned this worker full, and no sibling has been told yet. */
    private boolean turnedFull;

    /** The last look that counts: was the listener readable, when, and the head's words then. */
    private boolean lookedReadable;
    private long lookAt;
    private int lookHead = -1;
    private long lookState;
    private long lookActive;
    private long deadline;

    /** Workers found stuck, each with its words then: skipped while they stay so. */
    private boolean[] stuck = new boolean[0];
    private long[] stuckState = new long[0];
    private long[] stuckActive = new long[0];

    FountainPolicy(BusyEstimator estimator) {
        this.estimator = estimator;
    }

    @Override
    public String name() {
        return "fountain";
    }

    @Override
    public boolean shares() {
        return true; // the page's state words (LEFT, NOT_STARTED, slow pass) are what it reads
    }

    @Override
    public boolean movesConnections() {
        return false;
    }

    @Override
    public boolean samplesBusy() {
        return true;
    }

    /** Yes: a head stuck inside an accept batch reads as slow, and a later one takes over (ADR 0019, 0052). */
    @Override
    public boolean admissionIsBusy() {
        return true;
    }

    @Override
    public boolean wakesOne() {
        return false; // a worker woken for a connection it leaves to its head would sit on it (ADR 0022)
    }

    @Override
    public int pick(Siblings siblings, int self, long open) {
        boolean was = estimator.full();
        estimator.accepted();
        publish(siblings, self);
        if (!was && estimator.full()) {
            turnedFull = true;
        }
        return self;
    }

    /**
     * Full, with a later worker that is taking: end the batch, and tell that worker to look
     * now, once per turn to full (later batches of a worker still full end after one accept,
     * telling nobody: the told worker is already taking, or will be at its look). Full behind an
     * earlier worker that is taking: end the batch too, for the listener is that worker's by the
     * fill order. Nobody else taking: go on, as every worker does when all are full.
     */
    @Override
    public int endBatch(Siblings siblings, int self) {
        if (!estimator.full()) {
            turnedFull = false;
            return GO_ON;
        }
        long now = siblings.now();
        for (int j = self + 1; j < siblings.workers(); j++) {
            if (!taking(siblings, j, siblings.state(j), now)) {
                continue; // stopped, dead-but-unreaped and slow ones included: no batch ends for them
            }
            if (turnedFull) {
                turnedFull = false;
                return j;
            }
            return END_BATCH;
        }
        // An earlier worker that is taking has the listener by the fill order: a full worker
        // behind it ends the batch too, and leaves the rest to it under takeListener's looks.
        for (int j = 0; j < self; j++) {
            if (taking(siblings, j, siblings.state(j), now)) {
                return END_BATCH;
            }
        }
        return GO_ON;
    }

    @Override
    public void started(Siblings siblings, int self) {
        estimator.reset();
        turnedFull = false;
        lookedReadable = false;
        java.util.Arrays.fill(stuck, false);
        held = false;
        published = -1;
        publish(siblings, self); // a predecessor's FULL and HELD must not outlive it
    }

    @Override
    public void sample(Siblings siblings, int self, long busyNanosTotal) {
        sample(siblings, self, busyNanosTotal, 0, 0);
    }

    @Override
    public void sample(Siblings siblings, int self, long busyNanosTotal, long poolBusyNanosTotal, int poolThreads) {
        if (estimator.sample(siblings.now(), busyNanosTotal, poolBusyNanosTotal, poolThreads)) {
            publish(siblings, self);
        }
    }

    @Override
    public void holdListener(Siblings siblings, int self, boolean held) {
        if (this.held != held) {
            this.held = held;
            publish(siblings, self);
        }
    }

    @Override
    public boolean takeListener(Siblings siblings, int self, boolean readable) {
        long now = siblings.now();
        for (int j = 0; j < self; j++) {
            long state = siblings.state(j);
            if (taking(siblings, j, state, now)) {
                return look(j, state, siblings.active(j), readable, now);
            }
        }
        if (estimator.full()) {
            // Full, and nobody before us is taking: leave new connections to the first later
            // worker that is, under the same looks (a stuck one is passed over within 2 ms).
            // Without this a full worker in epoll wins the burst from the one it just told to
            // look, which on two cores may not even get to run before the burst is taken.
            for (int j = self + 1; j < siblings.workers(); j++) {
                long state = siblings.state(j);
                if (taking(siblings, j, state, now)) {
                    return look(j, state, siblings.active(j), readable, now);
                }
            }
        }
        lookedReadable = false;
        return true;
    }

    /**
     * Whether worker {@code j}, whose state word reads {@code state}, takes new connections:
     * live (not LEFT, not NOT_STARTED), not inside one pass for over 2 ms, not full and not
     * holding its listener out by its published word, and not found stuck with its words
     * unmoved since.
     */
    private boolean taking(Siblings siblings, int j, long state, long now) {
        if (j < stuck.length && stuck[j]) {
            if (state == stuckState[j] && siblings.active(j) == stuckActive[j]) {
                return false; // found stuck before and still without progress
            }
            // Its words moved (it took a connection, or was reaped, or replaced): forget the
            // mark, or the idle words coming back (PARKED and the same open count: a head
            // continued after a stop, or its replacement) would keep it skipped for good.
            stuck[j] = false;
        }
        if (!Siblings.live(state) || Siblings.slowPass(state, now)) {
            return false;
        }
        long busy = siblings.busy(j);
        return !BusyEstimator.full(busy) && !BusyEstimator.held(busy);
    }

    /** The listener is left to {@code head}; true when the head is stuck and we take it. */
    private boolean look(int head, long state, long active, boolean readable, long now) {
        boolean unchanged = head == lookHead && state == lookState && active == lookActive;
        if (readable && lookedReadable && unchanged) {
            if (now - lookAt >= LOOK_NANOS) {
                lookedReadable = false;
                markStuck(head, state, active);
                return true;
            }
            deadline = slowAt(state, lookAt + LOOK_NANOS); // too soon to judge: keep the first look
            return false;
        }
        lookedReadable = readable;
        lookAt = now;
        lookHead = head;
        lookState = state;
        lookActive = active;
        deadline = slowAt(state, now + LOOK_NANOS);
        return false;
    }

    private void markStuck(int j, long state, long active) {
        if (j >= stuck.length) {
            int n = Math.max(j + 1, 2 * stuck.length);
            stuck = java.util.Arrays.copyOf(stuck, n);
            stuckState = java.util.Arrays.copyOf(stuckState, n);
            stuckActive = java.util.Arrays.copyOf(stuckActive, n);
        }
        stuck[j] = true;
        stuckState[j] = state;
        stuckActive[j] = active;
    }

    /** {@code deadline}, or sooner when the head's pass turns slow (over 2 ms) first. */
    private static long slowAt(long state, long deadline) {
        return state > 0 && state + LEAVE_NANOS + 1 - deadline < 0 ? state + LEAVE_NANOS + 1 : deadline;
    }

    @Override
    public long listenDeadline() {
        return deadline;
    }

    private void publish(Siblings siblings, int self) {
        long word = estimator.word() | (held ? BusyEstimator.HELD_BIT : 0);
        if (word != published) {
            published = word;
            siblings.publishBusy(self, word);
        }
    }

    /** The estimator, for tests. */
    BusyEstimator estimator() {
        return estimator;
    }
}
