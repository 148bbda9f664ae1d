package m0.core;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A {@link Page} over a direct {@link ByteBuffer}: in m0serve a memfd mapped by the supervisor
 * and by every worker, so the words are shared between processes; under jcstress a mapped file.
 *
 * <p>Accesses go through {@code byteBufferViewVarHandle(long[].class, nativeOrder())}, whose
 * volatile and atomic modes are sequentially consistent across processes for aligned words
 * (measured: 2 x 10 M {@code getAndAdd} from two processes lost nothing). Misaligned words
 * throw, so the constructor insists on an 8-aligned base.
 */
public final class ByteBufferPage implements Page {

    private static final VarHandle LONGS =
            MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());

    private final ByteBuffer buffer;
    private final int baseOffset;
    private final int words;

    /** A page of {@code words} words starting at byte {@code baseOffset} of {@code buffer}. */
    public ByteBufferPage(ByteBuffer buffer, int baseOffset, int words) {
        if (!buffer.isDirect()) {
            throw new IllegalArgumentException("a shared page needs a direct (mapped) buffer");
        }
        if ((baseOffset & 7) != 0) {
            throw new IllegalArgumentException("base offset must be 8-aligned: " + baseOffset);
        }
        if (words < 1 || (long) baseOffset + 8L * words > buffer.capacity()) {
            throw new IllegalArgumentException(
                    words + " words at " + baseOffset + " do not fit in " + buffer.capacity() + " bytes");
        }
        this.buffer = buffer;
        this.baseOffset = baseOffset;
        this.words = words;
    }

    /** A page over the whole of {@code buffer}. */
    public ByteBufferPage(ByteBuffer buffer) {
        this(buffer, 0, buffer.capacity() / 8);
    }

    private int offset(int word) {
        if (word < 0 || word >= words) {
            throw new IndexOutOfBoundsException("word " + word + " of " + words);
        }
        return baseOffset + (word << 3);
    }

    @Override
    public int words() {
        return words;
    }

    @Override
    public long getVolatile(int word) {
        return (long) LONGS.getVolatile(buffer, offset(word));
    }

    @Override
    public void setVolatile(int word, long value) {
        LONGS.setVolatile(buffer, offset(word), value);
    }

    @Override
    public long getAndAdd(int word, long delta) {
        return (long) LONGS.getAndAdd(buffer, offset(word), delta);
    }

    @Override
    public boolean compareAndSet(int word, long expected, long value) {
        return LONGS.compareAndSet(buffer, offset(word), expected, value);
    }
}
