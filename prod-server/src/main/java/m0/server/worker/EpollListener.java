package m0.server.worker;

import m0.core.loop.Listener;
import m0.server.jnr.Acceptor;
import m0.server.jnr.Epoll;
import m0.server.jnr.Fds;
import m0.server.jnr.Native;
import m0.server.jnr.NativeException;
import m0.server.jnr.Sockets;
import m0.server.log.RateLimitedLog;
import m0.server.share.Accepted;

/**
 * The core loop's {@link Listener} port over the inherited listening socket: accept4, a
 * zero-timeout poll for fountain's look, and the listener's registration in the worker's epoll
 * set. Registered EPOLLIN, with EPOLLEXCLUSIVE where the policy wakes one worker per connection
 * (share and race, docs/adr/0022): the kernel refuses EPOLL_CTL_MOD on an exclusive
 * registration, so out is DEL and in is ADD, for every policy alike.
 */
final class EpollListener implements Listener<Accepted> {

    private final Epoll epoll;
    private final int fd;
    private final long data;
    private final int events;
    private final Acceptor acceptor;
    /** The peer's sockaddr travels with a hand-off and goes to the access log; else not read. */
    private boolean peers;

    /** Where a refused TCP_DEFER_ACCEPT is told, once a second at most. */
    private final RateLimitedLog failures;

    EpollListener(Epoll epoll, int fd, long data, boolean exclusive, RateLimitedLog failures) {
        this.epoll = epoll;
        this.failures = failures;
        this.fd = fd;
        this.data = data;
        this.events = Epoll.IN | (exclusive ? Epoll.EXCLUSIVE : 0);
        this.acceptor = new Acceptor(fd);
    }

    /** Accepted connections carry their peer's address (sharing, or an access log). */
    void keepPeers(boolean peers) {
        this.peers = peers;
    }

    @Override
    public Accepted accept() {
        int c = acceptor.accept(); // per-connection errors and EMFILE are thrown
        if (c < 0) {
            return null;
        }
        return new Accepted(c, peers ? acceptor.lastPeer() : null);
    }

    @Override
    public boolean outOfDescriptors(RuntimeException failure) {
        return failure instanceof NativeException e && (e.errno() == Native.EMFILE || e.errno() == Native.ENFILE);
    }

    @Override
    public boolean readable() {
        return acceptor.pending();
    }

    @Override
    public void listen(boolean in) {
        if (in) {
            epoll.add(fd, events, data);
        } else {
            epoll.delete(fd);
        }
    }

    /**
     * One second, as nginx's {@code deferred} sets: a connection that sends nothing is accepted
     * at the first SYN-ACK retransmit past it and meets its header timeout (ADR 0054). Refused,
     * the listener goes on accepting at the handshake: the saving is lost, nothing else.
     */
    @Override
    public void deferAccept(boolean on) {
        try {
            Sockets.deferAccept(fd, on ? 1 : 0);
        } catch (NativeException e) {
            failures.log("TCP_DEFER_ACCEPT " + (on ? "on" : "off") + " refused: " + e.getMessage());
        }
    }

    @Override
    public void close() {
        Fds.close(fd); // the supervisor and the siblings keep the listener open
    }
}
