package m0.server.http;

import java.nio.ByteBuffer;

/**
 * A body a session sends from where it lies, after its head has left the output: a large array
 * an app answered with (written from the app's array, not copied into the output first), or a
 * file (sent with sendfile(2) by the loop, or read into the output where it cannot be: TLS, a
 * loop without descriptors). Docs/adr/0071. The loop thread's only.
 */
final class BodyTail {
    /** Arrays at least this long are written in place; shorter ones are copied after their head. */
    static final int IN_PLACE = 32 * 1024;
    /** An in-place array's first bytes go with its head, so the head costs no write of its own. */
    static final int WITH_HEAD = 16 * 1024;
    /** A file read into the output (no sendfile) is read this much at a time. */
    static final int READ_CHUNK = 64 * 1024;

    final Request request;
    final int status;
    final long start;
    /** The array, or null for a file. */
    private final byte[] array;
    /** The open file, or null for an array. */
    final BodyFiles.Open file;
    final long length;
    /** Where a file's body starts in the file (a Range's slice; 0 for the whole). */
    private final long from;
    /** Bytes of the body that have left: written, sent by sendfile, or read into the output. */
    long sent;
    private ByteBuffer view;

    BodyTail(Request request, int status, long start, byte[] array, int from) {
        this.request = request;
        this.status = status;
        this.start = start;
        this.array = array;
        this.file = null;
        this.length = array.length;
        this.from = 0;
        this.sent = from;
    }

    /** The {@code length} bytes of {@code file} from {@code from}. */
    BodyTail(Request request, int status, long start, BodyFiles.Open file, long from, long length) {
        this.request = request;
        this.status = status;
        this.start = start;
        this.array = null;
        this.file = file;
        this.from = from;
        this.length = length;
    }

    /** Where in the file its next byte is. */
    long position() {
        return from + sent;
    }

    boolean complete() {
        return sent >= length;
    }

    /** An array's unwritten bytes, position..limit; null for a file. */
    ByteBuffer inPlace() {
        if (array == null) {
            return null;
        }
        ByteBuffer v = view;
        if (v == null) {
            view = v = ByteBuffer.wrap(array);
        }
        v.clear();
        v.position((int) sent);
        return v;
    }

    /** The file's descriptor for sendfile(2) while bytes are left, else -1. */
    int sendableFd() {
        return file == null || complete() ? -1 : file.fd();
    }

    /** A file's next chunk read into {@code out} (no sendfile here); false when it came short or failed. */
    boolean readInto(HeldBytes out) {
        int n = (int) Math.min(READ_CHUNK, length - sent);
        out.reserve(n);
        int r;
        try {
            r = file.read(ByteBuffer.wrap(out.bytes, out.wr, n), position());
        } catch (java.io.IOException e) {
            r = -1;
        }
        if (r <= 0) {
            return false;
        }
        out.wr += r;
        sent += r;
        return true;
    }

    void close() {
        if (file != null) {
            file.close();
        }
    }
}
