package m0.server.supervisor;

import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * Which CPU each worker is pinned to, if any ({@code --cpu-affinity}, docs/adr/0058). Pinned,
 * worker i runs on the i-th CPU this process may use (wrapping past the last), so the CPU a
 * client's packets arrive on ({@code SO_INCOMING_CPU}) is the CPU of the worker the core pairs
 * it with ({@link m0.core.Siblings#pairedWorker}: CPU c to the worker of rank c % live): the
 * client and its worker then share a CPU and its caches, and the reading that pairs them no
 * longer depends on where the scheduler happened to run two workers at that instant.
 *
 * <p>{@code auto}, the default, pins exactly when there is one worker per usable CPU: the
 * scheduler would spread them so anyway, and the pinning only keeps it from moving them. With
 * fewer workers than CPUs a free worker can step aside from a busy CPU; with more, some CPU
 * would hold two pinned workers; both stay free. A pinned worker's JVM is told how many CPUs
 * the server has ({@code -XX:ActiveProcessorCount}), so its JIT and its thread pools are sized
 * as an unpinned one's.
 */
public final class CpuPlacement {

    /** {@code --cpu-affinity}: auto (one worker per CPU: pinned), on, off. */
    public enum Mode {
        AUTO, ON, OFF;

        /** The flag's value, or null for anything else. */
        public static Mode named(String v) {
            return switch (v) {
                case "auto" -> AUTO;
                case "on" -> ON;
                case "off" -> OFF;
                default -> null;
            };
        }
    }

    /** CPU of worker index i is {@code cpus[i % cpus.length]}; empty: every worker free. */
    private final int[] cpus;

    private CpuPlacement(int[] cpus) {
        this.cpus = cpus;
    }

    /**
     * @param workers the configured worker count
     * @param allowed the CPUs this process may run on, ascending
     */
    static CpuPlacement of(Mode mode, int workers, int[] allowed) {
        boolean pin = allowed.length > 0 && switch (mode) {
            case ON -> true;
            case OFF -> false;
            case AUTO -> workers == allowed.length;
        };
        return new CpuPlacement(pin ? allowed.clone() : new int[0]);
    }

    boolean pinned() {
        return cpus.length > 0;
    }

    /** The CPU worker {@code index} is spawned on, or -1: free. */
    int cpuOf(int index) {
        return cpus.length == 0 ? -1 : cpus[index % cpus.length];
    }

    /** The worker JVM's options this placement needs, before the operator's (which win). */
    List<String> jvmOptions() {
        return pinned() ? List.of("-XX:ActiveProcessorCount=" + cpus.length) : List.of();
    }

    /** The start line for it ("workers pinned: w0 on CPU 0, w1 on CPU 1 ..."), or null when free. */
    String describe(int workers) {
        if (!pinned()) {
            return null;
        }
        return IntStream.range(0, workers).mapToObj(i -> "w" + i + " on CPU " + cpuOf(i))
                .collect(Collectors.joining(", ", "m0serve: workers pinned: ", " (--cpu-affinity off leaves them free)"));
    }
}
