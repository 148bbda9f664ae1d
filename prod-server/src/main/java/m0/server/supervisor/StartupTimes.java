package m0.server.supervisor;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import m0.core.Page;
import m0.server.jnr.Fds;
import m0.server.share.Memfds;

/**
 * How long workers take to start, for the log and {@code m0serve stats} (docs/adr/0011): the
 * time from the supervisor's spawn of a worker to the supervisor seeing its start (PARKED) on
 * the page, per index, and from the supervisor's launch to its "ready" line.
 *
 * <p>A memfd of its own ({@value #NAME}), apart from the protocol's page so that its layout
 * stays the core's; only the supervisor holds it (close-on-exec), and an observer maps it
 * read-only through {@code /proc/<pid>/fd}. Words, each written by the supervisor alone:
 *
 * <pre>
 *   0        launch to ready, microseconds (0: not ready yet)
 *   1        lines (worker indices)
 *   2 + 2i   index i: spawn to started, microseconds, of its latest worker (0: not started)
 *   3 + 2i   index i: workers started there so far
 * </pre>
 *
 * The supervisor polls the page every {@link #WATCH_MILLIS} ms while a start is awaited, so a
 * figure is late by at most that (plus the loop's own latency).
 */
public final class StartupTimes {

    /** The memfd's name: {@code /proc/<pid>/fd/N} links read {@code /memfd:m0-startup (deleted)}. */
    public static final String NAME = "m0-startup";
    /** How often the supervisor reads the page while a worker's start is awaited. */
    static final int WATCH_MILLIS = 5;

    private static final int READY = 0;
    private static final int LINES = 1;
    private static final int HEADER = 2;
    /** USER_HZ: 100 on every Linux this runs on (the unit of /proc/self/stat's times). */
    private static final int CLOCK_TICKS = 100;

    private final Page words;
    private final int lines;
    private final long[] spawnedAt;

    private StartupTimes(Page words, int lines) {
        this.words = words;
        this.lines = lines;
        this.spawnedAt = new long[lines];
    }

    /** The supervisor's, zeroed. */
    static StartupTimes create(int lines) {
        int fd = Fds.memfd(NAME);
        StartupTimes t = new StartupTimes(Memfds.map(Path.of("/proc/self/fd/" + fd), words(lines), true), lines);
        t.words.setVolatile(LINES, lines);
        return t;
    }

    /** An observer's read-only view of process {@code pid}'s, if it holds one (a supervisor does). */
    public static Optional<StartupTimes> attach(long pid) {
        try {
            Optional<Path> p = Memfds.find(pid, NAME);
            if (p.isEmpty()) {
                return Optional.empty();
            }
            int lines = (int) (Files.size(p.get()) / 8 - HEADER) / 2;
            return lines < 1 ? Optional.empty() : Optional.of(new StartupTimes(Memfds.map(p.get(), words(lines), false), lines));
        } catch (IOException e) {
            return Optional.empty(); // gone, or not ours to read
        }
    }

    private static int words(int lines) {
        return HEADER + 2 * lines;
    }

    /** A worker was spawned at index {@code index} at {@code nanos} (System.nanoTime). */
    void spawned(int index, long nanos) {
        spawnedAt[index] = nanos;
    }

    /** Its start was seen at {@code nanos}; returns spawn to started in milliseconds. */
    double started(int index, long nanos) {
        long micros = Math.max(1, (nanos - spawnedAt[index]) / 1000);
        words.setVolatile(HEADER + 2 * index, micros);
        words.getAndAdd(HEADER + 2 * index + 1, 1);
        return micros / 1000.0;
    }

    /** Every first worker has started: launch (the exec of the launcher) to now, in milliseconds. */
    long ready() {
        long micros = Math.max(1, sinceLaunchMicros());
        words.setVolatile(READY, micros);
        return micros / 1000;
    }

    /**
     * This process's age from the kernel's clock ticks: {@code /proc/uptime} less the start time
     * in {@code /proc/self/stat} (10 ms steps each). ProcessHandle's startInstant adds the boot
     * time, which /proc/stat gives in whole seconds: up to a second off. The launcher execs the
     * JVM, so the age counts from the launcher's own start. 0 when unreadable.
     */
    static long sinceLaunchMicros() {
        try {
            double uptime = Double.parseDouble(Files.readString(Path.of("/proc/uptime")).split(" ")[0]);
            String stat = Files.readString(Path.of("/proc/self/stat"));
            // After "(comm) ", the state is field 3 of proc(5); the start time is field 22.
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            long startTicks = Long.parseLong(f[22 - 3]);
            return Math.round((uptime - startTicks / (double) CLOCK_TICKS) * 1e6);
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    /** Lines on the supervisor's page. */
    public int lines() {
        return lines;
    }

    /** Index {@code i}'s latest spawn-to-started time in ms; negative when none has started. */
    public double startedMillis(int i) {
        long micros = words.getVolatile(HEADER + 2 * i);
        return micros == 0 ? -1 : micros / 1000.0;
    }

    /** Workers that have started at index {@code i}. */
    public long starts(int i) {
        return words.getVolatile(HEADER + 2 * i + 1);
    }

    /** Launch to ready in ms; negative before ready. */
    public double readyMillis() {
        long micros = words.getVolatile(READY);
        return micros == 0 ? -1 : micros / 1000.0;
    }

    /** Two lines for {@code m0serve stats}, over the first {@code shown} indices. */
    public String format(int shown) {
        StringBuilder b = new StringBuilder("start-up: launch to ready ");
        double r = readyMillis();
        b.append(r < 0 ? "-" : String.format("%.0f ms", r)).append("; spawn to PARKED, latest (starts):");
        for (int i = 0; i < Math.min(shown, lines); i++) {
            double ms = startedMillis(i);
            b.append(String.format(" w%d=%s (%d)", i, ms < 0 ? "-" : String.format("%.0f ms", ms), starts(i)));
        }
        return b.append(System.lineSeparator()).toString();
    }
}
