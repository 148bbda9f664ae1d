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

    private final PipedExchange pipe;
    private boolean closed;
    /** Set by {@link #frame} as the head is made: bytes still owed to a fixed length. */
    private long remaining;
    private boolean chunked;
    private boolean bodyless;
    /** HTTP/1.0 and a body of unknown length: no chunks (it cannot read them); the close ends it. */
    private boolean closeDelimited;

    FramedBody(PipedExchange pipe) {
        this.pipe = pipe;
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

    @Override
    public void close() throws IOException {
        if (closed) {
            return;
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
