package m0.server.jnr;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A block of preallocated native memory: a direct {@link ByteBuffer} (native order, for typed
 * reads and writes at explicit offsets) and its address (for the syscalls). Allocated once per
 * owner and reused for every call; never freed before its owner is garbage.
 */
public final class Memory {

    private final ByteBuffer buffer;
    private final long address;

    public Memory(int bytes) {
        this.buffer = ByteBuffer.allocateDirect(bytes).order(ByteOrder.nativeOrder());
        this.address = LibC.address(buffer);
    }

    /** The buffer over the block; absolute get/put only, its position is the caller's. */
    public ByteBuffer buffer() {
        return buffer;
    }

    public long address() {
        return address;
    }

    public long address(int offset) {
        return address + offset;
    }

    public int size() {
        return buffer.capacity();
    }
}
