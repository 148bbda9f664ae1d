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
 * The ring against a real kernel, over a stream socketpair: what a pass's sends rely on
 * (docs/adr/0049). A send completes with its count, a send that must not wait completes at once
 * with EAGAIN on a full socket, and more sends than the queue holds go out in order. (The poll,
 * cancel and timed wait of the ring wait, and their tests, are on the branch ring-wait: ADR 0050.)
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
final class IoUringTest {

    private static final byte[] HELLO = "hello".getBytes(StandardCharsets.US_ASCII);

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
    void aSendCompletesWithItsCountAndThePeerReadsItsBytes() {
        bytes.buffer().put(0, HELLO);
        ring.send(ours, bytes.address(), HELLO.length, 0, 9);

        assertEquals(Map.of(9L, HELLO.length), completeTags(1));
        assertArrayEquals(HELLO, read(peer));
    }

    @Test
    void moreSendsThanTheQueueHoldsAreSubmittedAsItFills() {
        bytes.buffer().put(0, HELLO);
        for (int i = 0; i < 20; i++) { // a ring of 8
            ring.send(ours, bytes.address(), HELLO.length, IoUring.DONTWAIT, 100 + i);
        }

        Map<Long, Integer> done = completeTags(20);

        for (int i = 0; i < 20; i++) {
            assertEquals(HELLO.length, done.get(100L + i), "send " + i + ": " + done);
        }
        byte[] all = new byte[20 * HELLO.length];
        int got = 0;
        while (got < all.length) {
            byte[] b = read(peer);
            System.arraycopy(b, 0, all, got, b.length);
            got += b.length;
        }
        assertArrayEquals(repeat(HELLO, 20), all, "every send's bytes, in order");
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
    void completionsAreReadOnlyWithinTheLastCall() {
        assertEquals(0, ring.complete(0));
        assertThrows(IndexOutOfBoundsException.class, () -> ring.tag(0));
    }

    /** Calls until {@code count} completions came, a few calls at most; fails naming what came. */
    private Map<Long, Integer> completeTags(int count) {
        Map<Long, Integer> done = new HashMap<>();
        for (int calls = 0; done.size() < count && calls < 5; calls++) {
            int n = ring.complete(count - done.size());
            for (int i = 0; i < n; i++) {
                done.put(ring.tag(i), ring.result(i));
            }
        }
        assertEquals(count, done.size(), "completions: " + done);
        return done;
    }

    private static byte[] repeat(byte[] b, int times) {
        byte[] r = new byte[b.length * times];
        for (int i = 0; i < times; i++) {
            System.arraycopy(b, 0, r, i * b.length, b.length);
        }
        return r;
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
