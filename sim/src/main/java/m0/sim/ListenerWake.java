package m0.sim;

import java.util.List;
import java.util.function.Consumer;

/**
 * Whom the kernel wakes when a connection reaches the listener, in the epoll model
 * ({@link Epoll#wait}). {@code armed} lists the live workers whose epoll holds the listener, in
 * index order; {@code wake} wakes one blocked in epoll_wait.
 */
@FunctionalInterface
public interface ListenerWake {

    void wake(List<Worker> armed, Consumer<Worker> wake);

    /** Level-triggered, no EPOLLEXCLUSIVE: every waiter wakes (fountain's registration). */
    ListenerWake ALL = (armed, wake) -> {
        for (Worker w : armed) {
            if (w.inEpoll) {
                wake.accept(w);
            }
        }
    };

    /**
     * EPOLLEXCLUSIVE: one waiter wakes. The kernel stops at the first exclusive entry whose epoll
     * has a thread blocked on it; an epoll with nobody in epoll_wait (a worker inside a pass)
     * only queues the readiness and does not count, so a long pass never hides an idle sibling.
     */
    ListenerWake EXCLUSIVE = (armed, wake) -> {
        for (Worker w : armed) {
            if (w.inEpoll) {
                wake.accept(w);
                return;
            }
        }
    };
}
