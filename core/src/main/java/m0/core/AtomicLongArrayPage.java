package m0.core;

import java.util.concurrent.atomic.AtomicLongArray;

/**
 * An in-process {@link Page} over an {@link AtomicLongArray}: every access is volatile or
 * atomic. This is the page Lincheck can instrument (it rejects byte-buffer VarHandles).
 */
public final class AtomicLongArrayPage implements Page {

    private final AtomicLongArray words;

    public AtomicLongArrayPage(int words) {
        this.words = new AtomicLongArray(words);
    }

    /** A fresh page sized for {@code workers}: every state reads NOT_STARTED. */
    public static AtomicLongArrayPage forWorkers(int workers) {
        return new AtomicLongArrayPage(PageLayout.slots(workers));
    }

    @Override
    public int words() {
        return words.length();
    }

    @Override
    public long getVolatile(int word) {
        return words.get(word);
    }

    @Override
    public void setVolatile(int word, long value) {
        words.set(word, value);
    }

    @Override
    public long getAndAdd(int word, long delta) {
        return words.getAndAdd(word, delta);
    }

    @Override
    public boolean compareAndSet(int word, long expected, long value) {
        return words.compareAndSet(word, expected, value);
    }

    @Override
    public String toString() {
        return "AtomicLongArrayPage" + words;
    }
}
