package m0.server.jnr;

/** Descriptor flags and closing. Every descriptor m0serve creates or adopts is close-on-exec. */
public final class Fds {

    private Fds() {
    }

    /** Closes {@code fd}; errors are ignored (Linux frees the descriptor even on EINTR). */
    public static void close(int fd) {
        if (fd >= 0) {
            Native.libc().close(fd);
        }
    }

    private static final int RLIMIT_NOFILE = 7;

    /**
     * The soft RLIMIT_NOFILE: one more than the highest descriptor number this process may
     * open. {@code Long.MAX_VALUE} when unlimited.
     */
    public static long openFileLimit() {
        Memory rlimit = new Memory(16); // struct rlimit { rlim_t cur, max; }; once per life
        Native.check("getrlimit(RLIMIT_NOFILE)", Native.libc().getrlimit(RLIMIT_NOFILE, rlimit.address()));
        long cur = rlimit.buffer().getLong(0);
        return cur < 0 ? Long.MAX_VALUE : cur; // RLIM_INFINITY is all ones
    }

    /** Descriptors this process holds now (counted in /proc/self/fd). */
    public static int openCount() {
        java.io.File[] fds = new java.io.File("/proc/self/fd").listFiles();
        return fds == null ? 0 : fds.length;
    }

    /** Sets FD_CLOEXEC: for descriptors inherited across exec, which dup2 made inheritable. */
    public static void setCloseOnExec(int fd) {
        Native.check("fcntl(" + fd + ", F_SETFD, FD_CLOEXEC)", Native.libc().fcntl(fd, Native.F_SETFD, Native.FD_CLOEXEC));
    }

    /** Sets O_NONBLOCK (on the open file: shared by every process holding it). */
    public static void setNonBlocking(int fd) {
        LibC c = Native.libc();
        int flags = Native.check("fcntl(" + fd + ", F_GETFL)", c.fcntl(fd, Native.F_GETFL, 0));
        if ((flags & Native.O_NONBLOCK) == 0) {
            Native.check("fcntl(" + fd + ", F_SETFL)", c.fcntl(fd, Native.F_SETFL, flags | Native.O_NONBLOCK));
        }
    }

    /** A close-on-exec duplicate of {@code fd} numbered {@code minFd} or above. */
    public static int dupAtLeast(int fd, int minFd) {
        return Native.check("fcntl(" + fd + ", F_DUPFD_CLOEXEC, " + minFd + ")",
                Native.libc().fcntl(fd, Native.F_DUPFD_CLOEXEC, minFd));
    }

    /** A non-blocking, close-on-exec memfd (the shared page's backing file). */
    public static int memfd(String name) {
        return Native.check("memfd_create(" + name + ")", Native.libc().memfd_create(name, Native.MFD_CLOEXEC));
    }

    /**
     * One read into native memory.
     *
     * @return bytes read, 0 at end of stream, -1 when nothing is available (EAGAIN)
     * @throws NativeException on any other error (ECONNRESET, ...)
     */
    public static int read(int fd, long address, int length) {
        for (;;) {
            long n = Native.libc().read(fd, address, length);
            if (n >= 0) {
                return (int) n;
            }
            int errno = Native.errno();
            if (errno == Native.EAGAIN) {
                return -1;
            }
            if (errno != Native.EINTR) {
                throw new NativeException("read(" + fd + ")", errno);
            }
        }
    }

    /**
     * One write from native memory.
     *
     * @return bytes written (possibly fewer than asked), or -1 when the socket is full (EAGAIN)
     * @throws NativeException on any other error (EPIPE, ECONNRESET, ...)
     */
    public static int write(int fd, long address, int length) {
        for (;;) {
            long n = Native.libc().write(fd, address, length);
            if (n >= 0) {
                return (int) n;
            }
            int errno = Native.errno();
            if (errno == Native.EAGAIN) {
                return -1;
            }
            if (errno != Native.EINTR) {
                throw new NativeException("write(" + fd + ")", errno);
            }
        }
    }

    /**
     * One gathering write of {@code count} iovecs (16 bytes each: base@0, len@8) at {@code iov};
     * see {@link IoVecs}.
     *
     * @return bytes written, or -1 at EAGAIN
     */
    public static long writev(int fd, long iov, int count) {
        for (;;) {
            long n = Native.libc().writev(fd, iov, count);
            if (n >= 0) {
                return n;
            }
            int errno = Native.errno();
            if (errno == Native.EAGAIN) {
                return -1;
            }
            if (errno != Native.EINTR) {
                throw new NativeException("writev(" + fd + ")", errno);
            }
        }
    }
}
