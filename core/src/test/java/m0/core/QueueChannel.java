package m0.core;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/**
 * In-memory hand-off channels, one bounded FIFO per worker; a full one refuses. A connection
 * named {@link #LOST} stands for a datagram that arrived without its descriptor.
 */
public final class QueueChannel<C> implements Channel<C> {

    /** Received as a receipt with no connection in it (see {@link Channel#lost}). */
    static final String LOST = "LOST";

    private final List<ArrayDeque<C>> queues = new ArrayList<>();
    private final int capacity;
    private final List<String> log;

    public QueueChannel(int workers, int capacity) {
        this(workers, capacity, new ArrayList<>());
    }

    QueueChannel(int workers, int capacity, List<String> log) {
        this.log = log;
        for (int i = 0; i < workers; i++) {
            queues.add(new ArrayDeque<>());
        }
        this.capacity = capacity;
    }

    @Override
    public boolean send(int target, C connection) {
        ArrayDeque<C> queue = queues.get(target);
        if (queue.size() >= capacity) {
            log.add("send " + target + " " + connection + " refused");
            return false;
        }
        queue.add(connection);
        log.add("send " + target + " " + connection);
        return true;
    }

    @Override
    public C receive(int index) {
        C c = queues.get(index).poll();
        log.add("receive " + index + (c == null ? " EAGAIN" : " " + c));
        return c;
    }

    @Override
    public boolean lost(C received) {
        return LOST.equals(received);
    }

    public int queued(int index) {
        return queues.get(index).size();
    }

    List<String> log() {
        return log;
    }
}
