package m0.jcstress.page;

import m0.core.Page;

/**
 * MUTANT, test code only: a volatile page whose {@code getAndAdd} is a volatile load then a
 * volatile store, not one atomic step. Two writers of one word lose updates: the R5 tests
 * run on it to show that their arbiter notices.
 */
public final class SplitAddPage implements Page {

    private final Page page;

    public SplitAddPage(Page page) {
        this.page = page;
    }

    @Override
    public int words() {
        return page.words();
    }

    @Override
    public long getVolatile(int word) {
        return page.getVolatile(word);
    }

    @Override
    public void setVolatile(int word, long value) {
        page.setVolatile(word, value);
    }

    @Override
    public long getAndAdd(int word, long delta) {
        long v = page.getVolatile(word);
        page.setVolatile(word, v + delta);
        return v;
    }

    @Override
    public boolean compareAndSet(int word, long expected, long value) {
        return page.compareAndSet(word, expected, value);
    }
}
