package m0.server.supervisor;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import m0.server.launch.LoopThread;

/**
 * Says once when the workers' own threads want more CPUs than the server has (docs/adr/0070):
 * an app that computes on threads of its own (an inference runtime's pool, which spins while it
 * waits) times its handler threads ({@code --blocking-threads}) times {@code --workers} can ask
 * for more cores than there are, and each worker then slows the others down. What m0serve cannot
 * know at start (how many threads the app's runtime runs per call) it sees here: once every
 * {@link #LOOK_NANOS}, the workers' threads that are runnable (state R in
 * {@code /proc/PID/task/TID/stat}), less the JVM's compiler and GC threads (a warm-up's, not the
 * app's) and the loop thread (m0serve's, brief per request, and the one most often runnable but
 * waiting when other processes keep the CPUs busy). More of them than CPUs at each of
 * {@link #LOOKS} looks in a row (a burst does not last that long): one line on stderr, and no
 * more looks. Other processes on the machine do not count, only the workers'. Stepped from the
 * supervisor's loop.
 */
final class Oversubscription {

    static final long LOOK_NANOS = TimeUnit.SECONDS.toNanos(2);
    static final int LOOKS = 5;

    /** The runnable threads of one worker now (the /proc reading; a stand-in in tests). */
    interface Runnables {
        int of(int pid);
    }

    private final Slots slots;
    private final int cpus;
    private final Runnables runnables;
    private final PrintStream err;
    private final String sizing;
    private final int[] window = new int[LOOKS];
    private int filled;
    private long lastLook;
    private boolean looked;
    private boolean said;

    /** {@code sizing}: what the line says the server runs ("2 workers x 2 blocking threads"). */
    Oversubscription(Slots slots, int cpus, Runnables runnables, PrintStream err, String sizing) {
        this.slots = slots;
        this.cpus = cpus;
        this.runnables = runnables;
        this.err = err;
        this.sizing = sizing;
    }

    /** A look when one is due at {@code now}; the line once the window says so. */
    void step(long now) {
        if (said || cpus <= 0 || (looked && now - lastLook < LOOK_NANOS)) {
            return;
        }
        looked = true;
        lastLook = now;
        int runnable = 0;
        for (int i = 0; i < slots.lines(); i++) {
            Slot s = slots.at(i);
            if (s.running() && s.started) {
                runnable += runnables.of(s.pid);
            }
        }
        window[filled++ % LOOKS] = runnable;
        if (filled < LOOKS) {
            return;
        }
        int least = Integer.MAX_VALUE;
        for (int r : window) {
            least = Math.min(least, r);
        }
        if (least > cpus) {
            said = true;
            err.printf("m0serve: warning: the workers' threads want more CPUs than there are: at least %d runnable"
                    + " at each of %d looks %d s apart, on %d CPUs (%s); an app that computes on threads of its own"
                    + " (an inference runtime) should size them so that workers x handler threads x its threads per call"
                    + " <= CPUs (docs/apps.md, \"Sizing\")%n", least, LOOKS, LOOK_NANOS / 1_000_000_000L, cpus, sizing);
            err.flush();
        }
    }

    boolean said() {
        return said;
    }

    /** Runnable threads of {@code pid} but the JVM's compilers and collectors; 0 when it is gone. */
    static int runnableThreads(int pid) {
        int n = 0;
        try (Stream<Path> tasks = Files.list(Path.of("/proc/" + pid + "/task"))) {
            for (Path t : (Iterable<Path>) tasks::iterator) {
                String stat;
                try {
                    stat = Files.readString(t.resolve("stat"));
                } catch (IOException e) {
                    continue; // ended meanwhile
                }
                if (runnableAppThread(stat)) {
                    n++;
                }
            }
        } catch (IOException e) {
            return 0; // gone: its reap follows
        }
        return n;
    }

    /** A {@code /proc/.../stat} line ("TID (comm) S ...") of a runnable thread that is not the JVM's compiler or GC, nor the loop. */
    static boolean runnableAppThread(String stat) {
        int open = stat.indexOf('(');
        int close = stat.lastIndexOf(')');
        if (open < 0 || close < 0 || close + 2 >= stat.length() || stat.charAt(close + 2) != 'R') {
            return false;
        }
        String comm = stat.substring(open + 1, close);
        return !(comm.startsWith("C1 CompilerThre") || comm.startsWith("C2 CompilerThre") || comm.startsWith("GC Thread")
                || comm.startsWith("G1 ") || comm.equals("VM Thread") || comm.startsWith("Sweeper")
                || comm.equals(LoopThread.NAME));
    }
}
