package m0.server.worker;

import java.util.function.Consumer;
import m0.server.jnr.Fds;
import m0.server.log.RateLimitedLog;

/**
 * How a worker's connection ends here: its close, whatever its session's or its TLS's close
 * throws, and a failure that is that connection's alone (logged, then closed). Not
 * thread-safe: the loop thread's.
 */
final class ConnectionCloser {

    private final ConnectionTable table;
    private final KeepAliveCounts counts;
    private final RateLimitedLog failures;
    /**
     * Before a received connection's close: leave the epoll set (docs/adr/0034). Its sender may
     * still hold its copy, and with it our registration, which would then report the client's
     * FIN under a descriptor number we no longer know. A test's stand-in leaves it registered.
     */
    private final Consumer<Connection> unregisterReceived;
    /** The listener's TLS (ADR 0069); null: plain HTTP. */
    private TlsReads tls;

    ConnectionCloser(ConnectionTable table, KeepAliveCounts counts, RateLimitedLog failures,
                     Consumer<Connection> unregisterReceived) {
        this.table = table;
        this.counts = counts;
        this.failures = failures;
        this.unregisterReceived = unregisterReceived;
    }

    /** From now on a connection's close ends its TLS first. */
    void secure(TlsReads tls) {
        this.tls = tls;
    }

    void close(Connection c) {
        if (c.closed) {
            return;
        }
        c.closed = true;
        table.remove(c);
        counts.closed(c);
        try {
            c.session.closed();
            if (tls != null) {
                tls.closing(c); // a close_notify, the engine released
            }
        } catch (RuntimeException e) {
            failures.log("closing a connection: its close failed: " + e); // the descriptor is closed all the same
        } finally {
            // Whatever threw above, the descriptor goes: a leaked one is a slot of --max-connections for good.
            if (c.received) {
                unregisterReceived.accept(c);
            }
            Fds.close(c.fd); // a fresh accept: no other process holds it, the close unregisters it
        }
    }

    /**
     * An Error out of our own code on one connection (a handler's never gets here): a
     * NoClassDefFoundError or an AssertionError is that connection's; a VirtualMachineError goes
     * up to the loop, which retires the worker (ADR 0061).
     */
    void failOrRethrow(Connection c, Error e) {
        if (e instanceof VirtualMachineError) {
            throw e;
        }
        fail(c, e);
    }

    void fail(Connection c, Throwable e) {
        StackTraceElement[] at = e.getStackTrace();
        failures.log("closing a connection: " + e + (at.length > 0 ? " at " + at[0] : ""));
        close(c);
    }
}
