package m0.jcstress;

import m0.core.Counts;
import m0.core.Page;
import m0.core.PageLayout;

/** The words of worker 0's line, the one every test here contends on. */
final class Words {

    static final int STATE = PageLayout.stateWord(0);
    /** Worker 0's active, pending and taken, one word ({@link Counts}). */
    static final int COUNTS = PageLayout.countsWord(0);
    /** Worker 1's hand-off in progress (target + 1). */
    static final int SENDING_1 = PageLayout.sendingWord(1);

    private Words() {
    }

    static long pending(Page page) {
        return Counts.pending(page.getVolatile(COUNTS));
    }

    static long taken(Page page) {
        return Counts.taken(page.getVolatile(COUNTS));
    }
}
