package m0.server.jnr;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The ring against a real kernel, over a stream socketpair: what ADR 0048's port relies on. A
 * poll takes no bytes (a descriptor handed off after it carries its whole request), a cancelled
 * poll completes cancelled and leaves nothing armed, a send completes with its count, and a wait
 * ends at its timeout or its first completion, whichever comes first.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
final class IoUringTest {

    private static final byte[] HELLO = "hello".getBytes(StandardCharsets.US_ASCII);
    private static final long SECOND = 1_000_000_000L;

    private IoUring ring;
    private int ours;
    private int peer;
    private final Memory bytes = new Memory(64);

    @BeforeEach
    void open() {
        String why = IoUring.refusal(); // m0serve then writes with write(2): HttpWithWritesIntegrationTest
        assumeTrue(why == null, () -> "this kernel refuses io_uring: " + why);
        ring = IoUring.open(8);
        Memory pair = new Memory(8);
        Native.check("socketpair", Native.libc().socketpair(Native.AF_UNIX, 1 /* SOCK_STREAM */ | 0x800 /* NONBLOCK */, 0,
                pair.address()));
        ours = pair.buffer().getInt(0);
        peer = pair.buffer().getInt(4);
    }

    @AfterEach
    void close() {
        if (ring == null) {
            return;
        }
        ring.close();
        Fds.close(ours);
        Fds.close(peer);
    }

    @Test
    void aPollCompletesOnceThePeerWritesAndLeavesTheBytesInTheSocket() {
        ring.poll(ours, IoUring.POLLIN, 7);
        assertEquals(0, ring.await(0), "nothing to read yet");

        write(peer, HELLO);
        Map<Long, Integer> done = awaitTags(1);

        assertTrue((done.get(7L) & IoUring.POLLIN) != 0, "the poll reports readable: " + done);
        assertArrayEquals(HELLO, read(ours), "the bytes are still the socket's");
    }

    @Test
    void aSendCompletesWithItsCountAndThePeerReadsItsBytes() {
        bytes.buffer().put(0, HELLO);
        ring.send(ours, bytes.address(), HELLO.length, 0, 9);

        assertEquals(Map.of(9L, HELLO.length), awaitTags(1));
        assertArrayEquals(HELLO, read(peer));
    }

    @Test
    void aCancelledPollCompletesCancelledTakesNoBytesAndStaysDisarmed() {
        ring.poll(ours, IoUring.POLLIN, 3);
        ring.await(0);
        ring.cancel(3, 4);

        Map<Long, Integer> done = awaitTags(2);

        assertEquals(-IoUring.ECANCELED, done.get(3L), "the poll: " + done);
        assertEquals(0, done.get(4L), "the cancel found it: " + done);
        write(peer, HELLO);
        assertEquals(0, ring.await(50_000_000L), "a cancelled poll does not fire");
        assertArrayEquals(HELLO, read(ours));
    }

    @Test
    void aWaitEndsAtItsTimeoutAndLeavesNothingArmed() {
        long start = System.nanoTime();
        assertEquals(0, ring.await(30_000_000L));
        long waited = System.nanoTime() - start;

        assertTrue(waited >= 25_000_000L, "waited " + waited + " ns of 30 ms");
        assertEquals(0, ring.await(0), "the timeout's own completion is not shown");
    }

    @Test
    void aWaitEndsAtItsFirstCompletionLongBeforeItsTimeout() {
        write(peer, HELLO);
        ring.poll(ours, IoUring.POLLIN, 5);
        long start = System.nanoTime();

        assertEquals(Map.of(5L, IoUring.POLLIN), awaitTags(1, 20 * SECOND));

        assertTrue(System.nanoTime() - start < 10 * SECOND, "ended at the completion, not the timeout");
        assertEquals(0, ring.await(0), "the satisfied timeout's completion is not shown either");
    }

    @Test
    void moreOperationsThanTheQueueHoldsAreSubmittedAsItFills() {
        for (int i = 0; i < 20; i++) { // a ring of 8
            ring.poll(ours, IoUring.POLLIN, 100 + i);
        }
        write(peer, HELLO);

        Map<Long, Integer> done = awaitTags(20);

        for (int i = 0; i < 20; i++) {
            assertEquals(IoUring.POLLIN, done.get(100L + i) & IoUring.POLLIN, "poll " + i + ": " + done);
        }
    }

    @Test
    void aSendThatMustNotWaitCompletesAtOnceWithItsCountOrEagainOnAFullSocket() {
        bytes.buffer().put(0, HELLO);
        ring.send(ours, bytes.address(), HELLO.length, IoUring.DONTWAIT, 1);
        assertEquals(1, ring.complete(1));
        assertEquals(HELLO.length, ring.result(0));

        Memory block = new Memory(65536);
        while (Fds.write(ours, block.address(), block.size()) > 0) {
            // fill the socket: the peer reads nothing
        }
        ring.send(ours, bytes.address(), HELLO.length, IoUring.DONTWAIT, 2);
        assertEquals(1, ring.complete(1), "completed at once");
        assertEquals(2L, ring.tag(0));
        assertEquals(-IoUring.EAGAIN, ring.result(0), "a full socket: EAGAIN, not a wait for room");
    }

    @Test
    void aNegativeTagIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> ring.poll(ours, IoUring.POLLIN, -5));
    }

    @Test
    void completionsAreReadOnlyWithinTheLastWait() {
        assertEquals(0, ring.await(0));
        assertThrows(IndexOutOfBoundsException.class, () -> ring.tag(0));
    }

    private Map<Long, Integer> awaitTags(int count) {
        return awaitTags(count, SECOND);
    }

    /** Waits until {@code count} completions came, each wait bounded; fails naming what came. */
    private Map<Long, Integer> awaitTags(int count, long timeoutNanos) {
        Map<Long, Integer> done = new HashMap<>();
        for (int waits = 0; done.size() < count && waits < 5; waits++) {
            int n = ring.await(timeoutNanos);
            for (int i = 0; i < n; i++) {
                done.put(ring.tag(i), ring.result(i));
            }
        }
        assertEquals(count, done.size(), "completions: " + done);
        return done;
    }

    private void write(int fd, byte[] b) {
        bytes.buffer().put(0, b);
        assertEquals(b.length, Fds.write(fd, bytes.address(), b.length));
    }

    private byte[] read(int fd) {
        int n = Fds.read(fd, bytes.address(), bytes.size());
        assertTrue(n > 0, "read " + n);
        byte[] b = new byte[n];
        bytes.buffer().get(0, b);
        return b;
    }
}
