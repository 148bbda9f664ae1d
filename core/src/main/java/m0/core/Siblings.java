package m0.core;

import static m0.core.PageLayout.LEFT;
import static m0.core.PageLayout.NOT_STARTED;
import static m0.core.PageLayout.SLOW_PASS_NANOS;

/**
 * A read view of every worker's line, for the pick policies and for forwarding. It reads the
 * page; the only words it writes are the rotation counter and, for the fountain policy, the
 * caller's own busy word. One per worker: it remembers the counts each load read.
 */
public final class Siblings {

    private final Page page;
    private final Clock clock;
    private final int workers;
    /**
     * The counts word each {@link #load} (and, for self, {@link #ownInFlight}) read last: this
     * worker's, never shared.
     */
    private final long[] seen;
    /** Whether the pick under way read its own counts ({@link #ownInFlight}): cleared by {@link #forgetOwn}. */
    private boolean ownSeen;

    public Siblings(Page page, Clock clock, int workers) {
        if (page.words() < PageLayout.slots(workers)) {
            throw new IllegalArgumentException(
                    "page of " + page.words() + " words is too small for " + workers + " workers");
        }
        this.page = page;
        this.clock = clock;
        this.workers = workers;
        this.seen = new long[workers];
    }

    public int workers() {
        return workers;
    }

    public long state(int i) {
        return page.getVolatile(PageLayout.stateWord(i));
    }

    /** Worker i's published open connections: the active field of its counts. */
    public long active(int i) {
        return Counts.active(counts(i));
    }

    /** Worker i's AFFINE mark: bit j while it holds a connection whose client pairs with j. */
    public long affine(int i) {
        return page.getVolatile(PageLayout.affineWord(i));
    }

    /**
     * The worker a client whose packets arrive on {@code cpu} pairs with (ADR 0057): the live
     * worker of rank {@code cpu % live} in index order, among the indices an AFFINE word names.
     * Every worker maps a CPU alike while the live set stands; a kind read under an older set
     * may name a worker that has left, and a left worker is never swapped with. Self counts as
     * live (it is reading). Reads every line's state: once per connection, not per request.
     */
    public int pairedWorker(int self, int cpu) {
        int lines = Math.min(workers, PageLayout.AFFINE_WORKERS);
        int serving = 0;
        for (int i = 0; i < lines; i++) {
            if (i == self || live(state(i))) {
                serving++;
            }
        }
        int rank = Math.floorMod(cpu, Math.max(serving, 1));
        for (int i = 0; i < lines; i++) {
            if ((i == self || live(state(i))) && rank-- == 0) {
                return i;
            }
        }
        return self;
    }

    /** Worker i's counts word ({@link Counts}): active, pending and taken from one load. */
    public long counts(int i) {
        return page.getVolatile(PageLayout.countsWord(i));
    }

    public long pending(int i) {
        return Counts.pending(counts(i));
    }

    /** {@code pending - taken} of worker i, from one load: raised against it, not yet received. */
    public long inFlight(int i) {
        return Counts.inFlight(counts(i));
    }

    /**
     * The acceptor's own {@code pending - taken}, from one load kept as {@link #seen}: a keep the
     * pick decided on it is published against that very word (ADR 0053).
     */
    public long ownInFlight(int self) {
        long counts = counts(self);
        seen[self] = counts;
        ownSeen = true;
        return Counts.inFlight(counts);
    }

    /** Whether this pick read its own counts ({@link #ownInFlight}) since {@link #forgetOwn}. */
    public boolean ownSeen() {
        return ownSeen;
    }

    /** A pick begins: what the last one read of its own counts decides nothing now. */
    public void forgetOwn() {
        ownSeen = false;
    }

    public long busy(int i) {
        return page.getVolatile(PageLayout.busyWord(i));
    }

    /**
     * Whether every sibling of {@code self} that serves (neither NOT_STARTED nor LEFT) has
     * {@code bit} in its busy word; true when none serves.
     */
    public boolean everyLiveSiblingShows(int self, long bit) {
        for (int i = 0; i < workers; i++) {
            if (i == self) {
                continue;
            }
            long state = state(i);
            if (state != LEFT && state != NOT_STARTED && (busy(i) & bit) == 0) {
                return false;
            }
        }
        return true;
    }

    /** Publish worker {@code self}'s own busy word (fountain; written by worker self only). */
    public void publishBusy(int self, long word) {
        page.setVolatile(PageLayout.busyWord(self), word);
    }

