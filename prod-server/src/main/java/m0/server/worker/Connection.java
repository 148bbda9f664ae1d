package m0.server.worker;

import m0.server.http.HttpSession;

/** One open connection of a worker: its descriptor, its HTTP state, and what epoll watches for it. */
final class Connection {

    final int fd;
    /** The peer sockaddr, for a hand-over while leaving; null without sharing. */
    final byte[] peer;
    HttpSession session;
    /** EPOLLOUT is registered: a write would block and output is waiting. */
    boolean writing;
    boolean closed;

    Connection(int fd, byte[] peer) {
        this.fd = fd;
        this.peer = peer;
    }
}
