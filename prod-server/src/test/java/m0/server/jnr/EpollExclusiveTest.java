package m0.server.jnr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * What docs/adr/0022 relies on from the kernel's EPOLLEXCLUSIVE, on this machine's kernel:
 * one connection wakes one waiting epoll; an epoll with nobody blocked in epoll_wait (a worker
 * inside a pass) does not count, so the wake-up goes on to one that waits, and the readiness
 * stays queued for the busy one (fs/eventpoll.c, {@code ep_poll_callback}: {@code ewake} is set
 * only under {@code waitqueue_active(&ep->wq)}). Registered without the flag, the same
 * connection wakes both: the herd, and the control that shows the test can fail. Each epoll
 * here stands for one worker's; a thread blocked in epoll_wait on it, for that worker parked.
 */
@Timeout(30)
class EpollExclusiveTest {

    private static final InetAddress LOOPBACK = InetAddress.getLoopbackAddress();
    private static final long LISTENER = 7;
    /** Long enough that a wake-up the kernel did deliver has come back; a bound, not a sync. */
    private static final int QUIET_MS = 300;

    @Test
    void exclusiveWakesOneOfTwoWaitingEpollsWhereThePlainRegistrationWakesBoth() throws Exception {
        assertEquals(1, wokenByOneConnection(Epoll.EXCLUSIVE), "EPOLLEXCLUSIVE: one waiter per connection");
        assertEquals(2, wokenByOneConnection(0), "without it every waiting epoll wakes (the herd)");
    }

    @Test
    void anEpollWithNobodyWaitingIsSkippedAndKeepsTheReadinessQueued() throws Exception {
        int listener = Sockets.listenTcp(LOOPBACK, 0, 16);
        try (Epoll busy = new Epoll(4); Epoll idle = new Epoll(4)) {
            // busy first: the wait queue is walked in registration order, so it is asked first.
            busy.add(listener, Epoll.IN | Epoll.EXCLUSIVE, LISTENER);
            idle.add(listener, Epoll.IN | Epoll.EXCLUSIVE, LISTENER);
            Waiter parked = Waiter.on(idle, 10_000);
            parked.awaitBlocked();
            try (Socket client = new Socket(LOOPBACK, Sockets.localPort(listener))) {
                assertEquals(1, parked.events.get(10, TimeUnit.SECONDS), "the idle worker was woken, not the busy one");
                assertEquals(1, busy.await(0), "the busy worker finds the connection at its next wait");
                assertEquals(LISTENER, busy.data(0));
            }
        } finally {
            Fds.close(listener);
        }
    }

    @Test
    void anExclusiveRegistrationRefusesModifyAndRdhup() {
        int listener = Sockets.listenTcp(LOOPBACK, 0, 16);
        try (Epoll epoll = new Epoll(4)) {
            NativeException rdhup = assertThrows(NativeException.class,
                    () -> epoll.add(listener, Epoll.IN | Epoll.RDHUP | Epoll.EXCLUSIVE, LISTENER));
            assertEquals(22, rdhup.errno(), "EINVAL: " + rdhup.getMessage());
            epoll.add(listener, Epoll.IN | Epoll.EXCLUSIVE, LISTENER);
            NativeException mod = assertThrows(NativeException.class, () -> epoll.modify(listener, Epoll.IN, LISTENER));
            assertEquals(22, mod.errno(), "EINVAL: " + mod.getMessage());
            epoll.delete(listener); // DEL and ADD is how the loop takes it out and puts it back
            epoll.add(listener, Epoll.IN | Epoll.EXCLUSIVE, LISTENER);
        } finally {
            Fds.close(listener);
        }
    }

    @Test
    void pendingIsAZeroTimeoutLookAtTheBacklog() throws Exception {
        int listener = Sockets.listenTcp(LOOPBACK, 0, 16);
        try {
            Acceptor acceptor = new Acceptor(listener);
            assertFalse(acceptor.pending(), "an empty backlog");
            try (Socket client = new Socket(LOOPBACK, Sockets.localPort(listener))) {
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
                while (!acceptor.pending()) { // the handshake completes in the kernel, microseconds away
                    assertTrue(System.nanoTime() - deadline < 0, "the connection never showed in the backlog");
                    Thread.onSpinWait();
                }
                int fd = acceptor.accept();
                assertTrue(fd >= 0);
                Fds.close(fd);
                assertFalse(acceptor.pending(), "taken: the backlog is empty again");
            }
        } finally {
            Fds.close(listener);
        }
    }

