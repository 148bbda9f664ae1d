package m0.server.http;

import java.io.IOException;

/**
 * A connection's socket as its exchange lends it to a gathering body's writer (ADR 0071): whether
 * it is lent now, what the writer wrote itself that the loop has not yet counted, and whether a
 * write of the writer's found the connection gone. Not thread-safe: every call is made under its
 * {@link PipedExchange}'s lock, whose class comment says who lends it and who takes it back.
 */
final class LentSocket {

    /** The connection's socket; null: never lent (TLS, an App's stream, tests). */
    private final SocketWrites socket;
    private boolean lent;
    /** Bytes the writer wrote itself since the loop last took the count. */
    private long uncounted;
    /** A write of the writer's found the connection gone (reset, broken pipe). */
    private boolean lost;
    /**
     * The writer's last write came short: the socket was full when it went back to the loop, so
     * it is not lent again until the loop has written to it itself ({@link #loopWrites}).
     */
    private boolean full;

    LentSocket(SocketWrites socket) {
        this.socket = socket;
    }

    /** Whether this exchange can ever lend its socket. */
    boolean lendable() {
        return socket != null;
    }

    void lend() {
        lent = socket != null;
    }

    void takeBack() {
        lent = false;
    }

    boolean lent() {
        return lent;
    }

    /** Whether the writer's last write found the socket full, and the loop has not written since. */
    boolean full() {
        return full;
    }

    /** The loop takes bytes to write itself: once its output is empty again the socket had room. */
    void loopWrites() {
        full = false;
    }

    boolean lost() {
        return lost;
    }

    /** The bytes the writer wrote itself since the last call. */
    long takeCount() {
        long n = uncounted;
        uncounted = 0;
        return n;
    }

    /**
     * Writes what the socket takes now. A short write (the socket is full) or a failed one takes
     * the socket back: the loop writes the rest when EPOLLOUT says.
     */
    int write(byte[] b, int off, int len) throws IOException {
        int n;
        try {
            n = socket.write(b, off, len);
        } catch (IOException e) {
            lent = false;
            lost = true;
            throw e;
        }
        uncounted += n;
        if (n < len) {
            lent = false;
            full = true;
        }
        return n;
    }
}
