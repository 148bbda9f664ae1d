package m0.jcstress.page;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import m0.core.Page;

/**
 * MUTANT, test code only: {@link OpaqueArrayPage}'s access modes over a slot of a mapped
 * buffer, through the same {@code byteBufferViewVarHandle} the real {@code ByteBufferPage} uses.
 */
public final class OpaqueBufferPage implements Page {

    private static final VarHandle LONGS =
            MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());

    private final ByteBuffer buffer;
    private final int base;
    private final int words;

    public OpaqueBufferPage(ByteBuffer buffer, int baseOffset, int words) {
        this.buffer = buffer;
        this.base = baseOffset;
        this.words = words;
    }

    @Override
    public int words() {
        return words;
    }

    @Override
    public long getVolatile(int word) {
        return (long) LONGS.getOpaque(buffer, base + (word << 3));
    }

    @Override
    public void setVolatile(int word, long value) {
        LONGS.setOpaque(buffer, base + (word << 3), value);
    }

    @Override
    public long getAndAdd(int word, long delta) {
        int offset = base + (word << 3);
        for (;;) {
            long v = (long) LONGS.getOpaque(buffer, offset);
            if (LONGS.weakCompareAndSetPlain(buffer, offset, v, v + delta)) {
                return v;
            }
        }
    }

    @Override
    public boolean compareAndSet(int word, long expected, long value) {
        int offset = base + (word << 3);
        for (;;) {
            if (LONGS.weakCompareAndSetPlain(buffer, offset, expected, value)) {
                return true;
            }
            if ((long) LONGS.getOpaque(buffer, offset) != expected) {
                return false;
            }
        }
    }
}
