package m0.server.log;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Where a JVM's start goes (docs/adr/0027): with the hidden {@code --dev-start-trace on} (passed
 * on to the workers; docs/adr/0065), each {@link #mark} after {@link #turnOn} prints one line to
 * stderr. The supervisor knows only once its command line is read, so its first line is
 * "command line parsed"; a worker reads its launch arguments first, and prints from "main".
 *
 * <pre>m0serve start-trace pid 1234 worker 0: warmed up at 312.4 ms (main thread 201.7 ms CPU, process 290 ms)</pre>
 *
 * The time is from the JVM's exec (the kernel's start time of the process, 10 ms steps) to the
 * mark; the main thread's CPU is {@code /proc/thread-self/schedstat} (nanoseconds); the process's
 * is utime + stime of {@code /proc/self/stat} (10 ms ticks; JIT and GC threads included). Off,
 * a mark costs one static read. The figures in ADR 0027 come from this.
 */
public final class StartTrace {

    private static boolean on;
    /** System.nanoTime at the JVM's exec, so that later marks have nanoTime's precision. */
    private static long execNanos;
    private static final int CLOCK_TICKS = 100; // USER_HZ

    private StartTrace() {
    }

    /** Whether marks print (the setting asked). */
    public static boolean on() {
        return on;
    }

    /** Marks print from now on (the main thread's, once, as the settings are read). */
    public static void turnOn() {
        if (!on) {
            execNanos = System.nanoTime() - ageNanos();
            on = true;
        }
    }

    /** Who this JVM is in the lines ("supervisor", "worker 3"). */
    private static String who = "m0serve";

    /** Names this JVM in the lines that follow. */
    public static void as(String role) {
        who = role;
    }

    /** This JVM reached {@code phase}. */
    public static void mark(String phase) {
        if (!on) {
            return;
        }
        long now = System.nanoTime();
        long thread = threadCpuNanos();
        long process = processCpuMillis();
        // No printf or string concatenation: their first use (Formatter, indy bootstraps) would
        // cost the next phase milliseconds that are not its own.
        StringBuilder b = new StringBuilder(128).append("m0serve start-trace pid ").append(ProcessHandle.current().pid())
                .append(' ').append(who).append(": ").append(phase).append(" at ");
        tenths(b, (now - execNanos) / 100_000).append(" ms (main thread ");
        tenths(b, thread / 100_000).append(" ms CPU, process ").append(process).append(" ms)");
        System.err.println(b);
    }

    private static StringBuilder tenths(StringBuilder b, long tenths) {
        return b.append(tenths / 10).append('.').append(Math.abs(tenths % 10));
    }

    private static String[] statFields() throws IOException {
        String stat = Files.readString(Path.of("/proc/self/stat"));
        // After "(comm) " the state is field 3 of proc(5).
        return stat.substring(stat.lastIndexOf(')') + 2).split(" ");
    }

    private static long ageNanos() {
        try {
            double uptime = Double.parseDouble(Files.readString(Path.of("/proc/uptime")).split(" ")[0]);
            long startTicks = Long.parseLong(statFields()[22 - 3]);
            return Math.round((uptime - startTicks / (double) CLOCK_TICKS) * 1e9);
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }

    private static long threadCpuNanos() {
        try {
            return Long.parseLong(Files.readString(Path.of("/proc/thread-self/schedstat")).split(" ")[0]);
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    private static long processCpuMillis() {
        try {
            String[] f = statFields();
            return (Long.parseLong(f[14 - 3]) + Long.parseLong(f[15 - 3])) * 1000 / CLOCK_TICKS;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }
}
