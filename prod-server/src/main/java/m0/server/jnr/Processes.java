package m0.server.jnr;

/** waitpid, kill, pidfd_open and the parent-death signal: how the supervisor and its workers watch each other. */
public final class Processes {

    public static final int SIGHUP = 1;
    public static final int SIGKILL = 9;
    public static final int SIGUSR1 = 10;
    public static final int SIGTERM = 15;
    public static final int SIGSTOP = 19;
    public static final int SIGCONT = 18;

    private static final long SIG_DFL = 0;
    private static final long SIG_ERR = -1;

    private static final int PR_SET_PDEATHSIG = 1;

    static final int WNOHANG = 1;
    static final int WUNTRACED = 2;
    static final int WCONTINUED = 8;

    private static final ThreadLocal<Memory> STATUS = ThreadLocal.withInitial(() -> new Memory(8));

    private Processes() {
    }

    /** What waitpid reported for one child. */
    public record WaitStatus(int pid, int raw) {
        public boolean exited() {
            return (raw & 0x7f) == 0;
        }

        public int exitCode() {
            return (raw >> 8) & 0xff;
        }

        public boolean signaled() {
            int sig = raw & 0x7f;
            return sig != 0 && sig != 0x7f;
        }

        public int termSignal() {
            return raw & 0x7f;
        }

        public boolean stopped() {
            return (raw & 0xff) == 0x7f;
        }

        public boolean continued() {
            return raw == 0xffff;
        }

        /** Exited or killed: the pid is gone. */
        public boolean dead() {
            return exited() || signaled();
        }

        @Override
        public String toString() {
            if (exited()) {
                return "exit " + exitCode();
            }
            if (signaled()) {
                return "signal " + termSignal();
            }
            if (stopped()) {
                return "stopped by " + ((raw >> 8) & 0xff);
            }
            return continued() ? "continued" : "status " + raw;
        }
    }

    /**
     * Non-blocking waitpid of exactly {@code pid} (never -1: that steals the status of any
     * child, ProcessBuilder's included), reporting exits, kills, stops and continues.
     *
     * @return the status, or null when {@code pid} has nothing to report
     */
    public static WaitStatus poll(int pid) {
        if (pid <= 0) {
            throw new IllegalArgumentException("waitpid needs one pid: " + pid);
        }
        Memory m = STATUS.get();
        for (;;) {
            int r = Native.libc().waitpid(pid, m.address(), WNOHANG | WUNTRACED | WCONTINUED);
            if (r > 0) {
                return new WaitStatus(r, m.buffer().getInt(0));
            }
            if (r == 0) {
                return null;
            }
            int errno = Native.errno();
            if (errno != Native.EINTR) {
                throw new NativeException("waitpid(" + pid + ")", errno);
            }
        }
    }

    /** Sends {@code signal} to {@code pid}; false when it no longer exists. */
    /**
     * Sets {@code signal}'s disposition back to the default. A parent that ignores a signal
     * ({@code nohup} ignores HUP, a non-interactive shell's {@code &} ignores INT and QUIT)
     * passes SIG_IGN on through exec, and the JVM will not install a handler over an inherited
     * SIG_IGN: {@code sun.misc.Signal.handle} then returns quietly and the signal stays lost.
     * nginx, too, installs its handlers whatever it inherited.
     */
    public static void resetToDefault(int signal) {
        if (Native.libc().signal(signal, SIG_DFL) == SIG_ERR) {
            throw new NativeException("signal(" + signal + ", SIG_DFL)", Native.errno());
        }
    }

    public static boolean kill(int pid, int signal) {
        if (pid <= 0) {
            throw new IllegalArgumentException("kill needs one pid: " + pid);
        }
        return Native.libc().kill(pid, signal) == 0;
    }

    /** A pidfd for {@code pid} (close-on-exec by the kernel): readable once the process exits. */
    public static int pidfdOpen(int pid) {
        long fd = Native.libc().syscall(Native.SYS_PIDFD_OPEN, pid, 0);
        if (fd < 0) {
            throw Native.fail("pidfd_open(" + pid + ")");
        }
        return (int) fd;
    }

    /**
     * Asks the kernel to send {@code signal} to this process when its parent dies (prctl
     * PR_SET_PDEATHSIG, any kernel): a worker's watch of its supervisor where there is no pidfd
     * (docs/adr/0060). The parent is the thread that spawned us, and it dies with the process:
     * the supervisor spawns from its loop thread only. A parent already gone is not signalled:
     * check {@link Native#getppid()} after.
     */
    public static void signalWhenParentDies(int signal) {
        if (Native.libc().prctl(PR_SET_PDEATHSIG, signal) != 0) {
            throw Native.fail("prctl(PR_SET_PDEATHSIG, " + signal + ")");
        }
    }
}
