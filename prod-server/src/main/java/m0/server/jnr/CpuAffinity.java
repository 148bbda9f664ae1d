package m0.server.jnr;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.ref.Reference;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.function.Consumer;
import java.util.function.IntSupplier;
import java.util.stream.IntStream;
import java.util.stream.Stream;

/**
 * sched_getaffinity and sched_setaffinity on the calling thread: the CPUs this process may run
 * on, and a child started on one of them. A child inherits the mask of the thread that forks
 * it, so pinning the spawning thread for the length of one spawn pins every thread the child's
 * JVM will ever make, with no window in which one runs elsewhere (pinning the child's pid
 * afterwards would reach only its first thread, and only once it already runs).
 */
public final class CpuAffinity {

    /** A cpu_set_t of 1024 CPUs, glibc's CPU_SETSIZE: 16 longs. */
    private static final int MASK_BYTES = 128;
    private static final int CPUS = 8 * MASK_BYTES;
    private static final int EINVAL = 22;

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
     * Runs {@code spawn} with the calling thread pinned to {@code cpu}, then gives the thread its
     * mask back. A thread that cannot be pinned ({@code cpu} no longer allowed: EINVAL) is told to
     * {@code trouble} and runs {@code spawn} as it is: a worker on any CPU beats no worker. A mask
     * that cannot be given back (the CPU set changed under us) is told there too; the supervisor's
     * thread then stays on one CPU, slower but serving.
     */
    public static int onCpu(int cpu, IntSupplier spawn, Consumer<NativeException> trouble) {
        LibC c = Native.libc();
        Memory was = new Memory(MASK_BYTES);
        Memory one = new Memory(MASK_BYTES);
        boolean pinned = false;
        if (cpu < 0 || cpu >= CPUS) {
            trouble.accept(new NativeException("sched_setaffinity(CPU " + cpu + ")", EINVAL));
        } else if (c.sched_getaffinity(0, MASK_BYTES, was.address()) < 0) {
            trouble.accept(Native.fail("sched_getaffinity"));
        } else {
            one.buffer().putLong(8 * (cpu / 64), 1L << (cpu % 64));
            pinned = c.sched_setaffinity(0, MASK_BYTES, one.address()) == 0;
            Reference.reachabilityFence(one); // only its address was passed
            if (!pinned) {
                trouble.accept(Native.fail("sched_setaffinity(CPU " + cpu + ")"));
            }
        }
        try {
            return spawn.getAsInt();
        } finally {
            if (pinned && c.sched_setaffinity(0, MASK_BYTES, was.address()) < 0) {
                trouble.accept(Native.fail("sched_setaffinity(the supervisor's own mask back)"));
            }
            Reference.reachabilityFence(was);
        }
    }

    /**
     * Sets every thread of the running process {@code pid} to run on {@code cpus} only (they
     * inherit it from there: a thread made afterwards gets its maker's mask). A thread made
     * while the list is walked may keep the old mask, so the walk is made twice; a thread that
     * ends meanwhile is skipped.
     *
     * @throws NativeException no thread could be set
     * @throws UncheckedIOException the process's threads cannot be listed
     */
    public static void pinProcess(int pid, int[] cpus) {
        Memory mask = new Memory(MASK_BYTES);
        for (int cpu : cpus) {
            if (cpu >= 0 && cpu < CPUS) {
                mask.buffer().putLong(8 * (cpu / 64), mask.buffer().getLong(8 * (cpu / 64)) | (1L << (cpu % 64)));
            }
        }
        LibC c = Native.libc();
        for (int walk = 0; walk < 2; walk++) {
            int set = 0;
            int errno = 0;
            for (int tid : threads(pid)) {
                if (c.sched_setaffinity(tid, MASK_BYTES, mask.address()) == 0) {
                    set++;
                } else {
                    errno = Native.errno();
                }
            }
            if (set == 0) {
                throw new NativeException("sched_setaffinity(pid " + pid + ")", errno == 0 ? 3 /* ESRCH */ : errno);
            }
        }
        Reference.reachabilityFence(mask);
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
