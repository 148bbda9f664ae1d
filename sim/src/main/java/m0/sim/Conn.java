package m0.sim;

/**
 * A client's connection: the client connected, sent its request and waits for a response or
 * EOF. Exactly one place holds it at a time: the listener's backlog, an actor (the worker that
 * accepted or received it, the supervisor draining), or one channel.
 */
public final class Conn {

    final int id;
    Actor holder;
    int channel = -1;
    boolean inBacklog;
    /** A response was written; the connection stays open (keep-alive) with its server. */
    boolean served;
    /**
     * Received over a channel and not yet admitted by its holder's loop: in the core's hands (a
     * leaver holding it for a starting sibling), not among the loop's connections.
     */
    boolean inCore;
    /** Why the client read EOF (null while it has not). */
    String eof;
    /** The rule an oracle charged this connection's fate to, if any. */
    String violation;
    long sentStep = -1;
    int servedBy = -1;
    /** When it entered the backlog, and when (and by whom) it left it: the WAIT and FILL oracles. */
    long arrivedAt;
    long acceptedAt = -1;
    /**
     * The worker its client's thread pairs with (ADR 0057; m0serve reads it off the CPU its
     * packets arrive on), or -1: none known. A property of the client: it travels with the
     * connection.
     */
    int affinity = -1;
    /**
     * Answered once and not yet reused (ADR 0059): open and idle, but not settled keep-alive. A
     * property of the client's use of it: it travels with the connection. Every connection a
     * world makes is settled unless it says otherwise.
     */
    boolean unsettled;
    /** Its client speaks TLS: the worker that first serves it runs its handshake (ADR 0069). */
    boolean tls;
    /**
     * Its TLS handshake has begun in the worker serving it: its session lives in that worker's
     * memory, so it never moves again (ADR 0069; the PINNED oracle).
     */
    boolean handshakeBegun;

    Conn(int id) {
        this.id = id;
    }

    public int id() {
        return id;
    }

    public boolean served() {
        return served;
    }

    public String eof() {
        return eof;
    }

    @Override
    public String toString() {
        return "c" + id;
    }
}
