package m0.server.http;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;

/**
 * A streamed answer's body as its writer sees it: the framing its head chose (chunks, a fixed
 * length, the close, or none) checked and applied to each write, the framed bytes queued in the
 * {@link PipedExchange}'s pipe. Apart from the exchange so that it reads as the pipe between the
 * writer and the loop. The writer's thread only (one at a time); the loop reads
 * {@link #closeDelimited()} under the exchange's lock, after the head that set it.
 */
final class FramedBody extends OutputStream {

    private static final byte[] LAST_CHUNK = "0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1);
    private static final byte[] CRLF = {'\r', '\n'};
    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.ISO_8859_1);

    /** Room before a gathered chunk's data for its size line (up to 8 hex digits and CRLF). */
    private static final int SIZE_ROOM = 10;

    private final PipedExchange pipe;
    /**
     * Whether writes gather, as the JDK's own server buffers them until a flush: an app written
     * for it flushes where its bytes must leave. A full buffer is one lent piece (one wake of the
     * loop, one chunk) where the same bytes written as 16 KiB pieces woke it for each.
     */
    private final boolean gathers;
    /**
     * The writer's gathered bytes at {@code [SIZE_ROOM, SIZE_ROOM + gathered)}, with room for a
     * chunk's size line before them and its CRLF after; made at the second write, so a body
     * written in one write goes as it did without gathering.
     */
    private byte[] gather;
    private int gathered;
    private int writes;
    private boolean closed;
    /** Set by {@link #frame} as the head is made: bytes still owed to a fixed length. */
    private long remaining;
    private boolean chunked;
    private boolean bodyless;
    /** HTTP/1.0 and a body of unknown length: no chunks (it cannot read them); the close ends it. */
    private boolean closeDelimited;

    FramedBody(PipedExchange pipe, boolean gathers) {
        this.pipe = pipe;
        this.gathers = gathers;
    }

    /** The framing for a head of {@code status} and {@code length} (or {@link Exchange#CHUNKED}). */
    void frame(int status, long length, boolean head, String version) {
        bodyless = head || status < 200 || status == 204 || status == 304;
        closeDelimited = !bodyless && length == Exchange.CHUNKED && Request.HTTP_1_0.equals(version);
        chunked = !bodyless && length == Exchange.CHUNKED && !closeDelimited;
        remaining = bodyless ? 0 : Math.max(0, length);
    }

    boolean chunked() {
        return chunked;
    }

    /** A HEAD's, a 1xx's, a 204's or a 304's: what is written is dropped. */
    boolean bodyless() {
        return bodyless;
    }

    boolean closeDelimited() {
        return closeDelimited;
    }

    /** The writer failed part-way: no more writes, no last chunk, and the connection ends. */
    void fail() {
        closed = true;
        gathered = 0; // what was not sent stays unsent, as a failed write's bytes

        pipe.end(true);
    }

    @Override
    public void write(int b) throws IOException {
        write(new byte[] {(byte) b}, 0, 1);
    }

    @Override
    public void write(byte[] b, int off, int len) throws IOException {
        java.util.Objects.checkFromIndexSize(off, len, b.length);
        if (closed) {
            throw new IOException("stream is closed");
        }
        if (pipe.headBytes() == null) {
            throw new IOException("response headers not sent yet");
        }
        if (len == 0) {
            return;
        }
        if (gathers && !bodyless && writes++ > 0) {
            gather(b, off, len);
            return;
        }
        send(b, off, len);
    }

    /** Frames and queues a write as written. */
    private void send(byte[] b, int off, int len) throws IOException {
        if (chunked && len >= PipedExchange.LEND) {
            pipe.enqueue((Integer.toHexString(len) + "\r\n").getBytes(StandardCharsets.ISO_8859_1), 0, Integer.toHexString(len).length() + 2);
            pipe.enqueue(b, off, len); // lent: a large chunk is not framed into a copy
            pipe.enqueue(CRLF, 0, 2);
            return;
        }
        if (chunked) {
            byte[] size = (Integer.toHexString(len) + "\r\n").getBytes(StandardCharsets.ISO_8859_1);
            byte[] framed = new byte[size.length + len + 2];
            System.arraycopy(size, 0, framed, 0, size.length);
            System.arraycopy(b, off, framed, size.length, len);
            System.arraycopy(CRLF, 0, framed, size.length + len, 2);
            pipe.enqueue(framed, 0, framed.length);
            return;
        }
        if (closeDelimited) {
            pipe.enqueue(b, off, len);
            return;
        }
        if (bodyless) {
            return; // a HEAD's (or a 204's) body is dropped, as the JDK's server drops it
        }
        if (len > remaining) {
            throw new IOException("too many bytes to write to stream");
        }
        remaining -= len;
        pipe.enqueue(b, off, len);
    }

    /** Copies a write into the gather buffer, sending the buffer each time it fills. */
    private void gather(byte[] b, int off, int len) throws IOException {
        if (!chunked && !closeDelimited) {
            if (len > remaining) {
                throw new IOException("too many bytes to write to stream");
            }
            remaining -= len;
        }
        if (gather == null) {
            gather = new byte[SIZE_ROOM + PipedExchange.LEND + CRLF.length];
        }
        while (len > 0) {
            int n = Math.min(len, PipedExchange.LEND - gathered);
            System.arraycopy(b, off, gather, SIZE_ROOM + gathered, n);
            gathered += n;
            off += n;
            len -= n;
            if (gathered == PipedExchange.LEND) {
                sendGathered();
            }
        }
    }

    /** Queues what gathered as one piece (a full buffer is lent, not copied), framed as one chunk. */
    private void sendGathered() throws IOException {
        int n = gathered;
        if (n == 0) {
            return;
        }
        gathered = 0;
        int from = SIZE_ROOM;
        int to = SIZE_ROOM + n;
        if (chunked) {
            int digits = (Integer.SIZE + 3 - Integer.numberOfLeadingZeros(n)) / 4;
            gather[--from] = '\n';
            gather[--from] = '\r';
            for (int i = 0, v = n; i < digits; i++, v >>>= 4) {
                gather[--from] = HEX[v & 0xf];
            }
            gather[to++] = '\r';
            gather[to++] = '\n';
        }
        pipe.enqueue(gather, from, to - from);
    }

    /** Sends what gathered: the JDK's server writes its buffer out at a flush. */
    @Override
    public void flush() throws IOException {
        if (!closed) {
            sendGathered();
        }
    }

    @Override
    public void close() throws IOException {
        if (closed) {
            return;
        }
        if (pipe.headBytes() != null) {
            try {
                sendGathered();
            } catch (IOException e) {
                closed = true;
                pipe.end(true);
                throw e;
            }
        }
        closed = true;
        if (pipe.headBytes() == null) {
            // Closed with no head: the JDK answers nothing and closes; so do we, after a 500.
            pipe.end(true);
            return;
        }
        if (chunked) {
            try {
                pipe.enqueue(LAST_CHUNK, 0, LAST_CHUNK.length);
            } finally {
                pipe.end(false);
            }
            return;
        }
        if (closeDelimited) {
            pipe.end(true); // the close is the body's end
            return;
        }
        if (remaining > 0) {
            pipe.end(true);
            throw new IOException("insufficient bytes written to stream");
        }
        pipe.end(false);
    }
}
