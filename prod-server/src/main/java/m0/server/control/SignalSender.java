package m0.server.control;

import java.io.IOException;
import java.io.PrintWriter;
import m0.server.jnr.Native;
import m0.server.jnr.Processes;

/**
 * What {@code stop} and {@code reload} share: find the supervisor, check it is one (a worker's
 * or a reused pid is refused), signal it, say so in one line. Exit 0 when sent, 1 otherwise.
 */
final class SignalSender {

    private SignalSender() {
    }

    /** The supervisor's pid once signalled, or -1 after one line on {@code err}. */
    static long send(String command, ServerTarget target, int signal, String signalName, PrintWriter out,
                     PrintWriter err) {
        long pid;
        try {
            pid = target.resolve();
        } catch (IOException e) {
            return fail(err, command, e.getMessage());
        }
        String problem = ServerFinder.notSupervisor(pid);
        if (problem != null) {
            return fail(err, command, target.describe() + ": " + problem);
        }
        if (!Processes.kill((int) pid, signal)) {
            return fail(err, command, "cannot send " + signalName + " to pid " + pid + ": errno " + Native.errno());
        }
        out.println("m0serve " + command + ": " + signalName + " sent to the supervisor, pid " + pid);
        out.flush();
        return pid;
    }

    private static long fail(PrintWriter err, String command, String why) {
        err.println("m0serve " + command + ": " + why);
        err.flush();
        return -1;
    }
}
