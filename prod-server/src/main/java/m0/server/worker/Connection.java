package m0.server.worker;

import m0.server.http.HttpSession;
import m0.server.jnr.Epoll;
import m0.server.tls.TlsLink;

/** One open connection of a worker: its descriptor, its HTTP state, and what epoll watches for it. */
final class Connection {

    final int fd;
    /** The peer sockaddr, for a hand-over while leaving; null without sharing. */
    final byte[] peer;
    HttpSession session;
    /** Its TLS between the socket and the session (ADR 0069); null: plain HTTP. */
    TlsLink tls;
    /**
     * While its TLS handshake is under way: when it must have finished (the header timeout from
     * its first byte, as nginx's client_header_timeout bounds a handshake); else NONE.
     */
    long handshakeDeadline = NONE;
    static final long NONE = Long.MAX_VALUE;
    /** The epoll events registered for it now (EPOLLIN, EPOLLOUT, both or neither). */
    int interest;
    boolean closed;
    /**
     * Received from a sibling: its sender may still hold its own copy for a moment after the
     * sendmsg (preempted before its close), so our close alone may not end our epoll
     * registration; {@code close} removes it first (docs/adr/0034).
     */
    boolean received;
    /**
     * Writes so far, up to {@link #NO_DELAY}: Nagle is turned off just before the second write,
     * because it can only hold a write while an earlier one is unacknowledged (nginx, too, sets
     * TCP_NODELAY only when a connection goes on after its first answer). A Connection: close
     * answer written at once then costs no setsockopt.
     */
    int writes;
    /** {@link #writes} once TCP_NODELAY is set. */
    static final int NO_DELAY = 2;
    /** Its output waits for the pass's end, to go with the pass's other answers (docs/adr/0049). */
    boolean sendDue;
    /**
     * Its second request was counted as a reuse (share's gate, ADR 0041), or it came here
     * reused (a settled move): settled keep-alive from then on (ADR 0059).
     */
    boolean reused;
    /** The worker its client pairs with ({@link Affinities}), or {@link Affinities#UNKNOWN}. */
    int affinity = Affinities.UNKNOWN;
    /** Requests since its affinity was last read ({@link Affinities}). */
    int sinceRead;
    /** Write side shut down after an error answer; reads are discarded until these bounds. */
    boolean lingering;
    long lingerEnd;
    long lingerIdleEnd;
    long lingerBytes;

    Connection(int fd, byte[] peer) {
        this.fd = fd;
        this.peer = peer;
    }

    /**
     * Registers what it waits for now: EPOLLOUT while output waits; EPOLLIN only while the session
     * will take input, so a client that sends without reading is not read either and fills its
     * own buffers, not our heap.
     */
    void watch(Epoll epoll) {
        watch(epoll, (session.wantsInput() ? Epoll.IN : 0) | (outputWaits() ? Epoll.OUT : 0));
    }

    /**
     * Bytes wait for the socket: the session's output, or under TLS ciphertext made and not
     * written, or the session's output once the handshake lets it be wrapped.
     */
    boolean outputWaits() {
        if (tls == null) {
            return session.hasOutput(); // not output(): that reads a file answer's next chunk (ADR 0071)
        }
        return tls.hasOutput() || (!tls.handshaking() && session.hasOutput());
    }

    /** Its TLS handshake began here: it never moves (ADR 0069). */
    boolean handshakeBegun() {
        return tls != null && tls.handshakeBegun();
    }

    /** Registers {@code want} where it is not what epoll watches already. */
    void watch(Epoll epoll, int want) {
        if (interest != want) {
            interest = want;
            epoll.modify(fd, want, fd);
        }
    }
}
