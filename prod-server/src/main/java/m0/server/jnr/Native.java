package m0.server.jnr;

import com.kenai.jffi.LastError;
import jnr.constants.platform.Errno;

/**
 * The one libc binding, its errno, and the Linux x86_64 constants the wrappers use.
 * Constants are written out (checked against the kernel and glibc headers) rather than looked up:
 * they are ABI, and a lookup that silently returns a sentinel is worse than a literal.
 */
public final class Native {

    // errno values the callers branch on.
    public static final int EINTR = 4;
    public static final int EAGAIN = 11;
    public static final int EIO = 5;
    public static final int ECHILD = 10;
    public static final int ENOBUFS = 105;
    public static final int ECONNREFUSED = 111;
    public static final int EADDRINUSE = 98;
    /** The process is out of descriptors (RLIMIT_NOFILE). */
    public static final int EMFILE = 24;
    /** The system is out of open files. */
    public static final int ENFILE = 23;

    static final int AF_UNIX = 1;
    static final int AF_INET = 2;
    static final int AF_INET6 = 10;
    static final int SOCK_STREAM = 1;
    static final int SOCK_DGRAM = 2;
    static final int SOCK_NONBLOCK = 0x800;
    static final int SOCK_CLOEXEC = 0x80000;
    static final int SOL_SOCKET = 1;
    static final int SO_REUSEADDR = 2;
    static final int SO_SNDBUF = 7;
    static final int SO_RCVBUF = 8;
    static final int SO_TYPE = 3;
    static final int SO_ACCEPTCONN = 30;
    static final int SO_DOMAIN = 39;
    static final int SO_INCOMING_CPU = 49;
    static final int CLOCK_MONOTONIC = 1;
    static final int IPPROTO_TCP = 6;
    static final int TCP_NODELAY = 1;
    static final int TCP_DEFER_ACCEPT = 9;
    static final int SCM_RIGHTS = 1;
    static final int MSG_CTRUNC = 0x8;
    static final int MSG_TRUNC = 0x20;
    static final int MSG_DONTWAIT = 0x40;
    static final int MSG_NOSIGNAL = 0x4000;
    static final int MSG_CMSG_CLOEXEC = 0x40000000;
    static final int F_SETFD = 2;
    static final int F_GETFL = 3;
    static final int F_SETFL = 4;
    static final int F_DUPFD_CLOEXEC = 1030;
    static final int FD_CLOEXEC = 1;
    static final int O_NONBLOCK = 0x800;
    static final int EFD_NONBLOCK = 0x800;
    static final int EFD_CLOEXEC = 0x80000;
    static final int EPOLL_CLOEXEC = 0x80000;
    static final int MFD_CLOEXEC = 1;
    static final long SYS_PIDFD_OPEN = 434;
    static final short POSIX_SPAWN_SETSIGDEF = 0x04;
    static final short POSIX_SPAWN_SETSIGMASK = 0x08;

    private static final LibC LIBC;
    private static final LastError LAST_ERROR;

    static {
        LIBC = new LibC();
        LAST_ERROR = LastError.getInstance();
    }

    private Native() {
    }

    static LibC libc() {
        return LIBC;
    }

    /** The errno the last call on this thread saved. */
    public static int errno() {
        return LAST_ERROR.get();
    }

    /** The exception for a call that just failed, with this thread's errno. */
    static NativeException fail(String call) {
        return new NativeException(call, errno());
    }

    /** Throws for a negative result, else returns it. */
    static int check(String call, int result) {
        if (result < 0) {
            throw fail(call);
        }
        return result;
    }

    public static String errnoName(int errno) {
        Errno e = Errno.valueOf(errno);
        return e == null || e == Errno.__UNKNOWN_CONSTANT__ ? "errno " + errno : e.name();
    }

    static String strerror(int errno) {
        String s = LIBC.strerror(errno);
        return s == null ? "unknown" : s;
    }

    public static int getpid() {
        return LIBC.getpid();
    }

    public static int getppid() {
        return LIBC.getppid();
    }
}
