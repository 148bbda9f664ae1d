package m0.jcstress.page;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import m0.core.Page;

/**
 * MUTANT, test code only: a {@link Page} over {@code long[]} with opaque loads and stores and
 * unordered (plain-mode) atomic read-modify-writes: each word is coherent and no update is
 * lost, but nothing orders one word against another.
 */
public final class OpaqueArrayPage implements Page {

    private static final VarHandle WORDS = MethodHandles.arrayElementVarHandle(long[].class);

    private final long[] words;

    public OpaqueArrayPage(int words) {
        this.words = new long[words];
    }

    @Override
    public int words() {
        return words.length;
    }

    @Override
    public long getVolatile(int word) {
        return (long) WORDS.getOpaque(words, word);
    }

    @Override
    public void setVolatile(int word, long value) {
        WORDS.setOpaque(words, word, value);
    }

    @Override
    public long getAndAdd(int word, long delta) {
        // VarHandle has no opaque getAndAdd; a plain-mode CAS loop is the weakest atomic add.
        for (;;) {
            long v = (long) WORDS.getOpaque(words, word);
            if (WORDS.weakCompareAndSetPlain(words, word, v, v + delta)) {
                return v;
            }
        }
    }

    @Override
    public boolean compareAndSet(int word, long expected, long value) {
        for (;;) {
            if (WORDS.weakCompareAndSetPlain(words, word, expected, value)) {
                return true;
            }
            if ((long) WORDS.getOpaque(words, word) != expected) {
                return false;
            }
        }
    }
}
