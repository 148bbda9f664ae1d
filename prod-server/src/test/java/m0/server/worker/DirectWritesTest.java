package m0.server.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import m0.server.jnr.NativeException;
import org.junit.jupiter.api.Test;

/**
 * A handler thread's own writes to a lent socket (ADR 0071): what went out before a write failed
 * is a short write, so the access log counts it; a failure with nothing out is the caller's throw.
 */
class DirectWritesTest {

    private static final int CHUNK = ConnectionIo.IO_BYTES;

    /** write(2) stand-in: takes each chunk whole until its {@code failAt}th call, which fails as a reset. */
    private static final class FailingWrite implements DirectWrites.RawWrite {
        final int failAt;
        final List<Integer> calls = new ArrayList<>();

        FailingWrite(int failAt) {
            this.failAt = failAt;
        }

        @Override
        public int write(int fd, long address, int length) {
            calls.add(length);
            if (calls.size() == failAt) {
                throw new NativeException("write(" + fd + ")", 104 /* ECONNRESET */);
            }
            return length;
        }
    }

    private static DirectWrites writes(FailingWrite raw) {
        Connection c = new Connection(-1, new byte[4]);
        c.writes = Connection.NO_DELAY; // past the head: no setsockopt on the stand-in's descriptor
        return new DirectWrites(c, null, raw);
    }

    @Test
    void whatWentOutBeforeAFailureIsAShortWrite() throws IOException {
        FailingWrite raw = new FailingWrite(3);
        byte[] body = new byte[4 * CHUNK];

        int n = writes(raw).write(body, 0, body.length);

        assertEquals(2 * CHUNK, n, "the two chunks the socket took are reported, not lost in a throw");
        assertEquals(3, raw.calls.size());
    }

    @Test
    void aFailureWithNothingOutThrows() {
        FailingWrite raw = new FailingWrite(1);
        byte[] body = new byte[4 * CHUNK];

        IOException e = assertThrows(IOException.class, () -> writes(raw).write(body, 0, body.length));

        assertEquals(NativeException.class, e.getCause().getClass());
    }

    @Test
    void aBodyTheSocketTakesWholeIsWrittenInChunks() throws IOException {
        FailingWrite raw = new FailingWrite(Integer.MAX_VALUE);
        byte[] body = new byte[2 * CHUNK + 5];

        assertEquals(body.length, writes(raw).write(body, 0, body.length));
        assertEquals(List.of(CHUNK, CHUNK, 5), raw.calls);
    }
}
