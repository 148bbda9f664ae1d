package m0.core;

/**
 * One worker's passes on its state word: the start time of a pass that does work, so that a
 * pass that runs long is skipped by pick, and PARKED again at its end, with the pass end's
 * publication of the worker's load ({@link AcceptPublication#passEnd}).
 *
 * <p>Part of {@link AcceptShare}: not thread-safe, called from its worker's loop only.
 */
final class PassStamp<C> {

    private final Page page;
    private final Clock clock;
    private final AcceptPolicy policy;
    private final AcceptPublication<C> publication;
    private final Leaving<C> leaving;
    private final boolean sharing;
    private final int stateWord;

    /** Inside a pass whose start is published (see {@link #work()}). */
    private boolean stamped;

    PassStamp(Page page, Clock clock, AcceptPolicy policy, AcceptPublication<C> publication,
              Leaving<C> leaving, int self, boolean sharing) {
        this.page = page;
        this.clock = clock;
        this.policy = policy;
        this.publication = publication;
        this.leaving = leaving;
        this.sharing = sharing;
        this.stateWord = PageLayout.stateWord(self);
    }

    /**
     * A pass that will do work begins: publish its start time, so a pass that runs long is
     * skipped by pick. A loop whose wake-ups may find nothing (a listener whose connection a
     * sibling accepted first) calls {@link #work()} instead, at the first work it finds.
     */
    void passStart() {
        if (!sharing || leaving.left()) {
            return;
        }
        stamped = true;
        long now = clock.nanoTime();
        page.setVolatile(stateWord, now > 0 ? now : 1); // > 0 means "in a pass"
    }

    /**
     * This pass has work (a request to parse, the app's code inline, a move; an accept or a
     * receipt where the policy counts it as busy, {@link #admitted()}):
     * publish the pass start now, once per pass. Busy means busy: a worker woken for nothing
     * and descheduled before it parks again stays PARKED to pick, where a stamp written at the
     * wake-up would read as "inside one pass for over 2 ms" and turn connections away from an
     * idle worker. A slow pass that does work is still stamped before its work, so pick skips it
     * (an admission is such work only where the policy says so, {@link #admitted()}).
     */
    void work() {
        if (!stamped) {
            passStart();
        }
    }

    /** An accept or a receipt stamps the pass where the policy counts it as busy (ADR 0052). */
    void admitted() {
        if (policy.admissionIsBusy()) {
            work();
        }
    }

    /**
     * A pass ends: publish {@code open} and retire what this pass received (one add), then
     * PARKED (unless left: leave wins). A word that already holds its value is not written again: a wake-up
     * that found nothing (a sibling won the accept, a timer with nothing due) costs no store on
     * the shared line, and nobody's pick sees a write that changed nothing.
     */
    void passEnd(long open) {
        if (!sharing) {
            return;
        }
        boolean left = leaving.left();
        publication.passEnd(open, left);
        if (!left && stamped) {
            page.setVolatile(stateWord, PageLayout.PARKED); // unstamped, it reads PARKED already
        }
        stamped = false;
        policy.passEnded(); // the next pass's picks judge the siblings' passes afresh (ADR 0052)
    }
}
