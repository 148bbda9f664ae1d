package m0.core;

/**
 * The marks one worker publishes on its line for its siblings' rebalance looks, besides its
 * load: the BUSY word under share (the {@link AcceptShare#KEEPING_BIT} of its gate's mode,
 * which {@code m0serve stats} and the listener's deferral read too, and its settled count),
 * and AFFINE (the siblings it holds a connection for). Each written on a change only, by this
 * worker alone, never once it has left.
 *
 * <p>Part of {@link AcceptShare}: not thread-safe, called from its worker's loop only.
 */
final class RebalanceMarks<C> {

    private final Page page;
    private final AcceptPolicy policy;
    private final Siblings siblings;
    private final Leaving<C> leaving;
    private final int self;
    private final boolean sharing;
    private final int affineWord;

    /** What this worker's AFFINE word holds: written by start and publishAffinities only. */
    private long publishedAffinities;
    /** The settled count this worker's BUSY word holds (share): written by start, shape and publishSettled only. */
    private long publishedSettled;

    RebalanceMarks(Page page, AcceptPolicy policy, Siblings siblings, Leaving<C> leaving, int self,
                   boolean sharing) {
        this.page = page;
        this.policy = policy;
        this.siblings = siblings;
        this.leaving = leaving;
        this.self = self;
        this.sharing = sharing;
        this.affineWord = PageLayout.affineWord(self);
    }

    /** The start's part (sharing only): a predecessor's marks die with it. */
    void start() {
        // AFFINE: the predecessor's connections died with it; a swap must not count on them.
        page.setVolatile(affineWord, 0);
        publishedAffinities = 0;
        publishedSettled = 0;
    }

    /**
     * At a pass end: this worker's settled connections, published in its BUSY word on a change
     * (share only), for the siblings' rebalance looks and stats (ADR 0059). Before the pass end's retire: a
     * connection moved here is in {@code pending} until then, so a sibling reading pending first
     * and this second never misses it.
     */
    void publishSettled(long settled) {
        long n = Math.min(settled, AcceptShare.SETTLED_MASK);
        if (sharing && !leaving.left() && policy.judgesShape() && n != publishedSettled) {
            publishedSettled = n;
            siblings.publishBusy(self, busyWord());
        }
    }

    /** Share's BUSY word: the mode bit and the settled count. */
    private long busyWord() {
        return (policy.balancing() ? 0 : AcceptShare.KEEPING_BIT) | publishedSettled;
    }

    /**
     * AFFINE, this worker's mark: the siblings it holds a connection for, which a sibling's
     * swap reads (ADR 0057). Written on a change only, by this worker alone; a leaver's stays as
     * it was (LEFT: nobody swaps with it), a replacement's start zeroes it, a keeping worker
     * clears it.
     */
    void publishAffinities(long affinities) {
        // Keeping, it neither swaps nor returns a swap (its look names nobody): it marks none.
        long mark = policy.balancing() ? affinities & ~PageLayout.affineBit(self) : 0;
        if (sharing && !leaving.left() && mark != publishedAffinities) {
            page.setVolatile(affineWord, mark);
            publishedAffinities = mark;
        }
    }

    /**
     * Share's gate (ADR 0041): the loop's reading of what its connections did. A change of mode
     * is published in this worker's BUSY word ({@link LoadShape} keeping: {@link AcceptShare#KEEPING_BIT}),
     * for {@code m0serve stats}, the listener's deferral (ADR 0056) and the siblings' rebalance
     * looks (ADR 0059); no pick reads it.
     */
    void shape(long now, long shortCloses, long reuses) {
        if (sharing && !leaving.left() && policy.shape(now, shortCloses, reuses)) {
            siblings.publishBusy(self, busyWord());
        }
    }

    long shapeDeadline() {
        return sharing && !leaving.left() ? policy.shapeDeadline() : Long.MAX_VALUE;
    }

    /**
     * Every worker that serves keeps: this one by its own shape, each started sibling by the
     * {@link AcceptShare#KEEPING_BIT} in its BUSY word. A sibling's word may be a window old; the loop's
     * {@link m0.core.loop.ListenerDeferral} re-asks once a window, so a wrong answer lasts until
     * then.
     */
    boolean keepingEverywhere() {
        return sharing && !leaving.left() && policy.judgesShape() && !policy.balancing()
                && siblings.everyLiveSiblingShows(self, AcceptShare.KEEPING_BIT);
    }
}
