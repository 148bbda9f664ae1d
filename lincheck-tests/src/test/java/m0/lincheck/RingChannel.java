package m0.lincheck;

import m0.core.Channel;

/**
 * A plain in-memory {@link Channel}: one bounded ring per worker, each operation atomic under
 * the channel's monitor (a datagram socketpair's send and receive are atomic too). Full means
 * refused, empty means EAGAIN; nothing blocks.
 */
final class RingChannel<C> implements Channel<C> {

    private final Object[][] rings;
    private final int[] heads;
    private final int[] sizes;
    private final int capacity;

    RingChannel(int workers, int capacity) {
        this.rings = new Object[workers][capacity];
        this.heads = new int[workers];
        this.sizes = new int[workers];
        this.capacity = capacity;
    }

    @Override
    public synchronized boolean send(int target, C connection) {
        if (sizes[target] == capacity) {
            return false;
        }
        rings[target][(heads[target] + sizes[target]) % capacity] = connection;
        sizes[target]++;
        return true;
    }

    @Override
    @SuppressWarnings("unchecked")
    public synchronized C receive(int index) {
        if (sizes[index] == 0) {
            return null;
        }
        C c = (C) rings[index][heads[index]];
        rings[index][heads[index]] = null;
        heads[index] = (heads[index] + 1) % capacity;
        sizes[index]--;
        return c;
    }

    synchronized int queued(int index) {
        return sizes[index];
    }
}