    /**
     * 1.5 ms is waited in full, where epoll_wait's milliseconds would round it to 1. A signal to
     * the test JVM may end a wait early (EINTR reads as 0: the caller's next pass looks; CI saw one
     * return after 0.66 ms), so a wait cut short is tried again, five times at most; a wait
     * rounded down is short every time.
     */
    @Test
    void awaitNanosWaitsItsTimeoutToTheSubMillisecond() {
        try (Epoll epoll = new Epoll(4); EventFd e = new EventFd()) {
            epoll.add(e.fd(), Epoll.IN, 1);
            List<Long> waits = new ArrayList<>();
            while (waits.size() < 5 && (waits.isEmpty() || waits.get(waits.size() - 1) < 1_500_000)) {
                long t0 = System.nanoTime();
                assertEquals(0, epoll.awaitNanos(1_500_000));
                waits.add(System.nanoTime() - t0);
            }
            assertTrue(waits.get(waits.size() - 1) >= 1_500_000, "every wait returned early (ns): " + waits);
            e.signal();
            assertEquals(1, epoll.awaitNanos(-1), "negative: no timeout, and readiness returns at once");
        }
    }

    /** Two epolls hold the listener with {@code flag}, a thread waits on each; how many does one connection wake? */
    private static int wokenByOneConnection(int flag) throws Exception {
        int listener = Sockets.listenTcp(LOOPBACK, 0, 16);
        try (Epoll a = new Epoll(4); Epoll b = new Epoll(4)) {
            a.add(listener, Epoll.IN | flag, LISTENER);
            b.add(listener, Epoll.IN | flag, LISTENER);
            Waiter wa = Waiter.on(a, QUIET_MS * 4);
            Waiter wb = Waiter.on(b, QUIET_MS * 4);
            wa.awaitBlocked();
            wb.awaitBlocked();
            try (Socket client = new Socket(LOOPBACK, Sockets.localPort(listener))) {
                // The woken one returns within microseconds; the other times out with 0 events.
                return wa.events.get(10, TimeUnit.SECONDS) + wb.events.get(10, TimeUnit.SECONDS);
            }
        } finally {
            Fds.close(listener);
        }
    }

    /** A thread blocked in epoll_wait on one epoll: a parked worker. */
    private static final class Waiter {
        private static final java.util.concurrent.atomic.AtomicInteger NAMES = new java.util.concurrent.atomic.AtomicInteger();
        /** epoll_wait's number on x86_64, as /proc/.../syscall shows it while the task sleeps in it. */
        private static final String EPOLL_WAIT = "232";

        final CompletableFuture<Integer> events = new CompletableFuture<>();
        private final String name = "ep-waiter-" + NAMES.incrementAndGet();

        static Waiter on(Epoll epoll, int timeoutMillis) {
            Waiter w = new Waiter();
            Thread t = new Thread(() -> {
                try {
                    w.events.complete(epoll.await(timeoutMillis));
                } catch (RuntimeException e) {
                    w.events.completeExceptionally(e);
                }
            }, w.name);
            t.setDaemon(true);
            t.start();
            return w;
        }

        /** Until the task sleeps inside epoll_wait, on the epoll's wait queue (Java reads it RUNNABLE). */
        void awaitBlocked() throws Exception {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (!sleepsInEpollWait()) {
                assertTrue(System.nanoTime() - deadline < 0, name + " never blocked in epoll_wait");
                Thread.sleep(1); // polling a condition, bounded by the deadline
            }
        }

        private boolean sleepsInEpollWait() throws java.io.IOException {
            try (var tasks = java.nio.file.Files.list(java.nio.file.Path.of("/proc/self/task"))) {
                for (java.nio.file.Path task : (Iterable<java.nio.file.Path>) tasks::iterator) {
                    try {
                        if (!java.nio.file.Files.readString(task.resolve("comm")).trim().equals(name)) {
                            continue;
                        }
                        String stat = java.nio.file.Files.readString(task.resolve("stat"));
                        boolean sleeping = stat.charAt(stat.lastIndexOf(')') + 2) == 'S';
                        String call = java.nio.file.Files.readString(task.resolve("syscall")).split(" ")[0].trim();
                        return sleeping && EPOLL_WAIT.equals(call);
                    } catch (java.nio.file.NoSuchFileException e) {
                        // another thread ended while we listed
                    }
                }
            }
            return false;
        }
    }
}
