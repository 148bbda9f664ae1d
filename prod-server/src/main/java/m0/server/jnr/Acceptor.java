package m0.server.jnr;

/**
 * accept4 on one listener with a preallocated sockaddr buffer. One per worker loop (not
 * thread-safe). Accepted sockets are non-blocking and close-on-exec from birth.
 */
public final class Acceptor {

    private final int listener;
    private final Memory addr = new Memory(Sockets.SOCKADDR_MAX + 8);

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

    /** The peer sockaddr of the last accepted connection (its raw bytes, for a hand-off's payload). */
    public byte[] lastPeer() {
        int len = Math.min(addr.buffer().getInt(Sockets.SOCKADDR_MAX), Sockets.SOCKADDR_MAX);
        byte[] peer = new byte[len];
        addr.buffer().get(0, peer);
        return peer;
    }
}
