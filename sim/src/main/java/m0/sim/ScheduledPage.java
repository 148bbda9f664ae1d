package m0.sim;

import m0.core.Page;
import m0.core.PageLayout;

/**
 * The page as the core sees it in a run: every access is a scheduling point (its footprint
 * announced first), then done on the real page underneath ({@link PageKind}), traced, and
 * accounted per actor ({@code balance}: what its raises, receipts and retires owe each index).
 */
final class ScheduledPage implements Page {

    private final Sim sim;
    private final Page raw;

    ScheduledPage(Sim sim) {
        this.sim = sim;
        this.raw = sim.raw;
    }

    @Override
    public int words() {
        return raw.words();
    }

    @Override
    public long getVolatile(int word) {
        Actor me = sim.me();
        if (sim.scheduling()) {
            sim.point(me, Footprint.bit(Footprint.ofWord(word)), 0);
        }
        long v = raw.getVolatile(word);
        if (word >= PageLayout.HEADER_WORDS
                && (word - PageLayout.HEADER_WORDS) % PageLayout.LINE_WORDS == PageLayout.STATE_OFFSET) {
            int i = (word - PageLayout.HEADER_WORDS) / PageLayout.LINE_WORDS;
            me.stateRead[i] = v;
            me.stateReadStep[i] = sim.step;
            sim.trace(me, "page.get(" + Footprint.wordName(word) + ") -> " + PageLayout.stateName(v));
        } else {
            sim.trace(me, "page.get(" + Footprint.wordName(word) + ") -> " + v);
        }
        return v;
    }

    @Override
    public void setVolatile(int word, long value) {
        Actor me = sim.me();
        if (sim.scheduling()) {
            sim.point(me, 0, Footprint.bit(Footprint.ofWord(word)));
        }
        long old = raw.getVolatile(word);
        raw.setVolatile(word, value);
        account(me, word, value - old);
        sim.listener.onPageWrite(me, word, old, value);
        boolean state = word >= PageLayout.HEADER_WORDS
                && (word - PageLayout.HEADER_WORDS) % PageLayout.LINE_WORDS == PageLayout.STATE_OFFSET;
        sim.trace(me, "page.set(" + Footprint.wordName(word) + ", "
                + (state ? PageLayout.stateName(value) : Long.toString(value)) + ")");
    }

    @Override
    public long getAndAdd(int word, long delta) {
        Actor me = sim.me();
        if (sim.scheduling()) {
            sim.point(me, 0, Footprint.bit(Footprint.ofWord(word)));
        }
        long v = raw.getAndAdd(word, delta);
        account(me, word, delta);
        sim.trace(me, "page.getAndAdd(" + Footprint.wordName(word) + ", " + (delta >= 0 ? "+" : "") + delta + ") -> " + v);
        return v;
    }

    @Override
    public boolean compareAndSet(int word, long expected, long value) {
        Actor me = sim.me();
        if (sim.scheduling()) {
            sim.point(me, 0, Footprint.bit(Footprint.ofWord(word)));
        }
        long old = raw.getVolatile(word);
        boolean ok = raw.compareAndSet(word, expected, value);
        if (ok) {
            healed(word, value - old);
        }
        sim.trace(me, "page.compareAndSet(" + Footprint.wordName(word) + ", " + expected + ", " + value + ") -> " + ok);
        return ok;
    }

    /**
     * A compare-and-set of an index's counts is a heal (nothing else in the protocol sets them
     * by comparison): what it takes off pending - taken is the heal's, not the healer's own
     * balance, which stays what its raises, receipts and retires make it.
     */
    private void healed(int word, long delta) {
        if (word < PageLayout.HEADER_WORDS) {
            return;
        }
        int i = (word - PageLayout.HEADER_WORDS) / PageLayout.LINE_WORDS;
        int offset = (word - PageLayout.HEADER_WORDS) % PageLayout.LINE_WORDS;
        if (offset == PageLayout.PENDING_OFFSET) {
            sim.healed[i] -= delta;
        } else if (offset == PageLayout.TAKEN_OFFSET) {
            sim.healed[i] += delta;
        }
    }

    private void account(Actor me, int word, long delta) {
        if (word < PageLayout.HEADER_WORDS) {
            return;
        }
        int i = (word - PageLayout.HEADER_WORDS) / PageLayout.LINE_WORDS;
        int offset = (word - PageLayout.HEADER_WORDS) % PageLayout.LINE_WORDS;
        if (offset == PageLayout.PENDING_OFFSET) {
            me.balance[i] += delta;
        } else if (offset == PageLayout.TAKEN_OFFSET) {
            me.balance[i] -= delta;
        }
    }
}
