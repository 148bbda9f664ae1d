package m0.server.jnr;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.ref.Reference;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.stream.IntStream;
import java.util.stream.Stream;

/**
 * sched_getaffinity and sched_setaffinity: the CPUs this process may run on, and one thread of
 * a worker (its loop) set to a CPU. Only the loop thread is pinned (docs/adr/0070): pinning the
 * whole process (ADR 0058's first form) confined an app's own thread pools, an inference
 * runtime's among them, to that one CPU.
 */
public final class CpuAffinity {

    /** A cpu_set_t of 1024 CPUs, glibc's CPU_SETSIZE: 16 longs. */
    private static final int MASK_BYTES = 128;
    private static final int CPUS = 8 * MASK_BYTES;

    private CpuAffinity() {
    }

    /** The CPUs the calling thread may run on, ascending. */
    public static int[] allowed() {
        Memory mask = new Memory(MASK_BYTES);
        Native.check("sched_getaffinity", Native.libc().sched_getaffinity(0, MASK_BYTES, mask.address()));
        return IntStream.range(0, CPUS)
                .filter(cpu -> (mask.buffer().getLong(8 * (cpu / 64)) & (1L << (cpu % 64))) != 0)
                .toArray();
    }

    /**
     * Sets the threads of {@code pid} named {@code loopName} (their comm) to run on {@code cpus}
     * only; the others keep their masks. A thread made afterwards by a pinned one inherits its
     * mask (the worker makes its pool before it names its loop: docs/adr/0070), and a native
     * thread inherits its name too. A thread that ends meanwhile is skipped.
     *
     * @return how many threads were set
     * @throws NativeException none of that name could be set (not named yet, or the process is gone)
     * @throws UncheckedIOException the process's threads cannot be listed
     */
    public static int pinLoop(int pid, String loopName, int[] cpus) {
        Memory mask = mask(cpus);
        LibC c = Native.libc();
        int set = 0;
        int errno = 0;
        for (int tid : threads(pid)) {
            if (!loopName.equals(comm(pid, tid))) {
                continue; // another thread, or one that ended
            }
            if (c.sched_setaffinity(tid, MASK_BYTES, mask.address()) == 0) {
                set++;
            } else {
                errno = Native.errno();
            }
        }
        Reference.reachabilityFence(mask);
        if (set == 0) {
            throw new NativeException("sched_setaffinity(pid " + pid + "'s " + loopName + " thread)",
                    errno == 0 ? 3 /* ESRCH: no such thread yet */ : errno);
        }
        return set;
    }

    private static Memory mask(int[] cpus) {
        Memory mask = new Memory(MASK_BYTES);
        for (int cpu : cpus) {
            if (cpu >= 0 && cpu < CPUS) {
                mask.buffer().putLong(8 * (cpu / 64), mask.buffer().getLong(8 * (cpu / 64)) | (1L << (cpu % 64)));
            }
        }
        return mask;
    }

    /** The thread's name as the kernel keeps it, or null when it has ended. */
    private static String comm(int pid, int tid) {
        try {
            return Files.readString(Path.of("/proc/" + pid + "/task/" + tid + "/comm")).trim();
        } catch (IOException e) {
            return null;
        }
    }

    /** @throws UncheckedIOException the list cannot be read (the process is gone, or /proc refuses) */
    private static int[] threads(int pid) {
        try (Stream<Path> tasks = Files.list(Path.of("/proc/" + pid + "/task"))) {
            return tasks.mapToInt(t -> Integer.parseInt(t.getFileName().toString())).toArray();
        } catch (IOException e) {
            throw new UncheckedIOException("threads of pid " + pid, e);
        }
    }
}
