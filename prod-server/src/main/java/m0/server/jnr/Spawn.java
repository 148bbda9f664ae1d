package m0.server.jnr;

import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * posix_spawnp with exactly the descriptors a child needs. {@code inherit[k]} becomes the
 * child's descriptor {@code 3 + k} (file action adddup2, which also clears close-on-exec on the
 * copy), and {@code addclosefrom_np(3 + inherit.length)} closes everything else: the JVM's jar,
 * random-device and socket descriptors are NOT close-on-exec. Where glibc lacks addclosefrom_np
 * (before 2.34; {@link NativePaths}), one {@code addclose} action per number from there up to
 * the highest descriptor open now and {@link #CLOSE_MARGIN} more does it (docs/adr/0060): a
 * descriptor another thread opens meanwhile takes the lowest free number, so it lands in that
 * range unless more than the margin are opened in the window. The child starts with an empty
 * signal mask and every signal at its default disposition (a JVM ignores some).
 * ({@code ProcessBuilder} cannot do this: it closes every descriptor above 2.)
 */
public final class Spawn {

    /** glibc x86_64: posix_spawn_file_actions_t is 80 bytes, posix_spawnattr_t 336, sigset_t 128. */
    private static final int FILE_ACTIONS_BYTES = 128;
    private static final int ATTR_BYTES = 512;
    private static final int SIGSET_BYTES = 128;
    /**
     * Numbers closed past the highest open descriptor on the close-loop path: room for what other
     * threads (the metrics server's accepts) open between the look at /proc/self/fd and the spawn.
     */
    static final int CLOSE_MARGIN = 64;

    private Spawn() {
    }

    /**
     * Starts {@code argv[0]} (searched on PATH) with {@code argv} and {@code env} ("K=V").
     *
     * @return the child's pid
     * @throws NativeException naming posix_spawnp and the errno it returned
     */
    public static int spawn(List<String> argv, List<String> env, int[] inherit) {
        return spawn(argv, env, inherit, NativePaths.current().closefrom());
    }

    /** {@link #spawn(List, List, int[])}, closing the rest with addclosefrom_np or, if not {@code closefrom}, the loop. */
    static int spawn(List<String> argv, List<String> env, int[] inherit, boolean closefrom) {
        int first = 3;
        int end = first + inherit.length;
        // A source inside the target range would be overwritten by an earlier dup2: move it out.
        int[] sources = inherit.clone();
        int[] moved = new int[inherit.length];
        java.util.Arrays.fill(moved, -1);
        for (int k = 0; k < sources.length; k++) {
            if (sources[k] >= first && sources[k] < end) {
                moved[k] = Fds.dupAtLeast(sources[k], end);
                sources[k] = moved[k];
            }
        }
        LibC c = Native.libc();
        Memory actions = new Memory(FILE_ACTIONS_BYTES);
        Memory attr = new Memory(ATTR_BYTES);
        Memory sigs = new Memory(2 * SIGSET_BYTES + 8);
        long empty = sigs.address();
        long full = sigs.address(SIGSET_BYTES);
        long pidPtr = sigs.address(2 * SIGSET_BYTES);
        try {
            spawnCheck("posix_spawn_file_actions_init", c.posix_spawn_file_actions_init(actions.address()));
            spawnCheck("posix_spawnattr_init", c.posix_spawnattr_init(attr.address()));
            try {
                for (int k = 0; k < sources.length; k++) {
                    spawnCheck("posix_spawn_file_actions_adddup2(" + sources[k] + ", " + (first + k) + ")",
                            c.posix_spawn_file_actions_adddup2(actions.address(), sources[k], first + k));
                }
                if (closefrom) {
                    spawnCheck("posix_spawn_file_actions_addclosefrom_np(" + end + ")",
                            c.posix_spawn_file_actions_addclosefrom_np(actions.address(), end));
                } else {
                    closeEach(c, actions.address(), end);
                }
                c.sigemptyset(empty);
                c.sigfillset(full);
                spawnCheck("posix_spawnattr_setsigmask", c.posix_spawnattr_setsigmask(attr.address(), empty));
                spawnCheck("posix_spawnattr_setsigdefault", c.posix_spawnattr_setsigdefault(attr.address(), full));
                spawnCheck("posix_spawnattr_setflags", c.posix_spawnattr_setflags(attr.address(),
                        (short) (Native.POSIX_SPAWN_SETSIGMASK | Native.POSIX_SPAWN_SETSIGDEF)));
                Memory strings = strings(argv, env);
                int argc = argv.size();
                long argvPtr = strings.address();
                long envPtr = strings.address(8 * (argc + 1));
                try {
                    spawnCheck("posix_spawnp(" + argv.get(0) + ")",
                            c.posix_spawnp(pidPtr, argv.get(0), actions.address(), attr.address(), argvPtr, envPtr));
                } finally {
                    Reference.reachabilityFence(strings); // only its address was passed: keep its buffer
                }
                return sigs.buffer().getInt(2 * SIGSET_BYTES);
            } finally {
                c.posix_spawn_file_actions_destroy(actions.address());
                c.posix_spawnattr_destroy(attr.address());
            }
        } finally {
            for (int fd : moved) {
                Fds.close(fd);
            }
        }
    }

    /**
     * The close loop: {@code addclose} of every number from {@code from} to the highest open
     * descriptor plus {@link #CLOSE_MARGIN}, below RLIMIT_NOFILE (the child ignores a close of a
     * number that is not open; glibc checks only the range).
     */
    private static void closeEach(LibC c, long actions, int from) {
        long last = Math.min(highestOpen() + (long) CLOSE_MARGIN, Fds.openFileLimit() - 1);
        for (long fd = from; fd <= last; fd++) {
            spawnCheck("posix_spawn_file_actions_addclose(" + fd + ")",
                    c.posix_spawn_file_actions_addclose(actions, (int) fd));
        }
    }

    /** The highest descriptor number this process holds now (from /proc/self/fd). */
    static int highestOpen() {
        String[] names = new java.io.File("/proc/self/fd").list();
        if (names == null) {
            throw new IllegalStateException("/proc/self/fd cannot be read: the descriptors to close are unknown");
        }
        int highest = 2;
        for (String n : names) {
            highest = Math.max(highest, Integer.parseInt(n));
        }
        return highest;
    }

    /** posix_spawn* return the error number instead of setting errno. */
    private static void spawnCheck(String call, int result) {
        if (result != 0) {
            throw new NativeException(call, result);
        }
    }

    /** Two NULL-terminated pointer arrays (argv, then envp) followed by the strings they point to. */
    private static Memory strings(List<String> argv, List<String> env) {
        int pointers = argv.size() + 1 + env.size() + 1;
        byte[][] raw = new byte[argv.size() + env.size()][];
        int bytes = 8 * pointers;
        for (int i = 0; i < raw.length; i++) {
            String s = i < argv.size() ? argv.get(i) : env.get(i - argv.size());
            raw[i] = s.getBytes(StandardCharsets.UTF_8);
            bytes += raw[i].length + 1;
        }
        Memory m = new Memory(bytes);
        ByteBuffer b = m.buffer();
        int slot = 0;
        int at = 8 * pointers;
        for (int i = 0; i < raw.length; i++) {
            if (i == argv.size()) {
                b.putLong(8 * slot++, 0L); // argv's NULL
            }
            b.putLong(8 * slot++, m.address(at));
            b.put(at, raw[i]);
            b.put(at + raw[i].length, (byte) 0);
            at += raw[i].length + 1;
        }
        if (env.isEmpty()) {
            b.putLong(8 * slot++, 0L);
        }
        b.putLong(8 * slot, 0L); // envp's NULL
        return m;
    }
}
