package m0.server.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import m0.server.stats.WorkerCounters;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * TCP_DEFER_ACCEPT on the listener m0serve binds (ADR 0054): a connection is accepted when its
 * request arrives, not at its handshake. Told apart by order, not by waiting: an idle connection
 * made first and a connection that asks second are in the kernel's queue in that order, so a
 * worker that has answered the second has accepted the first too, unless the kernel holds the
 * first back for its data. {@code --defer-accept 5} holds it about 7 s (the kernel's timers at
 * 1, 3 and 7 s), far longer than the test takes to look.
 */
@Timeout(60)
class DeferAcceptIntegrationTest {

    private static final String GET = "GET / HTTP/1.1\r\nHost: a\r\n\r\n";
    private static final int READY_MS = 30_000;
    private static final long COUNTERS_MS = 5_000;

    @Test
    void aConnectionIsAcceptedWhenItsRequestArrivesNotAtItsHandshake() throws Exception {
        try (ServerProcess server = ServerProcess.start("--workers", "1", "--defer-accept", "5")) {
            PageWatch.of(server).awaitReady(READY_MS);
            long before = accepted(server);
            try (Http idle = new Http(server.port); Http asking = new Http(server.port)) {
                asking.send(GET);
                assertEquals(200, asking.read().status());
                assertEquals(before + 1, awaitAccepted(server, before + 1),
                        "the idle connection, queued first, is not accepted while it has sent nothing");
                idle.send(GET);
                assertEquals(200, idle.read().status(), "accepted once its request came, and served");
                assertEquals(before + 2, awaitAccepted(server, before + 2));
            }
        }
    }

    @Test
    void withDeferAcceptOffTheHandshakeIsEnough() throws Exception {
        try (ServerProcess server = ServerProcess.start("--workers", "1", "--defer-accept", "0")) {
            PageWatch.of(server).awaitReady(READY_MS);
            long before = accepted(server);
            try (Http idle = new Http(server.port); Http asking = new Http(server.port)) {
                asking.send(GET);
                assertEquals(200, asking.read().status());
                assertEquals(before + 2, awaitAccepted(server, before + 2),
                        "the idle connection was accepted at its handshake, before the one that asked");
            }
        }
    }

    /** Connections the live workers accepted from the listener, as their counters last published it. */
    private static long accepted(ServerProcess server) {
        return WorkerCounters.ofLiveWorkers(server.pid()).values().stream()
                .mapToLong(c -> c.word(WorkerCounters.ACCEPTED)).sum();
    }

    /**
     * The accepted count once it reaches {@code atLeast}, or as it stands after 5 s (a worker
     * publishes its counters at the end of the pass that answered).
     */
    private static long awaitAccepted(ServerProcess server, long atLeast) throws InterruptedException {
        long deadline = System.nanoTime() + COUNTERS_MS * 1_000_000;
        long n;
        while ((n = accepted(server)) < atLeast && System.nanoTime() - deadline < 0) {
            Thread.sleep(10);
        }
        return n;
    }
}
