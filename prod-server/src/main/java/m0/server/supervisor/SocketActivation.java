package m0.server.supervisor;

import java.util.Map;
import java.util.Set;
import m0.server.jnr.Fds;
import m0.server.jnr.NativeException;
import m0.server.jnr.Sockets;

/**
 * systemd's socket activation (sd_listen_fds(3)): when {@code LISTEN_PID} is our pid and
 * {@code LISTEN_FDS} is at least 1, descriptor 3 is a listener the service manager bound for
 * us, and we serve on it instead of binding (docs/adr/0018). It must be a listening TCP stream
 * socket: anything else is a configuration error, said in one line (exit 2).
 */
public final class SocketActivation {

    /** sd_listen_fds' first descriptor (SD_LISTEN_FDS_START). */
    public static final int FIRST_FD = 3;
    /** The variables of the protocol: they describe this process only, never its workers. */
    static final Set<String> VARIABLES = Set.of("LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES");

    private SocketActivation() {
    }

    /** A listener handed to us, or why it cannot be served on. */
    public static final class Misconfigured extends RuntimeException {
        Misconfigured(String message) {
            super(message);
        }
    }

    /**
     * The adopted listener (non-blocking and close-on-exec from here on), or -1 when this process
     * was not socket-activated.
     *
     * @throws Misconfigured when the variables are malformed or descriptor 3 is not a TCP listener
     */
    public static int adopt(Map<String, String> env, long ourPid) {
        String pid = env.get("LISTEN_PID");
        String fds = env.get("LISTEN_FDS");
        if (pid == null || fds == null) {
            return -1;
        }
        long listenPid;
        int count;
        try {
            listenPid = Long.parseLong(pid.trim());
            count = Integer.parseInt(fds.trim());
        } catch (NumberFormatException e) {
            throw new Misconfigured("socket activation: LISTEN_PID='" + pid + "' LISTEN_FDS='" + fds + "' are not numbers");
        }
        if (listenPid != ourPid || count < 1) {
            return -1; // meant for another process (a parent that did not unset them): not ours
        }
        String names = env.getOrDefault("LISTEN_FDNAMES", "");
        Sockets.SocketKind kind;
        try {
            kind = Sockets.kind(FIRST_FD);
        } catch (NativeException e) {
            throw new Misconfigured("socket activation: descriptor 3 is not a socket (" + e.getMessage() + ")");
        }
        if (!kind.isTcpListener()) {
            throw new Misconfigured("socket activation: descriptor 3" + (names.isEmpty() ? "" : " (" + names + ")")
                    + " is " + kind + ", not a listening TCP stream socket (ListenStream= in the .socket unit)");
        }
        if (count > 1) {
            System.err.println("m0serve: socket activation: " + count + " descriptors passed; serving on the first only");
        }
        // systemd hands it blocking unless NonBlocking=yes: a worker's accept must never block.
        Fds.setNonBlocking(FIRST_FD);
        Fds.setCloseOnExec(FIRST_FD);
        return FIRST_FD;
    }

    /** True for a variable a worker must not inherit (they name this process, not the worker). */
    static boolean ownVariable(String name) {
        return VARIABLES.contains(name) || SystemdNotify.NOTIFY_SOCKET.equals(name);
    }
}
