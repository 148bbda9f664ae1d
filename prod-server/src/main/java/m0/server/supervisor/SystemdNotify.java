package m0.server.supervisor;

import java.util.Map;
import m0.server.jnr.Clocks;
import m0.server.jnr.UnixDatagram;
import m0.server.log.RateLimitedLog;

/**
 * sd_notify(3) without libsystemd: one datagram per state change to {@code $NOTIFY_SOCKET}
 * (a path, or {@code @name} for an abstract socket), so a {@code Type=notify} unit knows when
 * m0serve is ready, reloading and stopping (docs/adr/0018). Without the variable every method
 * does nothing. A send that fails (systemd restarted, the socket gone) is logged once a second
 * and never stops the server: the service manager's view is not worth a worker.
 */
public final class SystemdNotify {

    /** Variables that describe the supervisor's own service and must not reach its workers. */
    static final String NOTIFY_SOCKET = "NOTIFY_SOCKET";

    private final UnixDatagram socket;
    private final RateLimitedLog failures = new RateLimitedLog(System.err, "m0serve: ");
    private String lastStatus;
    private long lastStatusAt;
    /** A plain STATUS= is sent at most this often: connections open change with every pass. */
    static final long STATUS_EVERY_NANOS = 1_000_000_000L;

    private SystemdNotify(UnixDatagram socket) {
        this.socket = socket;
    }

    /** From the environment: a notifier, or one that does nothing when NOTIFY_SOCKET is unset or unusable. */
    public static SystemdNotify fromEnvironment(Map<String, String> env) {
        String where = env.get(NOTIFY_SOCKET);
        if (where == null || where.isEmpty()) {
            return new SystemdNotify(null);
        }
        try {
            return new SystemdNotify(UnixDatagram.to(where));
        } catch (RuntimeException e) {
            System.err.println("m0serve: NOTIFY_SOCKET=" + where + " unusable (" + e.getMessage() + "); not notifying");
            return new SystemdNotify(null);
        }
    }

    public boolean enabled() {
        return socket != null;
    }

    /** Every first worker has started (the moment "ready" is printed), or a reload is done. */
    public void ready(long mainPid, String status) {
        lastStatus = status;
        send("READY=1\nMAINPID=" + mainPid + "\nSTATUS=" + status);
    }

    /** SIGHUP: systemd wants the monotonic time of the reload's start with RELOADING=1. */
    public void reloading(String status) {
        lastStatus = status;
        send("RELOADING=1\nMONOTONIC_USEC=" + Clocks.monotonicMicros() + "\nSTATUS=" + status);
    }

    /** SIGTERM or SIGINT: the graceful stop has begun. */
    public void stopping(String status) {
        lastStatus = status;
        send("STOPPING=1\nSTATUS=" + status);
    }

    /**
     * A readable status line ({@code systemctl status}); sent only when it differs from the last
     * one and a second has passed since (the loop wakes at least once a second, so it converges).
     */
    public void status(String status) {
        long now = System.nanoTime();
        if (status.equals(lastStatus) || now - lastStatusAt < STATUS_EVERY_NANOS) {
            return;
        }
        lastStatusAt = now;
        lastStatus = status;
        send("STATUS=" + status);
    }

    private void send(String message) {
        if (socket == null) {
            return;
        }
        try {
            socket.send(message);
        } catch (RuntimeException e) {
            failures.log("notifying systemd: " + e.getMessage());
        }
    }
}
