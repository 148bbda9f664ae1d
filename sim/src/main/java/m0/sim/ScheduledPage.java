package m0.sim;

import m0.core.Counts;
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
            sim.point(me, Footprint.bit(Footprint.ofWord(word, sim.workers)), 0);
        }
        long v = raw.getVolatile(word);
        if (word >= PageLayout.HEADER_WORDS && word < PageLayout.lineOf(sim.workers)
                && (word - PageLayout.HEADER_WORDS) % PageLayout.LINE_WORDS == PageLayout.STATE_OFFSET) {
            int i = (word - PageLayout.HEADER_WORDS) / PageLayout.LINE_WORDS;
            me.stateRead[i] = v;
            me.stateReadStep[i] = sim.step;
            sim.trace(me, "page.get(" + Footprint.wordName(word, sim.workers) + ") -> " + PageLayout.stateName(v));
        } else {
            sim.trace(me, "page.get(" + Footprint.wordName(word, sim.workers) + ") -> " + Footprint.valueName(word, v));
        }
        return v;
    }

    @Override
    public void setVolatile(int word, long value) {
        Actor me = sim.me();
        if (sim.scheduling()) {
            sim.point(me, 0, Footprint.bit(Footprint.ofWord(word, sim.workers)));
        }
        long old = raw.getVolatile(word);
        raw.setVolatile(word, value);
        account(me, word, old, value);
        sim.listener.onPageWrite(me, word, old, value);
        boolean state = word >= PageLayout.HEADER_WORDS && word < PageLayout.lineOf(sim.workers)
                && (word - PageLayout.HEADER_WORDS) % PageLayout.LINE_WORDS == PageLayout.STATE_OFFSET;
        sim.trace(me, "page.set(" + Footprint.wordName(word, sim.workers) + ", "
                + (state ? PageLayout.stateName(value) : Footprint.valueName(word, value)) + ")");
    }

    @Override
    public long getAndAdd(int word, long delta) {
        Actor me = sim.me();
        if (sim.scheduling()) {
            sim.point(me, 0, Footprint.bit(Footprint.ofWord(word, sim.workers)));
        }
        long v = raw.getAndAdd(word, delta);
        account(me, word, v, v + delta);
        sim.trace(me, "page.getAndAdd(" + Footprint.wordName(word, sim.workers) + ", " + Footprint.deltaName(word, delta) + ") -> "
                + Footprint.valueName(word, v));
        return v;
    }

    @Override
    public boolean compareAndSet(int word, long expected, long value) {
        Actor me = sim.me();
        if (sim.scheduling()) {
            sim.point(me, 0, Footprint.bit(Footprint.ofWord(word, sim.workers)));
        }
        long old = raw.getVolatile(word);
        boolean ok = raw.compareAndSet(word, expected, value);
        if (ok && value - expected == Counts.RAISE) {
            account(me, word, old, value); // the accept path's raise (ADR 0043): the sender's, as an add's
        } else if (ok && Counts.inFlight(value) != Counts.inFlight(expected)) {
            // Neither a raise nor a keep (ADR 0053: active alone, nobody's balance): a heal.
            healed(word, old, value);
        }
        sim.trace(me, "page.compareAndSet(" + Footprint.wordName(word, sim.workers) + ", " + Footprint.valueName(word, expected) + ", "
                + Footprint.valueName(word, value) + ") -> " + ok);
        return ok;
    }

    /**
     * A compare-and-set of an index's counts that is neither a raise nor a keep is a heal (a heal
     * never raises pending): what it takes off pending - taken is the heal's, not the healer's own balance,
     * which stays what its raises, receipts and retires make it.
     */
    private void healed(int word, long before, long after) {
        int i = countsIndex(word);
        if (i >= 0) {
            sim.healed[i] -= Counts.inFlight(after) - Counts.inFlight(before);
        }
    }

    /** What a change of index i's counts does to pending - taken, charged to the actor that made it. */
    private void account(Actor me, int word, long before, long after) {
        int i = countsIndex(word);
        if (i >= 0) {
            me.balance[i] += Counts.inFlight(after) - Counts.inFlight(before);
        }
    }

    /** The index whose counts word this is, or -1. */
    private int countsIndex(int word) {
        if (word < PageLayout.HEADER_WORDS || word >= PageLayout.lineOf(sim.workers)
                || (word - PageLayout.HEADER_WORDS) % PageLayout.LINE_WORDS != PageLayout.COUNTS_OFFSET) {
            return -1;
        }
        return (word - PageLayout.HEADER_WORDS) / PageLayout.LINE_WORDS;
    }
}
