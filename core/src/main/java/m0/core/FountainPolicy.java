package m0.core;

import static m0.core.PageLayout.LEFT;
import static m0.core.PageLayout.NOT_STARTED;

/**
 * Fountain (seed 004, ADR 0019): workers fill in index order, like the tiers of a fountain.
 * Worker 0 takes new connections; worker i takes one only while every worker before it is full
 * or not taking, and otherwise leaves it to them for up to {@link #LEAVE_NANOS} (2 ms).
 *
 * <p>A connection this worker does accept stays here: pick is self (the note has no hand-off;
 * "established connections never move", so rebalance is off too). Pick counts the accept for
 * the surge estimate.
 *
 * <p>The listener rule, asked each time the loop looks at the listener (epoll found it readable,
 * or a look at the last answer's deadline):
 * <ul>
 *   <li>The <b>head</b> is the first earlier worker that is taking: live (not LEFT, not
 *       NOT_STARTED), not inside one pass for over 2 ms, and not full by its published word.
 *       No head: accept now.
 *   <li>Otherwise leave it to the head until {@code since + 2 ms}, {@code since} being when this
 *       wait began, and sooner if the head's pass turns slow first. At the deadline, if the
 *       listener is still readable and the head showed no progress (its state and active words
 *       unchanged since the wait began: stopped while parked, say, which its state cannot tell),
 *       accept: nothing is stranded. A head that made progress restarts the wait: it is taking.
 *   <li>A head found stuck stays skipped while its words stay unchanged, so only the first
 *       connection after it stopped waits the 2 ms.
 * </ul>
 *
 * <p>One instance per worker, called from that worker's loop.
 */
final class FountainPolicy implements AcceptPolicy {

    /** How long a worker leaves a readable listener to an earlier one: 2 ms. */
    static final long LEAVE_NANOS = PageLayout.SLOW_PASS_NANOS;

    private final BusyEstimator estimator;
    private long published = -1;

    /** A wait in progress: since when, for which head, and the head's words when it began. */
    private boolean waiting;
    private long waitSince;
    private int waitHead = -1;
    private long waitState;
    private long waitActive;
    private long deadline;

    /** A head found stuck, and its words then: skipped while they stay so. */
    private int stuckHead = -1;
    private long stuckState;
    private long stuckActive;

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
    public int pick(Siblings siblings, int self, long open) {
        estimator.accepted();
        publish(siblings, self);
        return self;
    }

    @Override
    public void started(Siblings siblings, int self) {
        estimator.reset();
        waiting = false;
        stuckHead = -1;
        published = -1;
        publish(siblings, self); // a predecessor's FULL must not outlive it
    }

    @Override
    public void sample(Siblings siblings, int self, long busyNanosTotal) {
        if (estimator.sample(siblings.now(), busyNanosTotal)) {
            publish(siblings, self);
        }
    }

    @Override
    public boolean takeListener(Siblings siblings, int self, boolean readable) {
        long now = siblings.now();
        for (int j = 0; j < self; j++) {
            long state = siblings.state(j);
            if (state == LEFT || state == NOT_STARTED || Siblings.slowPass(state, now)
                    || BusyEstimator.full(siblings.busy(j))) {
                continue;
            }
            long active = siblings.active(j);
            if (j == stuckHead && state == stuckState && active == stuckActive) {
                continue; // found stuck before and still without progress
            }
            if (!readable) {
                // Nothing waits: stay away from the listener, but look again within 2 ms, so
                // that a connection arriving behind a head that is stuck waits no longer.
                waiting = false;
                deadline = slowAt(state, now + LEAVE_NANOS);
                return false;
            }
            return leaveTo(j, state, active, now);
        }
        waiting = false;
        return true;
    }

    /** Leave the listener to {@code head} for now; true when its time is up and we take it. */
    private boolean leaveTo(int head, long state, long active, long now) {
        if (!waiting || head != waitHead || state != waitState || active != waitActive) {
            waiting = true;
            waitSince = now;
            waitHead = head;
            waitState = state;
            waitActive = active;
        }
        deadline = slowAt(state, waitSince + LEAVE_NANOS);
        if (now - deadline < 0) {
            return false;
        }
        waiting = false;
        stuckHead = head;
        stuckState = state;
        stuckActive = active;
        return true;
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
        long word = estimator.word();
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
