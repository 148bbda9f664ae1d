package m0.jcstress.page;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import m0.core.Page;

/**
 * MUTANT, test code only: a {@link Page} over {@code long[]} whose loads are acquire, stores
 * release and read-modify-writes release. Every access keeps its own word coherent, and
 * message passing still works; a Dekker handshake does not (a store may be overtaken by the
 * load after it). The jcstress tests run the B25 handshake on it to show why the page is
 * volatile.
 */
public final class AcquireReleaseArrayPage implements Page {

    private static final VarHandle WORDS = MethodHandles.arrayElementVarHandle(long[].class);

    private final long[] words;

    public AcquireReleaseArrayPage(int words) {
        this.words = new long[words];
    }

    @Override
    public int words() {
        return words.length;
    }

    @Override
    public long getVolatile(int word) {
        return (long) WORDS.getAcquire(words, word);
    }

    @Override
    public void setVolatile(int word, long value) {
        WORDS.setRelease(words, word, value);
    }

    @Override
    public long getAndAdd(int word, long delta) {
        return (long) WORDS.getAndAddRelease(words, word, delta);
    }

    @Override
    public boolean compareAndSet(int word, long expected, long value) {
        return (long) WORDS.compareAndExchangeRelease(words, word, expected, value) == expected;
    }
}
