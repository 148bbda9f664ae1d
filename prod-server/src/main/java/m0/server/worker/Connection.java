package m0.server.worker;

import m0.server.http.HttpSession;

/** One open connection of a worker: its descriptor, its HTTP state, and what epoll watches for it. */
final class Connection {

    final int fd;
    /** The peer sockaddr, for a hand-over while leaving; null without sharing. */
    final byte[] peer;
    HttpSession session;
    /** The epoll events registered for it now (EPOLLIN, EPOLLOUT, both or neither). */
    int interest;
    boolean closed;
    /** Write side shut down after an error answer; reads are discarded until these bounds. */
    boolean lingering;
    long lingerEnd;
    long lingerIdleEnd;
    long lingerBytes;

    Connection(int fd, byte[] peer) {
        this.fd = fd;
        this.peer = peer;
    }
}
