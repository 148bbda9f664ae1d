package m0.jcstress;

import m0.core.PageLayout;

/** The words of worker 0's line, the one every test here contends on. */
final class Words {

    static final int STATE = PageLayout.stateWord(0);
    static final int ACTIVE = PageLayout.activeWord(0);
    static final int PENDING = PageLayout.pendingWord(0);
    static final int TAKEN = PageLayout.takenWord(0);

    private Words() {
    }
}
