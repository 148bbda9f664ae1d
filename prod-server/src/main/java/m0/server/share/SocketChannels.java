package m0.server.share;

import java.util.concurrent.locks.LockSupport;
import m0.core.Channel;
import m0.server.jnr.Fds;
import m0.server.jnr.FdPassing;
import m0.server.jnr.Native;
import m0.server.log.RateLimitedLog;

/**
 * The core's {@link Channel} over one AF_UNIX datagram socketpair per worker: worker i's
 * connections are sent on {@code sendFds[i]} and received on {@code receiveFds[i]}, one
 * descriptor (SCM_RIGHTS) and the peer sockaddr per datagram.
 *
 * <p>A worker holds every send end and its own receive end; the supervisor holds both ends of
 * every pair, so a channel (and what is queued in it) outlives its worker. A sent connection's
 * local copy is closed at once: the queued message keeps the connection alive. Not
 * thread-safe: one per loop.
 */
public final class SocketChannels implements Channel<Accepted> {

    /** Per-end socket buffer: the kernel doubles it; about 171 hand-offs queue before EAGAIN. */
    public static final int BUFFER_BYTES = 64 * 1024;

    /**
     * What becomes of the sender's own copy of a connection once its datagram is queued: closed
     * at once ({@link #CLOSE_SENT_COPY}); a test's stand-in holds it a while first, as a sender
     * preempted between sendmsg and close would (docs/adr/0034).
     */
    @FunctionalInterface
    public interface SentCopy {
        void release(int fd);
    }

    /** The sender's copy is closed: the queued message keeps the connection alive. */
    public static final SentCopy CLOSE_SENT_COPY = Fds::close;

    /** A stand-in for the received-close test: park {@code nanos} between sendmsg and the close. */
    public static SentCopy heldFor(long nanos) {
        return fd -> {
            long until = System.nanoTime() + nanos;
            for (long left = nanos; left > 0; left = until - System.nanoTime()) {
                LockSupport.parkNanos(left); // may return early: the whole hold is the stand-in's point
            }
            Fds.close(fd);
        };
    }

    /** The payload of {@link #nudge}. */
    private static final byte[] NUDGE = {'N'};
    private boolean nudged;
    private final int[] sendFds;
    private final int[] receiveFds;
    private final FdPassing passing = new FdPassing();
    private final RateLimitedLog failures;
    private final SentCopy sentCopy;

    /** {@code -1} marks an end this process does not hold. */
    public SocketChannels(int[] sendFds, int[] receiveFds) {
        this(sendFds, receiveFds, "m0serve: ");
    }

    /** {@code logPrefix} names the process in the (rate-limited) failure lines. */
    public SocketChannels(int[] sendFds, int[] receiveFds, String logPrefix) {
        this(sendFds, receiveFds, logPrefix, CLOSE_SENT_COPY);
    }

    public SocketChannels(int[] sendFds, int[] receiveFds, String logPrefix, SentCopy sentCopy) {
        this.failures = new RateLimitedLog(System.err, logPrefix);
        this.sentCopy = sentCopy;
        if (sendFds.length != receiveFds.length) {
            throw new IllegalArgumentException("one send and one receive end per worker");
        }
        this.sendFds = sendFds.clone();
        this.receiveFds = receiveFds.clone();
    }

    @Override
    public boolean send(int target, Accepted connection) {
        int socket = sendFds[target];
        if (socket < 0) {
            return false;
        }
        if (!passing.send(socket, connection.fd(), payload(connection))) {
            int errno = passing.lastErrno();
            if (errno != Native.EAGAIN && errno != Native.ENOBUFS && errno != Native.ECONNREFUSED) {
                // Not a full or closed channel: something unexpected, worth a line (once a second).
                failures.log("sendmsg to channel " + target + ": " + Native.errnoName(errno)
                        + "; refused, the sender keeps the connection");
            }
            return false;
        }
        sentCopy.release(connection.fd());
        return true;
    }

    @Override
    public Accepted receive(int index) {
        int socket = receiveFds[index];
        if (socket < 0) {
            return null;
        }
        FdPassing.Received r;
        while ((r = passing.receive(socket)) != null && r.fd() < 0 && isNudge(r.payload())) {
            nudged = true; // not a hand-off: the core never sees it
        }
        if (r == null) {
            return null;
        }
        if (r.fd() < 0) {
            failures.log("a hand-off on channel " + index + " arrived without its descriptor"
                    + " (out of descriptors?); counted as lost");
            return Accepted.LOST;
        }
        return accepted(r.fd(), r.payload());
    }

    /** A hand-off's trailer byte, after the peer's sockaddr: the connection is settled (ADR 0059). */
    static final byte SETTLED = 1;

    /**
     * A hand-off's payload: the peer's sockaddr, then one trailer byte ({@link #SETTLED} or 0).
     * It carries a descriptor, and a nudge is a datagram without one, so one is never read as
     * the other (with no peer the payload is the trailer alone, one byte, and still a hand-off).
     */
    static byte[] payload(Accepted connection) {
        byte[] peer = connection.peer() == null ? new byte[0] : connection.peer();
        byte[] payload = java.util.Arrays.copyOf(peer, peer.length + 1);
        payload[peer.length] = connection.settled() ? SETTLED : 0;
        return payload;
    }

    /** The receiving side of {@link #payload}. */
    static Accepted accepted(int fd, byte[] payload) {
        if (payload.length == 0) {
            return new Accepted(fd, payload); // a sender that wrote no trailer: no peer, not settled
        }
        int peer = payload.length - 1;
        return new Accepted(fd, java.util.Arrays.copyOf(payload, peer), payload[peer] == SETTLED);
    }

    /** The core takes and retires a lost receipt like any other, and counts it. */
    @Override
    public boolean lost(Accepted received) {
        return received == Accepted.LOST;
    }

    /**
     * Tells worker {@code target} to look at the listener now (fountain: the sender's accept
     * left it full, {@code AcceptPolicy#endBatch}): a one-byte datagram without a descriptor on
     * its channel, which {@link #receive} swallows. Best effort: a full or closed channel drops
     * it, and the target looks at its own deadline (within 1 ms) as before.
     */
    public void nudge(int target) {
        int socket = sendFds[target];
        if (socket >= 0) {
            passing.send(socket, -1, NUDGE);
        }
    }

    /** Whether a nudge arrived since the last call (and forget it). */
    public boolean takeNudge() {
        boolean n = nudged;
        nudged = false;
        return n;
    }

    /** A nudge's payload; a hand-off's is a peer's sockaddr (16 bytes or more), never this. */
    private static boolean isNudge(byte[] payload) {
        return payload.length == 1 && payload[0] == NUDGE[0];
    }

    public int receiveFd(int index) {
        return receiveFds[index];
    }

    public int workers() {
        return sendFds.length;
    }
}
