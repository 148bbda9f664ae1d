package m0.server.supervisor;

import java.util.List;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * Which CPU each worker is pinned to, if any ({@code --cpu-affinity}, docs/adr/0058). Pinned, the
 * worker of rank r among the wanted workers (index order) runs on the r-th CPU this process may
 * use, and the workers are told the list, so a client whose packets arrive on the r-th CPU
 * ({@code SO_INCOMING_CPU}) pairs with the worker running there (ADR 0057's swap: the core pairs
 * with the live worker of that rank; {@code Affinities.placedAmong}). The reading that pairs them
 * then no longer depends on where the scheduler ran the workers at that instant: free, both can
 * sit on one CPU and both clients on the other, and every connection then reads the same CPU.
 *
 * <p>By rank, not index: a rolling reload starts each replacement at a spare index, and a worker
 * placed by index would land on its predecessor's neighbour's CPU. A replacement's rank is
 * counted without the worker it replaces.
 *
 * <p>{@code auto}, the default, pins when the server starts with one worker per usable CPU; a
 * worker SIGTTIN adds past the last CPU runs free. With fewer workers than CPUs a free worker can
 * step aside from a busy CPU, and with more some CPU would hold two pinned workers, so neither is
 * pinned. Nor is a {@code --main} app under auto (docs/adr/0070): every one of its requests runs on
 * a pool thread, off the loop, so the few microseconds the pairing saves are not what it costs,
 * and with an inference runtime beside it a pinned loop measured slower than a free one.
 *
 * <p>Pinned means the worker's loop thread only (docs/adr/0070): its pools, the app's own threads
 * (an inference runtime's) and the JVM's run free on every CPU, so the JVM needs no
 * {@code -XX:ActiveProcessorCount}.
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

    /** The CPUs workers are pinned to, by rank; empty: every worker free. */
    private final int[] cpus;
    /** Past the last CPU: wrap (on) or free (auto). */
    private final boolean wrap;

    private CpuPlacement(int[] cpus, boolean wrap) {
        this.cpus = cpus;
        this.wrap = wrap;
    }

    /**
     * @param workers the configured worker count
     * @param allowed the CPUs this process may run on, ascending
     * @param mainApp a {@code --main} app: its handlers never run on the loop, so auto leaves it free
     */
    static CpuPlacement of(Mode mode, int workers, int[] allowed, boolean mainApp) {
        boolean pin = allowed.length > 0 && switch (mode) {
            case ON -> true;
            case OFF -> false;
            case AUTO -> workers == allowed.length && !mainApp;
        };
        return new CpuPlacement(pin ? allowed.clone() : new int[0], mode == Mode.ON);
    }

    boolean pinned() {
        return cpus.length > 0;
    }

    /** The CPUs workers are pinned to, by rank; none when free. */
    int[] cpus() {
        return cpus.clone();
    }

    /** The CPU the worker of this rank among the wanted ones is spawned on, or -1: free. */
    int cpuOf(int rank) {
        if (cpus.length == 0 || (!wrap && rank >= cpus.length)) {
            return -1;
        }
        return cpus[rank % cpus.length];
    }

    /** The start line for it ("workers pinned: w0 on CPU 0, w1 on CPU 1 (...)"), or null when free. */
    String describe(int workers) {
        if (!pinned()) {
            return null;
        }
        // at the start, worker i is of rank i
        return IntStream.range(0, workers).mapToObj(i -> "w" + i + " on CPU " + cpuOf(i))
                .collect(Collectors.joining(", ", "m0serve: workers pinned: ",
                        " (each one's loop thread; its other threads run free; --cpu-affinity off leaves all free)"));
    }
}
