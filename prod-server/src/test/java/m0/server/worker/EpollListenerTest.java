package m0.server.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import m0.core.loop.ListenerInterest;
import m0.server.jnr.Epoll;
import m0.server.jnr.Fds;
import m0.server.jnr.Sockets;
import m0.server.log.RateLimitedLog;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The core loop's owner of the listener's registration ({@code m0.core.loop.ListenerInterest},
 * docs/adr/0022) over this worker's {@link EpollListener}, on a real epoll: it is in the set
 * exactly while no reason keeps it out, each reason ends by its own rule, and the kernel's view
 * ({@code /proc/self/fdinfo} of the epoll) agrees, EPOLLEXCLUSIVE bit included.
 */
@Timeout(30)
class EpollListenerTest {

    private static final long DATA = 0xABCDL;
    private static final RateLimitedLog FAILURES = new RateLimitedLog(System.err, "test: ");
    private static final Pattern WATCHED = Pattern.compile("(?m)^tfd:\\s+(\\d+)\\s+events:\\s+([0-9a-f]+)");

    private Epoll epoll;
    private int listener;

    @BeforeEach
    void open() {
        epoll = new Epoll(4);
        listener = Sockets.listenTcp(InetAddress.getLoopbackAddress(), 0, 16);
    }

    @AfterEach
    void close() {
        epoll.close();
        Fds.close(listener);
    }

    @Test
    void shareAndRaceRegisterExclusiveFountainPlain() throws IOException {
        ListenerInterest exclusive = new ListenerInterest(new EpollListener(epoll, listener, DATA, true, FAILURES));
        exclusive.register();
        assertEquals(Epoll.EXCLUSIVE, kernelEvents() & Epoll.EXCLUSIVE, "share/race: EPOLLEXCLUSIVE");
        assertEquals(Epoll.IN, kernelEvents() & Epoll.IN);
        exclusive.close();
        ListenerInterest plain = new ListenerInterest(new EpollListener(epoll, listener, DATA, false, FAILURES));
        plain.register();
        assertEquals(0, kernelEvents() & Epoll.EXCLUSIVE, "fountain: not exclusive");
    }

    @Test
    void theLoopsDeferralReachesTheSharedSocket() {
        EpollListener l = new EpollListener(epoll, listener, DATA, true, FAILURES);
        assertEquals(0, Sockets.deferAcceptSeconds(listener), "bound without it");
        l.deferAccept(true);
        assertTrue(Sockets.deferAcceptSeconds(listener) > 0, "on: the kernel holds connections back");
        l.deferAccept(false);
        assertEquals(0, Sockets.deferAcceptSeconds(listener), "off: accepted at the handshake again");
    }

    @Test
    void inExactlyWhileNoReasonHoldsAndEachEndsByItsOwnRule() throws IOException {
        ListenerInterest l = new ListenerInterest(new EpollListener(epoll, listener, DATA, true, FAILURES));
        l.register();
        assertIn(l, true);

        l.atCap();
        l.backOff(1_000);
        assertIn(l, false);
        l.resume(999, 10, 10); // still at the cap, back-off not over
        assertIn(l, false);
        l.resume(1_000, 9, 10); // a connection closed, and the back-off ended: both lifted at once
        assertIn(l, true);

        l.leaveToHead(5_000);
        assertIn(l, false);
        assertFalse(l.lookDue(4_999));
        assertTrue(l.lookDue(5_000));
        assertEquals(5_000, l.wakeAt(), "the loop wakes for the look");
        l.atCap();
        assertFalse(l.lookDue(6_000), "at the cap a look could not accept what it found: none");
        assertEquals(Long.MAX_VALUE, l.wakeAt(), "the cap ends with a closing connection's pass, no timer");
        l.resume(6_000, 0, 10);
        assertIn(l, false); // still left to the head
        assertTrue(l.lookDue(6_000), "the look that fell due meanwhile is taken now");
        l.backOff(7_000);
        assertEquals(7_000, l.wakeAt(), "a look inside a back-off waits for its end");
        l.resume(7_000, 0, 10);
        l.take();
        assertIn(l, true);

        l.close();
        assertIn(l, false);
        l.take();
        l.resume(Long.MAX_VALUE / 2, 0, 10);
        assertIn(l, false); // leaving is final: the descriptor is about to be closed
        assertEquals(Long.MAX_VALUE, l.wakeAt());
        assertFalse(l.lookDue(Long.MAX_VALUE / 2));
    }

    private void assertIn(ListenerInterest l, boolean in) throws IOException {
        assertEquals(in, l.in(), "the loop's view");
        assertEquals(in, kernelEvents() >= 0, "the kernel's view (fdinfo of the epoll)");
    }

    /** The listener's registered events in the epoll, from /proc/self/fdinfo; -1 when not registered. */
    private int kernelEvents() throws IOException {
        String info = Files.readString(Path.of("/proc/self/fdinfo/" + epoll.fd()));
        Matcher m = WATCHED.matcher(info);
        while (m.find()) {
            if (Integer.parseInt(m.group(1)) == listener) {
                return (int) Long.parseLong(m.group(2), 16);
            }
        }
        return -1;
    }
}
