package m0.server.worker;

import m0.server.jnr.Epoll;
import m0.server.jnr.Fds;
import m0.server.jnr.Memory;
import m0.server.jnr.NativeException;
import m0.server.jnr.Sockets;

/**
 * nginx's lingering close, after an error answer is flushed: FIN, then read and drop what the
 * client still sends, so that its unread request bytes do not turn our close into a reset that
 * destroys the answer. Bounded in all, in idle time and in bytes. The state is the connection's
 * ({@link Connection#lingering} and the fields after it); this class keeps the rules, and its owner
 * closes the connection when they say so. Not thread-safe: the loop thread's.
 */
final class LingeringClose {

    /**
     * At most this long in all, this long without a byte, and this many bytes discarded (nginx:
     * lingering_time 30 s, lingering_timeout 5 s). A client writing a 10 MB body it has no answer
     * for yet gets to read our 413.
     */
    static final long LINGER_NANOS = 10_000_000_000L;
    static final long LINGER_IDLE_NANOS = 2_000_000_000L;
    static final long LINGER_MAX_BYTES = 32L * 1024 * 1024;

    private final Epoll epoll;
    /** Where the dropped bytes are read to: the loop's read buffer, nobody's between reads. */
    private final Memory sink;

    LingeringClose(Epoll epoll, Memory sink) {
        this.epoll = epoll;
        this.sink = sink;
    }

    /** FIN, and from now on only the client's bytes are watched, to be dropped; false: already reset, close it. */
    boolean begin(Connection c, long now) {
        try {
            Sockets.shutdownWrite(c.fd);
        } catch (NativeException e) {
            return false;
        }
        c.lingering = true;
        c.lingerEnd = now + LINGER_NANOS;
        c.lingerIdleEnd = now + LINGER_IDLE_NANOS;
        c.watch(epoll, Epoll.IN);
        return true;
    }

    /** Reads and drops what the client sent; true when the lingering is over (EOF, the byte cap, an error): close it. */
    boolean discard(Connection c, long now) {
        try {
            for (int k = 0; k < ConnectionIo.READS_PER_EVENT; k++) {
                int n = Fds.read(c.fd, sink.address(), sink.size());
                if (n < 0) {
                    return false;
                }
                c.lingerBytes += n;
                if (n == 0 || c.lingerBytes > LINGER_MAX_BYTES) {
                    return true;
                }
                c.lingerIdleEnd = now + LINGER_IDLE_NANOS;
            }
            return false;
        } catch (NativeException e) {
            return true;
        }
    }

    /** When a lingering connection is closed at the latest: its idle bound or its whole bound. */
    static long deadline(Connection c) {
        return c.lingerEnd - c.lingerIdleEnd < 0 ? c.lingerEnd : c.lingerIdleEnd;
    }
}
