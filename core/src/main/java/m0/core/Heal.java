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
 * <p>The recount, by the index's only receiver (the worker, its replacement, or the supervisor's
 * give-up), at an EAGAIN of its own receive, once per reap (the REAPS word):
 * <ol>
 *   <li>the counts word, {@code w}: with nothing in flight there is nothing to heal;
 *   <li>every sender's SENDING word (each worker's, the supervisor's): {@code senders} of them
 *       name this index;
 *   <li>one more receive: a connection that arrived meanwhile is handed back to the caller, who
 *       takes it like any receipt, and it tries again at the next EAGAIN;
 *   <li>{@code excess = inFlight(w) - senders}; if above 0, compare-and-set the counts from
 *       {@code w} to {@code w} less {@code excess} pending.
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
 * the heal leaves exactly 0. Only then does it mark the reap count it read as healed; with a
 * hand-off to us under way, it takes off what it safely can and tries again at the next EAGAIN.
 * Every death's orphan is in {@code w}: the death came before its reap, the reap before the
 * REAPS read that starts the heal.
 *
 * <p>Not thread-safe: the receiver's own. With nothing to heal an EAGAIN costs one read of the
 * header's REAPS word; after a reap, an index with nothing in flight costs one more.
 */
final class Heal<C> {

    private final Page page;
    private final Channel<C> channel;
    private final int index;
    private final int workers;
    private final int countsWord;
    /** The REAPS count the last complete heal covered. */
    private long healedThrough;

    Heal(Page page, Channel<C> channel, int index, int workers) {
        this.page = page;
        this.channel = channel;
        this.index = index;
        this.workers = workers;
        this.countsWord = PageLayout.countsWord(index);
    }

    /** True when a reap happened since the last complete heal: one read of the REAPS word. */
    boolean due() {
        return page.getVolatile(PageLayout.REAPS_WORD) != healedThrough;
    }

    /** The reap count the last complete heal covered (no page access). */
    long healedThrough() {
        return healedThrough;
    }

    /**
     * At an EAGAIN of the index's own receive: heal if a reap asked for it. Returns a connection
     * that arrived while it looked (take it as a receipt; call again at the next EAGAIN), or null.
     */
    C atEagain() {
        long reaps = page.getVolatile(PageLayout.REAPS_WORD);
        if (reaps == healedThrough) {
            return null;
        }
        long w = page.getVolatile(countsWord);
        long inFlight = Counts.inFlight(w);
        if (inFlight <= 0) {
            healedThrough = reaps; // nothing in flight: nothing orphaned either
            return null;
        }
        long senders = 0;
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
        long excess = inFlight - senders;
        if (excess > 0 && !page.compareAndSet(countsWord, w, Counts.healed(w, excess))) {
            return null; // the word changed after it was read: not a snapshot, try again
        }
        if (senders == 0) {
            healedThrough = reaps;
        }
        return null;
    }
}
