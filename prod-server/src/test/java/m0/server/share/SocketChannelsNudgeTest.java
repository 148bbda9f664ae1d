package m0.server.share;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import m0.server.jnr.Fds;
import m0.server.jnr.Sockets;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** A nudge (fountain, AcceptPolicy#endBatch) rides a worker's channel and never reads as a hand-off. */
class SocketChannelsNudgeTest {

    private final int[] pair = Sockets.datagramPair(SocketChannels.BUFFER_BYTES);
    private final SocketChannels channels = new SocketChannels(new int[] {pair[0]}, new int[] {pair[1]});

    @AfterEach
    void close() {
        Fds.close(pair[0]);
        Fds.close(pair[1]);
    }

    @Test
    void aNudgeIsSwallowedAndRemembered() {
        assertFalse(channels.takeNudge());
        channels.nudge(0);
        assertNull(channels.receive(0), "nothing to serve");
        assertTrue(channels.takeNudge(), "the receiver looks at the listener now");
        assertFalse(channels.takeNudge(), "once");
    }

    @Test
    void aHandOffBehindANudgeIsReceivedAndOneWithoutItsDescriptorIsStillLost() {
        int[] conn = Sockets.datagramPair(1024);
        byte[] peer = new byte[16];
        peer[0] = 2;
        try {
            channels.nudge(0);
            assertTrue(channels.send(0, new Accepted(conn[0], peer)));
            Accepted got = channels.receive(0);
            assertTrue(got.fd() >= 0, "the hand-off's descriptor");
            assertArrayEquals(peer, got.peer());
            assertTrue(channels.takeNudge());
            Fds.close(got.fd());
        } finally {
            Fds.close(conn[1]);
        }
        // A datagram with no descriptor that is not a nudge: a hand-off whose descriptor was lost.
        new m0.server.jnr.FdPassing().send(pair[0], -1, new byte[16]);
        assertEquals(Accepted.LOST, channels.receive(0));
        assertFalse(channels.takeNudge());
    }

    /** A keeping worker's move carries its connection's settledness (ADR 0059); a fresh accept's does not. */
    @Test
    void aHandOffCarriesItsPeerAndWhetherItIsSettled() {
        byte[] ipv6 = new byte[28];
        ipv6[0] = 10;
        ipv6[27] = 7;
        byte[] longest = new byte[Sockets.SOCKADDR_MAX];
        longest[Sockets.SOCKADDR_MAX - 1] = 9;
        Object[][] cases = {{ipv6, true}, {ipv6, false}, {longest, true}};
        for (Object[] k : cases) {
            byte[] peer = (byte[]) k[0];
            boolean settled = (Boolean) k[1];
            int[] conn = Sockets.datagramPair(1024); // the send closes the sender's copy: one each
            try {
                assertTrue(channels.send(0, new Accepted(conn[0], peer, settled)));
                Accepted got = channels.receive(0);
                assertArrayEquals(peer, got.peer(), "the peer, without the trailer");
                assertEquals(settled, got.settled());
                Fds.close(got.fd());
            } finally {
                Fds.close(conn[1]);
            }
        }
        assertFalse(channels.takeNudge(), "a trailer is never a nudge");
    }
}
