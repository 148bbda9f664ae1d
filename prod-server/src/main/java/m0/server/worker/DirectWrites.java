package m0.server.worker;

import java.io.IOException;
import m0.server.http.SocketWrites;
import m0.server.jnr.Fds;
import m0.server.jnr.Memory;
import m0.server.jnr.NativeException;
import m0.server.jnr.Sockets;

/**
 * A plain connection's socket as a gathering body's writer writes it from its own thread, while
 * its session has lent it the socket (ADR 0071's last addendum): non-blocking write(2) from a
 * native buffer of the writer thread's own, as {@link AnswerWrites} writes from the loop's.
 *
 * <p>Threads: a writer's, one at a time, only while the session's exchange lends it the socket
 * and under that exchange's lock; the loop writes nothing to the connection meanwhile and closes
 * the descriptor only after taking the socket back. So {@link Connection#writes} is this
 * writer's to read and move, as it is the loop's when the loop writes.
 */
final class DirectWrites implements SocketWrites {

    /** Each writer thread's native buffer: a pool thread serves one connection at a time. */
    private static final ThreadLocal<Memory> OUT = ThreadLocal.withInitial(() -> new Memory(ConnectionIo.IO_BYTES));

    /** One write(2) from native memory, as {@link Fds#write} makes it: bytes, -1 when full, else throws. */
    interface RawWrite {
        int write(int fd, long address, int length);
    }

    private final Connection c;
    /** Bytes out for the metrics (docs/adr/0017); null when not recorded. */
    private final RequestRecorder recorder;
    private final RawWrite raw;

    DirectWrites(Connection c, RequestRecorder recorder) {
        this(c, recorder, Fds::write);
    }

    /** {@code raw}: write(2), or a test's stand-in that fails where it is told to. */
    DirectWrites(Connection c, RequestRecorder recorder, RawWrite raw) {
        this.c = c;
        this.recorder = recorder;
        this.raw = raw;
    }

    @Override
    public int write(byte[] b, int off, int len) throws IOException {
        Memory m = OUT.get();
        int wrote = 0;
        try {
            if (c.writes < Connection.NO_DELAY) {
                c.writes = Connection.NO_DELAY; // past the head's write: Nagle off, as the loop turns it
                Sockets.setNoDelay(c.fd);
            }
            while (wrote < len) {
                int n = Math.min(len - wrote, m.size());
                m.buffer().put(0, b, off + wrote, n);
                int w = raw.write(c.fd, m.address(), n);
                if (w <= 0) {
                    break; // full
                }
                wrote += w;
                if (w < n) {
                    break;
                }
            }
        } catch (NativeException e) {
            if (wrote > 0) {
                // What went out before the failure is a short write, counted by the caller and the
                // access log; the socket goes back to the loop, whose own write meets the failure.
                return wrote;
            }
            throw new IOException("writing the response: " + e.getMessage(), e);
        } finally {
            if (wrote > 0 && recorder != null) {
                recorder.writerBytesOut(wrote);
            }
        }
        return wrote;
    }
}