    /**
     * A sibling's load, {@code active + pending}, from one load of one word: exact at every
     * instant (a pass end moves a receipt from pending to active in one add, ADR 0040). The word
     * read is kept as {@link #seen}: a send the load decided raises against it (ADR 0043).
     */
    public long load(int i) {
        long counts = counts(i);
        seen[i] = counts;
        return Counts.load(counts);
    }

    /** Worker i's counts word as the last {@link #load} (or, for self, {@link #ownInFlight}) of it read it. */
    public long seen(int i) {
        return seen[i];
    }

    /**
     * {@code rotation++}, as a non-negative int: shared by every worker, so that choices among
     * equals rotate across the whole server.
     */
    public int rotationStart() {
        return (int) (page.getAndAdd(PageLayout.ROTATION_WORD, 1) & Integer.MAX_VALUE);
    }

    /** The k-th sibling of {@code self} in a scan that starts at {@code first}: never self. */
    public int sibling(int self, int first, int k) {
        int i = self + 1 + (first + k) % (workers - 1);
        return i >= workers ? i - workers : i;
    }

    /** The clock, for policies that judge a pass's age. */
    public long now() {
        return clock.nanoTime();
    }

    /**
     * True when a worker in {@code state} reads its channel: started (NS) and not left or
     * reaped (RP, B25). Says nothing about how busy it is.
     */
    public static boolean live(long state) {
        return state != LEFT && state != NOT_STARTED;
    }

    /**
     * True when a worker other than {@code exclude} is live, or the supervisor has spawned one
     * that has not started yet (its STARTING bit, {@link PageLayout#startingWord}): one
     * that reads, or will soon read, its channel. What a leaver or a give-up whose forward found
     * nobody waits for. Live counts too: the forward may have read a starting worker's state just
     * before its start wrote PARKED, or a live one's channel was full; both are worth another
     * try, within the wait's bound. {@code exclude}'s own mark is never read: a worker that
     * leaves before the supervisor has seen it start is no sibling of its own (ADR 0038).
     */
    public boolean anyLiveOrStarting(int exclude) {
        // States, marks, states. The supervisor sets an index's mark before it writes a dead
        // worker LEFT and clears it only after it has seen the replacement live; so a scan that
        // saw nobody live and then every mark clear was overtaken by a start, and the second
        // scan sees it. Marks first could read a mark clear before its set, then LEFT.
        return anyLive(exclude) || anyStarting(exclude) || anyLive(exclude);
    }

    private boolean anyStarting(int exclude) {
        for (int i = 0; i < workers; i += 64) {
            long bits = page.getVolatile(PageLayout.startingWord(workers, i));
            if (exclude >= i && exclude < i + 64) {
                bits &= ~PageLayout.startingBit(exclude);
            }
            if (bits != 0) {
                return true;
            }
        }
        return false;
    }

    /** Whether index i is marked as spawned and not yet seen started (for stats and tests). */
    public boolean starting(int i) {
        return (page.getVolatile(PageLayout.startingWord(workers, i)) & PageLayout.startingBit(i)) != 0;
    }

    private boolean anyLive(int exclude) {
        for (int i = 0; i < workers; i++) {
            if (i != exclude && live(state(i))) {
                return true;
            }
        }
        return false;
    }

    /** True when {@code state} is a pass that began more than 2 ms before {@code now}. */
    public static boolean slowPass(long state, long now) {
        return state > 0 && now - state > SLOW_PASS_NANOS;
    }

    /**
     * The least loaded live worker other than {@code exclude} and those marked in
     * {@code refused}, scanning from a rotating start; one in a slow pass only when no other
     * is live. This is where a leaver forwards and where the supervisor re-homes.
     *
     * @return the index, or -1 when none is live
     */
    public int leastLoadedLive(int exclude, boolean[] refused) {
        int start = rotationStart() % (workers > 1 ? workers - 1 : 1);
        long now = 0;
        boolean haveNow = false;
        int best = -1;
        boolean bestSlow = true;
        long bestLoad = Long.MAX_VALUE;
        for (int k = 0; k < workers - 1; k++) {
            int i = sibling(exclude, start, k);
            if (refused[i]) {
                continue;
            }
            long state = state(i);
            if (!live(state)) {
                continue;
            }
            boolean slow = false;
            if (state > 0) {
                if (!haveNow) {
                    now = now();
                    haveNow = true;
                }
                slow = slowPass(state, now);
            }
            long load = load(i);
            if (best < 0 || (bestSlow && !slow) || (slow == bestSlow && load < bestLoad)) {
                best = i;
                bestSlow = slow;
                bestLoad = load;
            }
        }
        return best;
    }
}
