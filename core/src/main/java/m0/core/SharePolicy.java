package m0.core;

import static m0.core.PageLayout.LEFT;
import static m0.core.PageLayout.NOT_STARTED;

/**
 * The least-loaded pick. Load is {@code active + pending}; the acceptor's own load is its live
 * open count plus its own pending. The scan of the siblings starts at {@code rotation++} and
 * only a strictly lighter sibling displaces the best so far, so ties go to self and equal siblings
 * take turns.
 *
 * <p>Skipped: a sibling that has LEFT or was reaped (RP: a dead worker must not read as idle),
 * one NOT_STARTED (NS: nothing reads its channel yet), and one inside a single pass for over
 * 2 ms (a slow inline view: the old race would have sent its connection elsewhere too).
 */
final class SharePolicy implements AcceptPolicy {

    @Override
    public String name() {
        return "share";
    }

    @Override
    public boolean shares() {
        return true;
    }

    @Override
    public int pick(Siblings siblings, int self, long open) {
        int workers = siblings.workers();
        int choice = self;
        long best = open + siblings.pending(self);
        int start = siblings.rotationStart();
        long now = 0;
        boolean haveNow = false;
        for (int k = 0; k < workers - 1; k++) {
            int i = siblings.sibling(self, start, k);
            long state = siblings.state(i);
            if (state == LEFT || state == NOT_STARTED) {
                continue;
            }
            if (state > 0) {
                if (!haveNow) {
                    now = siblings.now();
                    haveNow = true;
                }
                if (Siblings.slowPass(state, now)) {
                    continue;
                }
            }
            long load = siblings.load(i);
            if (load < best) {
                best = load;
                choice = i;
            }
        }
        return choice;
    }
}
