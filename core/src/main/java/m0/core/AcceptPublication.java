package m0.core;

/**
 * One worker's counts word, as its own side writes it, and the accept path's decision that
 * reads its siblings': who serves a connection this worker accepted ({@link #pick}), and what
 * that publishes, a sibling's raise ({@link #sendPicked}) or this worker's keep
 * ({@link #keptIfUnchanged}), both held to one reading of the counts (ADR 0043, 0053). Every
 * other add to this worker's counts word is here too, since the keep's arithmetic depends on
 * them: a receipt, the retire, the pass end's, a start's settle.
 *
 * <p>Part of {@link AcceptShare}: not thread-safe, called from its worker's loop only.
 */
final class AcceptPublication<C> {

    private final Page page;
    private final AcceptPolicy policy;
    private final Siblings siblings;
    private final HandOff<C> handOff;
    private final Heal<C> heal;
    private final int self;
    private final boolean sharing;
    private final int countsWord;

    /** Connections received (taken) since the last retire: retired at the end of the pass. */
    private long received;
    /** What the active field of this worker's counts holds: written by start, the keeps and passEnd only. */
    private long publishedActive;

    private long sent;
    private long pickedAgain;

    AcceptPublication(Page page, AcceptPolicy policy, Siblings siblings, HandOff<C> handOff,
                      Heal<C> heal, int self, boolean sharing) {
        this.page = page;
        this.policy = policy;
        this.siblings = siblings;
        this.handOff = handOff;
        this.heal = heal;
        this.self = self;
        this.sharing = sharing;
        this.countsWord = PageLayout.countsWord(self);
    }

    /**
     * The start's part (sharing only): {@code pending -= taken; taken = 0}, active zeroed, in
     * one add.
     */
    void start() {
        // TAKEN: a predecessor that died between taking and retiring left taken > 0, and
        // those raises will never be retired by it; subtract them, or pending stays high for
        // good and every leaver's drain on this index waits out its bound. One word (Counts):
        // a death here leaves either all of it or none, never taken lowered and pending not.
        // Nobody else changes taken meanwhile (we are the index's only receiver, not receiving).
        long counts = page.getVolatile(countsWord);
        heal.note(counts);
        if (Counts.inFlight(counts) > 0) {
            // Raised against the index beyond what the predecessor took: queued, or a receipt it
            // died with before taking it (between recvmsg and taken + 1). A heal at our first
            // EAGAIN, once the queue is drained, tells the two apart.
            heal.ask();
        }
        // ACTIVE: the predecessor's open count died with it. Left in place, a sibling's pick
        // reads a fresh replacement as loaded with connections it does not have until its
        // first pass end, and keeps a whole burst itself. Zeroed in the same add that retires
        // taken, before PARKED: pick skips us until then.
        long taken = Counts.taken(counts);
        long settle = (taken != 0 ? Counts.retire(taken) : 0) - Counts.activeBy(Counts.active(counts));
        if (settle != 0) {
            page.getAndAdd(countsWord, settle);
        }
        publishedActive = 0;
    }

    /**
     * The pass end's part (sharing only): publish {@code open} and retire what this pass
     * received, in one add; a leaver publishes no load.
     */
    void passEnd(long open, boolean left) {
        // Active and the retire in ONE add (ADR 0040): a received connection leaves pending in
        // the same instant it enters active, so a sibling's pick counts it exactly once, however
        // long we are descheduled here. A leaver publishes no load (LEFT: nobody picks it).
        long delta = 0;
        if (!left && open != publishedActive) {
            delta = Counts.activeBy(open - publishedActive);
            publishedActive = open;
        }
        if (received != 0) {
            delta += Counts.retire(received);
            received = 0;
        }
        if (delta != 0) {
            heal.note(page.getAndAdd(countsWord, delta));
        }
    }

    /** A receipt taken off this worker's channel: {@code taken + 1}, before it is admitted. */
    void receipt() {
        // Published before admission: if we die holding it, our replacement's start (or the
        // supervisor's give-up) knows this raise will never be retired by us.
        heal.note(page.getAndAdd(countsWord, Counts.RECEIPT));
        received++;
    }

