package m0.core;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;

/** In-memory hand-off channels, one bounded FIFO per worker; a full one refuses. */
final class QueueChannel<C> implements Channel<C> {

    private final List<ArrayDeque<C>> queues = new ArrayList<>();
    private final int capacity;
    private final List<String> log;

    QueueChannel(int workers, int capacity) {
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

    int queued(int index) {
        return queues.get(index).size();
    }

    List<String> log() {
        return log;
    }
}
