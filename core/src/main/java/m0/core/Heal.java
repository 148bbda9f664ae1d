package m0.core;

/**
 * Self-healing counts (ADR 0024): one index's receiver brings its {@code pending - taken} back
 * to what is really in flight after a death cut a hand-off short.
 *
 * <p>What a death leaves: a sender killed between its raise and its send or take-back leaves a
 * raise that no datagram will ever match; a receiver killed between recvmsg and its receipt
 * leaves a raise whose datagram is gone. Both are in pending - taken and in nothing else. Which
 * of the two happened, and whether a raise happened at all, cannot be read off the page (a death
 * just before the raise and just after it look alike), so the heal does not ask: it recounts.
 *
 * <p>Who asks: the supervisor, on the reap of a dead worker, sets the HEAL bit of the counts of
 * the index the dead was sending to (its SENDING word, which it then clears;
 * {@link SupervisorShare#markReaped}). The receiver notices the bit in counts words it reads or
 * changes anyway (its receipts, retires, start, drain), or by one read when its loop wakes with
 * nothing else to do. The dead worker's own index is healed by whoever takes it over: a
 * replacement that finds something in flight at its start, and every give-up, ask themselves
 * ({@link #ask}). An index nobody asks costs nothing.
 *
 * <p>The recount, by the index's only receiver (the worker, its replacement, or the supervisor's
 * give-up), at an EAGAIN of its own receive:
 * <ol>
 *   <li>the counts word, {@code w}: with nothing in flight there is nothing to heal;
 *   <li>every sender's SENDING word (each worker's, the supervisor's): {@code senders} of them
 *       name this index;
 *   <li>one more receive: a connection that arrived meanwhile is handed back to the caller, who
 *       takes it like any receipt, and it tries again at the next EAGAIN;
 *   <li>{@code excess = inFlight(w) - senders}; compare-and-set the counts from {@code w} to
 *       {@code w} less {@code excess} pending, clearing the request when {@code senders} is 0.
 * </ol>
 *
 * <p>Why it never errs low. If the compare-and-set succeeds, nothing changed the word between
 * (1) and (4) (its version counts every change): no raise, take-back or receipt. A datagram
 * queued to us at (4) was sent after the receive at (3) (nobody else reads this channel, and
 * (3) found none), and a live sender still holding a raise at (4) has not sent yet; either way
 * its raise came before (1), and its SENDING was set before that raise and is cleared only after
 * its send or take-back, so it was set at (2): counted. Each sender has one hand-off at a time,
 * so {@code senders} is at least what is really in flight at (4), and what the heal leaves,
 * {@code senders}, is never below it. A dead sender's SENDING is cleared by its reap before the
 * reap asks for the heal, so its orphan is not counted as live: it is the excess.
 *
 * <p>Why it is exact. With no sender naming the index at (2), nothing is in flight at (4), and
 * the heal leaves exactly 0; only then does it clear the request. Every orphan the request is
 * for is in {@code w}: the death came before its reap, the reap's request before {@code w}
 * (which holds it). With a hand-off to us under way it takes off what it safely can, keeps the
 * request, and tries again at the next EAGAIN.
 *
 * <p>Not thread-safe: the receiver's own.
 */
final class Heal<C> {

    private final Page page;
    private final Channel<C> channel;
    private final int index;
    private final int workers;
    private final int countsWord;
    /** A heal was asked for (seen in a counts word) and is not complete. */
    private boolean requested;

    Heal(Page page, Channel<C> channel, int index, int workers) {
        this.page = page;
        this.channel = channel;
        this.index = index;
        this.workers = workers;
        this.countsWord = PageLayout.countsWord(index);
    }

    /** Notes a heal request in a counts word the receiver read, or got back from its own add: free. */
    void note(long counts) {
        if (Counts.healRequested(counts)) {
            requested = true;
        }
    }

    /**
     * The receiver asks itself: a replacement that finds something in flight at its start (its
     * predecessor may have died holding a receipt it never took), a give-up on its dead index.
     */
    void ask() {
        requested = true;
    }

    /** True when a heal was asked for and is not complete (no page access). */
    boolean requested() {
        return requested;
    }

    /** One read of the counts, for a loop woken with nothing else to do: is a heal asked for? */
    boolean due() {
        note(page.getVolatile(countsWord));
        return requested;
    }

    /**
     * At an EAGAIN of the index's own receive: heal if asked. Returns a connection that arrived
     * while it looked (take it as a receipt; the next EAGAIN tries again), or null.
     */
    C atEagain() {
        if (!requested) {
            return null;
        }
        long w = page.getVolatile(countsWord);
        long inFlight = Counts.inFlight(w);
        long senders = 0;
        if (inFlight > 0) {
            for (int j = 0; j <= workers; j++) {
                int word = j < workers ? PageLayout.sendingWord(j) : PageLayout.SUPERVISOR_SENDING_WORD;
                if (page.getVolatile(word) == index + 1) {
                    senders++;
                }
            }
            C arrived = channel.receive(index);
            if (arrived != null) {
                return arrived;
            }
        }
        long excess = Math.max(0, inFlight - senders);
        boolean complete = senders == 0;
        if (excess == 0 && !(complete && Counts.healRequested(w))) {
            requested = !complete; // nothing to take off or to clear; with a hand-off under way, next EAGAIN
            return null;
        }
        if (page.compareAndSet(countsWord, w, Counts.healed(w, excess, complete)) && complete) {
            requested = false;
        }
        return null; // a failed compare-and-set: the word changed after it was read; next EAGAIN
    }
}
