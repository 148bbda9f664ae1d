package m0.core;

import static m0.core.PageLayout.LEFT;
import static m0.core.PageLayout.NOT_STARTED;

/**
 * The least-loaded pick. A sibling's load is {@code active + pending}; the acceptor's own load
 * is its live open count plus what is in flight to it ({@code pending - taken}). Both come to
 * "open connections plus those in flight", since a kept accept publishes
 * {@code active = its open connections - those received this pass} at once (see
 * {@link AcceptShare#keptIfUnchanged}). Only a strictly lighter sibling displaces self, so ties
 * go to self. Among siblings tied for the lightest, {@code rotation++} chooses, so equal siblings take
 * turns however many lines of the page are unused (spare lines read NOT_STARTED or LEFT, and
 * rotating the scan's start over all lines would favour the first live line after them).
 *
 * <p>Skipped: a sibling that has LEFT or was reaped (RP: a dead worker must not read as idle),
 * one NOT_STARTED (NS: nothing reads its channel yet), and one inside a single pass for over
 * 2 ms (a slow inline view: the old race would have sent its connection elsewhere too).
 *
 * <p>Over 2 ms as of when? Once a pass, at its first pick (ADR 0052; a pass has one accept
 * batch at most, so once a batch): every pick of the batch judges the siblings' passes as they
 * were when the batch began, so a sibling is passed over only if it was already 2 ms into one
 * pass then. Judged at each pick, a batch that itself runs long (a cold JVM's first burst, the
 * acceptor descheduled on two cores) read the very sibling its first hand-offs had woken as
 * slow a few milliseconds later, and kept the rest of the burst: 20/12, 27/5. A sibling slow
 * when the batch began is skipped while it stays in that pass, as the seed wants; one that
 * turns slow inside the batch still gets its share of that one batch (64 accepts at most), and
 * the next pass's first pick judges afresh. And under share an accept or a receipt does not
 * stamp a pass ({@link AcceptPolicy#admissionIsBusy}): a pass that only admits runs no view.
 *
 * <p>One instance per worker: it keeps a scratch array of tied indices.
 */
final class SharePolicy implements AcceptPolicy {

    private int[] tied = new int[0];
    /** This pass's judgement of the siblings' passes: made at its first pick ({@link #judged}). */
    private long judgedAt;
    /** Whether this pass has picked yet; {@link #passEnded} clears it. */
    private boolean judged;
    /** Siblings passed over for a slow pass, summed over picks: a statistic, no decision reads it. */
    private long passedOverSlow;
    /** Whether arrivals are worth balancing now (ADR 0041): while they close short, keep. */
    private final LoadShape shape;

    SharePolicy() {
        this(new LoadShape());
    }

    SharePolicy(LoadShape shape) {
        this.shape = shape;
    }

    @Override
    public void passEnded() {
        judged = false;
    }

    /** A cold start balances: a predecessor's KEEPING on this index must not outlive it (ADR 0056). */
    @Override
    public void started(Siblings siblings, int self) {
        siblings.publishBusy(self, 0);
    }

    @Override
    public boolean judgesShape() {
        return true;
    }

    @Override
    public boolean shape(long now, long shortCloses, long reuses) {
        return shape.observe(now, shortCloses, reuses);
    }

    /** Keeping: look again at the window's end, so an idle worker stops keeping without a pass. */
    @Override
    public long shapeDeadline() {
        return shape.keeping() ? shape.nextJudgement() : Long.MAX_VALUE;
    }

    @Override
    public boolean balancing() {
        return !shape.keeping();
    }

    @Override
    public String name() {
        return "share";
    }

    @Override
    public boolean shares() {
        return true;
    }

    @Override
    public long passedOverSlow() {
        return passedOverSlow;
    }

    /**
     * Keeping: one accept a wake-up (nginx's {@code multi_accept off}, ADR 0046). Under churn a
     * wake-up mostly finds one connection, and going on costs an accept4 that finds EAGAIN; the
     * listener is level-triggered, so one still queued wakes the next wait at once. Balancing:
     * the batch goes on, so a burst is placed by one pass's picks.
     */
    @Override
    public int endBatch(Siblings siblings, int self) {
        return shape.keeping() ? END_BATCH : GO_ON;
    }

    @Override
    public int pick(Siblings siblings, int self, long open) {
        if (shape.keeping()) {
            return self; // arrivals close short: a hand-off buys nothing (ADR 0041)
        }
        int workers = siblings.workers();
        if (tied.length < workers) {
            tied = new int[workers];
        }
        // Own load: open connections plus those in flight to us (pending - taken). A connection
        // received in this pass is already in open and still in pending: count it once.
        long best = open + siblings.ownInFlight(self); // a keep is published against this read (ADR 0053)
        int ties = 0;
        if (!judged) {
            judgedAt = siblings.now(); // the batch's first pick: its siblings are judged as of now
            judged = true;
        }
        for (int i = 0; i < workers; i++) {
            if (i == self) {
                continue;
            }
            long state = siblings.state(i);
            if (state == LEFT || state == NOT_STARTED) {
                continue;
            }
            if (Siblings.slowPass(state, judgedAt)) { // a pass begun after judgedAt is not slow to this batch
                passedOverSlow++;
                continue;
            }
            long load = siblings.load(i);
            if (load < best) {
                best = load;
                ties = 0;
                tied[ties++] = i;
            } else if (load == best && ties > 0) {
                tied[ties++] = i; // as light as the lightest sibling so far (self is not in the list)
            }
        }
        if (ties == 0) {
            return self;
        }
        return ties == 1 ? tied[0] : tied[siblings.rotationStart() % ties];
    }
}
