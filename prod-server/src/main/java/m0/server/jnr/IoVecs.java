package m0.server.jnr;

/** A preallocated iovec array for {@link Fds#writev}: {@code struct iovec} is 16 bytes, base@0, len@8. */
public final class IoVecs {

    private static final int IOVEC_BYTES = 16;

    private final Memory memory;
    private final int capacity;
    private int count;

    public IoVecs(int capacity) {
        this.capacity = capacity;
        this.memory = new Memory(IOVEC_BYTES * capacity);
    }

    public void clear() {
        count = 0;
    }

    /** Appends {@code length} bytes at {@code address}; false when full. */
    public boolean add(long address, long length) {
        if (count == capacity) {
            return false;
        }
        int at = count++ * IOVEC_BYTES;
        memory.buffer().putLong(at, address);
        memory.buffer().putLong(at + 8, length);
        return true;
    }

    public int count() {
        return count;
    }

    /** Writes the gathered buffers to {@code fd}: bytes written, or -1 at EAGAIN. */
    public long writeTo(int fd) {
        return Fds.writev(fd, memory.address(), count);
    }
}
