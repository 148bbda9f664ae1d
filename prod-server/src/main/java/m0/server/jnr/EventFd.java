package m0.server.jnr;

/**
 * A non-blocking, close-on-exec eventfd: a wake-up any thread may {@link #signal()} (a pool
 * thread with a finished response, a signal handler) and the loop that owns it
 * {@link #drain()}s when epoll reports it readable.
 */
public final class EventFd implements AutoCloseable {

    /** The 8-byte counter increment; constant, so shared by every signalling thread. */
    private static final Memory ONE = new Memory(8);

    static {
        ONE.buffer().putLong(0, 1L);
    }

    private final int fd;
    private final Memory drained = new Memory(8);

    public EventFd() {
        this.fd = Native.check("eventfd(EFD_NONBLOCK|EFD_CLOEXEC)",
                Native.libc().eventfd(0, Native.EFD_NONBLOCK | Native.EFD_CLOEXEC));
    }

    public int fd() {
        return fd;
    }

    /** Wakes the loop. Thread-safe; a full counter (EAGAIN) already means "awake". */
    public void signal() {
        Native.libc().write(fd, ONE.address(), 8);
    }

    /** Resets the counter; the loop thread only. */
    public void drain() {
        Native.libc().read(fd, drained.address(), 8);
    }

    @Override
    public void close() {
        Fds.close(fd);
    }
}
