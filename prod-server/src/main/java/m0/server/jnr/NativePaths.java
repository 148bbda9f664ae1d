package m0.server.jnr;

import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Which way each call newer than the floor goes (glibc 2.28, Linux 4.18, x86_64; docs/adr/0060),
 * looked up once at start, before the first {@link Epoll}, spawn or watch:
 * <ul>
 *   <li>wait: {@code epoll_pwait2} (glibc 2.35, Linux 5.11), its nanosecond timeout, else
 *       {@code epoll_wait} with the timeout rounded up to whole milliseconds;</li>
 *   <li>close: {@code posix_spawn_file_actions_addclosefrom_np} (glibc 2.34), else one
 *       {@code addclose} action per descriptor number from the first not inherited to the
 *       highest open one and a margin ({@link Spawn});</li>
 *   <li>reap: {@code pidfd_open} (Linux 5.3): a supervisor watches its workers with pidfds and a
 *       worker its supervisor; else the supervisor polls {@code waitpid} of each worker when
 *       SIGCHLD wakes it and a worker asks the kernel for SIGTERM when its parent dies
 *       ({@code PR_SET_PDEATHSIG});</li>
 *   <li>io_uring (Linux 6.1 for the ring m0 sets up) already falls back to write(2) on its own
 *       ({@code RingSends}); it can be forced here too.</li>
 * </ul>
 * A developer can force each fallback on a machine that has the new call (the hidden
 * {@code --dev-native-fallbacks}, passed on to the workers by the launch contract): no environment
 * variable steers this.
 */
public final class NativePaths {

    public static final String PWAIT2 = "epoll_pwait2";
    public static final String CLOSEFROM = "closefrom";
    public static final String PIDFD = "pidfd";
    public static final String IO_URING = "io_uring";
    /** TLS on the JDK's SSLEngine rather than BoringSSL (docs/adr/0073): the worker checks it. */
    public static final String BORINGSSL = "boringssl";
    /** The fallbacks {@code --dev-native-fallbacks} may force, by name. */
    public static final List<String> NAMES = List.of(PWAIT2, CLOSEFROM, PIDFD, IO_URING, BORINGSSL);

    private static final int EBADF = 9;

    private static volatile NativePaths chosen;

    private final boolean pwait2;
    private final boolean closefrom;
    private final boolean pidfd;
    private final boolean ioUring;
    private final Set<String> forced;

    private NativePaths(boolean pwait2, boolean closefrom, boolean pidfd, boolean ioUring, Set<String> forced) {
        this.pwait2 = pwait2;
        this.closefrom = closefrom;
        this.pidfd = pidfd;
        this.ioUring = ioUring;
        this.forced = forced;
    }

    /**
     * Looks each new call up (the symbol, then a harmless call where a kernel may lack it) and
     * takes the fallback where it is missing or {@code forced} names it; this process's choice
     * from now on.
     */
    public static synchronized NativePaths choose(Set<String> forced) {
        Set<String> f = java.util.Collections.unmodifiableSet(new LinkedHashSet<>(forced)); // in the order given
        NativePaths p = new NativePaths(!f.contains(PWAIT2) && pwait2Works(), !f.contains(CLOSEFROM)
                && LibC.hasAddClosefrom(), !f.contains(PIDFD) && pidfdWorks(), !f.contains(IO_URING), f);
        chosen = p;
        return p;
    }

    /** The choice made at start, or one made now with nothing forced. */
    public static NativePaths current() {
        NativePaths p = chosen;
        return p != null ? p : choose(Set.of());
    }

    /**
     * {@code --dev-native-fallbacks}' value: names from {@link #NAMES}, comma-separated; "" is none.
     *
     * @throws IllegalArgumentException naming what is not one of them
     */
    public static Set<String> parse(String names) {
        Set<String> out = new LinkedHashSet<>();
        for (String n : names.split(",")) {
            String name = n.trim();
            if (name.isEmpty()) {
                continue;
            }
            if (!NAMES.contains(name)) {
                throw new IllegalArgumentException("not a native fallback: '" + name + "' (one of " + NAMES + ")");
            }
            out.add(name);
        }
        return out;
    }

    /** epoll_pwait2 waits, to the nanosecond; else epoll_wait, to the millisecond. */
    public boolean pwait2() {
        return pwait2;
    }

    /** A spawn closes what it does not pass with addclosefrom_np; else with a bounded list of closes. */
    public boolean closefrom() {
        return closefrom;
    }

    /** Processes are watched with pidfds; else with SIGCHLD and waitpid (a worker: the parent-death signal). */
    public boolean pidfd() {
        return pidfd;
    }

    /** io_uring may be tried for the sends (it may still fail and fall back by itself). */
    public boolean ioUring() {
        return ioUring;
    }

    /** BoringSSL may be tried for TLS (it may still not load, and the JDK's engine serves). */
    public boolean boringssl() {
        return !forced.contains(BORINGSSL);
    }

    /** What was forced, comma-separated ("" for nothing): passed on to the workers as it came. */
    public String forced() {
        return String.join(",", forced);
    }

    /** The paths taken, for the start-up lines: {@code wait=epoll_pwait2 close=closefrom_np reap=pidfd}. */
    public String describe() {
        return "wait=" + (pwait2 ? "epoll_pwait2" : "epoll_wait") + " close=" + (closefrom ? "closefrom_np" : "loop")
                + " reap=" + (pidfd ? "pidfd" : "sigchld");
    }

    /** A worker's paths, for its warm-up line: {@code wait=epoll_pwait2 watch=pidfd} (or epoll_wait, pdeathsig). */
    public String describeWorker() {
        return "wait=" + (pwait2 ? "epoll_pwait2" : "epoll_wait") + " watch=" + (pidfd ? "pidfd" : "pdeathsig");
    }

    /**
     * The glibc wrapper exists where glibc is 2.35 or later, but the kernel's call only from 5.11:
     * on a bad descriptor a kernel that has it says EBADF, one that lacks it ENOSYS (a seccomp
     * filter may say EPERM): only EBADF is taken as working.
     */
    private static boolean pwait2Works() {
        if (!LibC.hasEpollPwait2()) {
            return false;
        }
        Memory m = new Memory(32); // one 12-byte event, a zero timespec at 16
        int r = Native.libc().epoll_pwait2(-1, m.address(), 1, m.address(16), 0, 8);
        boolean works = r < 0 && Native.errno() == EBADF;
        java.lang.ref.Reference.reachabilityFence(m);
        return works;
    }

    /** pidfd_open of this process: a descriptor (closed again) where the kernel has it (5.3). */
    private static boolean pidfdWorks() {
        long fd = Native.libc().syscall(Native.SYS_PIDFD_OPEN, Native.getpid(), 0);
        if (fd < 0) {
            return false;
        }
        Fds.close((int) fd);
        return true;
    }
}
