package m0.server.jnr;

/**
 * accept4 on one listener with a preallocated sockaddr buffer. One per worker loop (not
 * thread-safe). Accepted sockets are non-blocking and close-on-exec from birth.
 */
public final class Acceptor {

    private final int listener;
    private final Memory addr = new Memory(Sockets.SOCKADDR_MAX + 8);
    /** One {@code struct pollfd} for {@link #pending()}: fd@0 (int), events@4, revents@6 (short). */
    private final Memory pollFd = new Memory(8);

    private static final short POLLIN = 0x001;

    public Acceptor(int listener) {
        this.listener = listener;
    }

    public int listener() {
        return listener;
    }

    /**
     * Accepts one connection.
     *
     * @return the new descriptor, or -1 when the backlog is empty (EAGAIN); transient
     *         per-connection errors (ECONNABORTED, EMFILE...) are thrown for the caller to log
     */
    public int accept() {
        addr.buffer().putInt(Sockets.SOCKADDR_MAX, Sockets.SOCKADDR_MAX);
        for (;;) {
            int fd = Native.libc().accept4(listener, addr.address(), addr.address(Sockets.SOCKADDR_MAX),
                    Native.SOCK_NONBLOCK | Native.SOCK_CLOEXEC);
            if (fd >= 0) {
                return fd;
            }
            int errno = Native.errno();
            if (errno == Native.EAGAIN) {
                return -1;
            }
            if (errno != Native.EINTR) {
                throw new NativeException("accept4(" + listener + ")", errno);
            }
        }
    }

    /**
     * True when a connection waits in the backlog: a zero-timeout poll(2) of the listener, for
     * a loop that keeps the listener out of its epoll set and looks at it now and then.
     */
    public boolean pending() {
        java.nio.ByteBuffer b = pollFd.buffer();
        b.putInt(0, listener);
        b.putShort(4, POLLIN);
        b.putShort(6, (short) 0);
        int n = Native.libc().poll(pollFd.address(), 1, 0);
        return n > 0 && (b.getShort(6) & POLLIN) != 0; // EINTR or an error: not now; the next look asks again
    }

    /** The peer sockaddr of the last accepted connection (its raw bytes, for a hand-off's payload). */
    public byte[] lastPeer() {
        int len = Math.min(addr.buffer().getInt(Sockets.SOCKADDR_MAX), Sockets.SOCKADDR_MAX);
        byte[] peer = new byte[len];
        addr.buffer().get(0, peer);
        return peer;
    }
}
