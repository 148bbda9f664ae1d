package m0.server.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** --max-connections 0: the cap a worker derives from its descriptor limit. */
class MaxConnectionsTest {

    @Test
    void theLimitLessWhatIsHeldAndTheReserve() {
        // prlimit --nofile=256: 30 held at start (JVM, page, channels, epoll), 2 pool threads.
        assertEquals(256 - 30 - Worker.DESCRIPTOR_RESERVE - 2, Worker.defaultMaxConnections(256, 30, 2));
    }

    @Test
    void neverBelowOne() {
        assertEquals(1, Worker.defaultMaxConnections(64, 60, 2));
    }

    @Test
    void anUnlimitedLimitDoesNotOverflow() {
        assertEquals(Long.MAX_VALUE - 10 - Worker.DESCRIPTOR_RESERVE, Worker.defaultMaxConnections(Long.MAX_VALUE, 10, 0));
    }
}
