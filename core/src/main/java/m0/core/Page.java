package m0.core;

/**
 * Port: the shared page, an array of 64-bit words that every worker and the supervisor see.
 *
 * <p>Every access is sequentially consistent (a volatile load or store) or an atomic
 * read-modify-write. That is not a nicety: the B25 handshake is Dekker-style (each side writes
 * its own word, then reads the other's), and release/acquire alone lets both sides read the
 * other's old value. An implementation must not weaken any of these.
 *
 * <p>Word indices are the ones {@link PageLayout} names; an implementation need not know them.
 */
public interface Page {

    /** How many words the page holds. */
    int words();

    /** A volatile load of {@code word}. */
    long getVolatile(int word);

    /** A volatile store of {@code value} into {@code word}. */
    void setVolatile(int word, long value);

    /** Atomically adds {@code delta} to {@code word}; returns the value before. */
    long getAndAdd(int word, long delta);

    /** Atomically sets {@code word} to {@code value} if it holds {@code expected}. */
    boolean compareAndSet(int word, long expected, long value);
}
