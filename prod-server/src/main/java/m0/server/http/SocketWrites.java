package m0.server.http;

import java.io.IOException;

/**
 * A plain connection's socket as a streamed body's writer may write it itself, while the loop
 * has lent it the socket ({@link PipedExchange}'s direct writes, ADR 0071's last addendum): a
 * non-blocking write from the writer's own thread, with no hand-off to the loop. The worker's;
 * a session without one (TLS, tests, the simulator) hands every byte to its loop.
 */
public interface SocketWrites {

    /**
     * Writes what the socket takes now of {@code b[off, off + len)} without blocking.
     *
     * @return bytes written, 0 to {@code len}: fewer when the socket is full
     * @throws IOException when the connection is gone (reset, broken pipe)
     */
    int write(byte[] b, int off, int len) throws IOException;
}