    /** Retire what was received since the last retire: {@code taken -= n; pending -= n}. */
    void retire() {
        long n = received;
        if (n == 0) {
            return;
        }
        received = 0;
        heal.note(page.getAndAdd(countsWord, Counts.retire(n))); // one word: no death between taken and pending
    }

    /** Who should serve a connection this worker accepted with {@code open} others open. */
    int pick(long open) {
        if (!sharing) {
            return self;
        }
        siblings.forgetOwn();
        return policy.pick(siblings, self, open);
    }

    /**
     * Pass the connection {@code R5 + B25}-safely to {@code target}. On false the caller still
     * owns it and serves it.
     */
    boolean sendWith(int target, C connection) {
        if (!sharing) {
            return false;
        }
        if (handOff.sendWith(target, connection)) {
            sent++;
            return true;
        }
        return false;
    }

    /**
     * The accept path's send (ADR 0043): raised only on the target's counts as this worker's
     * last pick read them ({@link Siblings#seen}); {@link HandOff#MOVED}: pick again.
     */
    int sendPicked(int target, C connection) {
        if (!sharing) {
            return HandOff.REFUSED;
        }
        int result = handOff.sendIfUnchanged(target, connection, siblings.seen(target));
        if (result == HandOff.SENT) {
            sent++;
        } else if (result == HandOff.MOVED) {
            pickedAgain++;
        }
        return result;
    }

    /**
     * A connection this worker accepted stays here: publish our load now rather than at pass
     * end, so that a sibling accepting from the same burst in its own pass picks against it
     * (ADR 0007). Less what this pass received: those are still in pending, and a sibling reads
     * active + pending, which stays exactly our open connections plus those in flight to us.
     * The accept path ({@link WorkerShare#passOn}) publishes a keep through {@link #keptIfUnchanged},
     * and with this only on its last pick or after a refused send.
     */
    void kept(long open) {
        if (sharing) {
            long active = open + 1 - received;
            if (active != publishedActive) {
                page.getAndAdd(countsWord, Counts.activeBy(active - publishedActive));
                publishedActive = active;
            }
        }
    }

    /**
     * The accept path's keep (ADR 0053): published only on this worker's counts as its pick read
     * them ({@link Siblings#ownInFlight}); false, nothing published: a sibling's raise (or
     * anything else) moved them since, so the pick is made again. Where the pick read none of
     * this worker's counts (share keeping everything, the race, fountain), there is nothing to
     * hold the keep to and it is published as {@link #kept} does.
     *
     * <p>Why: a sibling's send is raised on the counts its pick read (ADR 0043), and so is this
     * keep, so of a send and a keep decided on one reading of this worker's counts only the first
     * to publish stands. Published blind, a keep and a sibling's send both landed here on the
     * same reading, and with three workers or more the one neither chose was left a connection
     * short (BURST-three: 1/2/0; a burst of 64 on four workers: 17/16/16/15). Where the active field
     * would not move (a close this pass, not yet published, makes up for the keep), the word is
     * only read again: a word that moved still sends the pick round again, and one that did not
     * already shows this worker's load with the keep in it, so a sibling's send decided on it
     * decides on the truth.
     */
    boolean keptIfUnchanged(long open) {
        if (!sharing) {
            return true;
        }
        if (!siblings.ownSeen()) {
            kept(open);
            return true;
        }
        long active = open + 1 - received;
        long seen = siblings.seen(self);
        if (active == publishedActive ? page.getVolatile(countsWord) != seen
                : !page.compareAndSet(countsWord, seen, seen + Counts.activeBy(active - publishedActive))) {
            pickedAgain++;
            return false;
        }
        publishedActive = active;
        return true;
    }

    /** Hand-offs this worker sent (fresh accepts passed to a sibling). */
    long sentCount() {
        return sent;
    }

    /** Sends and keeps not published because the counts they were decided on moved (ADR 0043, 0053): picked again. */
    long pickedAgainCount() {
        return pickedAgain;
    }
}
