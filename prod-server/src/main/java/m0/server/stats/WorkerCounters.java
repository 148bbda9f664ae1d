package m0.server.stats;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import m0.core.Page;
import m0.server.jnr.Fds;
import m0.server.share.Memfds;

/**
 * A worker's counters that have no word on the protocol's page (every word of a worker's line
 * is taken, and the page's layout is the core's): a memfd of the worker's own ({@value #NAME}),
 * written by its loop alone, mapped read-only by {@code m0serve stats} through
 * {@code /proc/<worker pid>/fd}. It lives and dies with the worker: a respawned index counts
 * from zero. Words:
 *
 * <pre>
 *   0   idle connections this worker handed to a sibling to even the load (rebalance)
 * </pre>
 *
 * One volatile store per change: a move is rare, and the loop publishes only when it changed.
 */
public final class WorkerCounters {

    /** The memfd's name: {@code /proc/<pid>/fd/N} links read {@code /memfd:m0-worker (deleted)}. */
    public static final String NAME = "m0-worker";

    private static final int REBALANCED = 0;
    private static final int WORDS = 1;

    private final Page words;

    private WorkerCounters(Page words) {
        this.words = words;
    }

    /** The worker's own, zeroed; held (close-on-exec) for the worker's life. */
    public static WorkerCounters create() {
        int fd = Fds.memfd(NAME);
        return new WorkerCounters(Memfds.map(Path.of("/proc/self/fd/" + fd), WORDS, true));
    }

    /** An observer's read-only view of worker {@code pid}'s, if it holds one. */
    public static Optional<WorkerCounters> attach(long pid) {
        try {
            Optional<Path> p = Memfds.find(pid, NAME);
            if (p.isEmpty() || Files.size(p.get()) < 8L * WORDS) {
                return Optional.empty();
            }
            return Optional.of(new WorkerCounters(Memfds.map(p.get(), WORDS, false)));
        } catch (IOException | RuntimeException e) {
            return Optional.empty(); // gone, or not ours to read
        }
    }

    /** The worker's loop: its rebalance count is now {@code n}. */
    public void rebalanced(long n) {
        words.setVolatile(REBALANCED, n);
    }

    public long rebalanced() {
        return words.getVolatile(REBALANCED);
    }

    /**
     * One line for {@code m0serve stats}: each live worker's rebalance count by index, read
     * from the supervisor's children.
     */
    public static String format(long supervisorPid) {
        StringBuilder b = new StringBuilder("rebalanced (idle connections moved, live workers):");
        Map<Integer, Long> byIndex = new TreeMap<>();
        for (ProcessHandle worker : WorkerProcesses.of(supervisorPid)) {
            int index = WorkerProcesses.specValue(worker.pid(), "index").map(Integer::parseInt).orElse(-1);
            Optional<WorkerCounters> c = attach(worker.pid());
            if (index >= 0 && c.isPresent()) {
                byIndex.merge(index, c.get().rebalanced(), Long::sum);
            }
        }
        if (byIndex.isEmpty()) {
            b.append(" -");
        }
        byIndex.forEach((i, n) -> b.append(" w").append(i).append('=').append(n));
        return b.append(System.lineSeparator()).toString();
    }
}
