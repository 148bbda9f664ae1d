package m0.server.http;

/**
 * Writes answers' bytes into a session's output: the head (status line, Date, fields,
 * Connection), a small body with it, and a large body or a file as the {@link BodyTail} the loop
 * sends after it (docs/adr/0071). {@link HttpSession} decides when an answer is due; this
 * decides its bytes, so that the session reads as its state machine. The loop thread's only.
 */
final class ResponseEncoder {

    private static final byte[] CRLF = {'\r', '\n'};
    private static final Response FORBIDDEN = Response.status(403);
    private static final Response NOT_FOUND = Response.status(404);

    /** The session's output, which the loop writes. */
    private final HeldBytes out;
    /** Null: nobody is told of what is answered. */
    private final ResponseObserver observer;
    /** Told when a file answer's file fails to open for a reason other than absence or access. */
    private final HandlerFailures failures;
    /** How a file answer's file is opened (a worker's: natively, for sendfile). */
    private BodyFiles files = BodyFiles.JAVA;

    ResponseEncoder(HeldBytes out, ResponseObserver observer, HandlerFailures failures) {
        this.out = out;
        this.observer = observer;
        this.failures = failures;
    }

    /** Files are opened by {@code files} from now on. */
    void files(BodyFiles files) {
        this.files = files;
    }

    /**
     * {@code r} into the output: its head and, when small, its body. Returns the tail the loop
     * sends after them, or null: then the answer is whole in the output and the observer told.
     */
    BodyTail encode(Response r, byte[] conn, boolean head, Request request, long start) {
        if (r.file() != null) {
            return encodeFile(r, conn, head, request, start);
        }
        byte[] body = head || r.bodyless() ? null : r.body();
        // A large body is written from the app's array after the head, not copied here first (ADR 0071).
        int copied = body == null ? 0 : body.length < BodyTail.IN_PLACE ? body.length : BodyTail.WITH_HEAD;
        encodeHead(r, conn, null, copied);
        if (copied > 0) {
            System.arraycopy(body, 0, out.bytes, out.wr, copied);
            out.wr += copied;
        }
        if (body != null && copied < body.length) {
            return new BodyTail(request, r.status(), start, body, copied);
        }
        if (observer != null) {
            observer.responded(request, r.status(), body == null ? 0 : body.length, start, false);
        }
        return null;
    }

    /** A file's answer: its head with the length it has now, then the file as the tail (ADR 0071). */
    private BodyTail encodeFile(Response r, byte[] conn, boolean head, Request request, long start) {
        BodyFiles.Open f;
        try {
            f = files.open(r.file());
        } catch (java.nio.file.NoSuchFileException e) {
            return encode(NOT_FOUND, conn, head, request, start);
        } catch (java.nio.file.AccessDeniedException e) {
            return encode(FORBIDDEN, conn, head, request, start);
        } catch (java.io.IOException | RuntimeException e) {
            failures.failed(request, e);
            return encode(HttpSession.SERVER_ERROR, conn, head, request, start);
        }
        // a Range's slice, or 416 (ADR 0071); the clock is read before the head's Date, never after it
        FileSlice slice = FileSlice.of(request, r, f.length(), System.currentTimeMillis());
        if (slice.refusal != null) {
            f.close();
            return encode(slice.refusal, conn, head, request, start);
        }
        r = slice.response;
        encodeHead(r, conn, r.bodyless() ? null : slice.fields, 0);
        if (head || r.bodyless() || slice.count == 0) {
            f.close();
            if (observer != null) observer.responded(request, r.status(), 0, start, false);
            return null;
        }
        return new BodyTail(request, r.status(), start, f, slice.from, slice.count);
    }

    /**
     * A streamed answer's head: {@code statusAndFields} as its exchange made them, then Date,
     * Connection (null: none) and the empty line.
     */
    void streamedHead(byte[] statusAndFields, byte[] conn) {
        byte[] date = HttpDate.line(System.currentTimeMillis());
        out.reserve(statusAndFields.length + date.length + (conn == null ? 0 : conn.length) + 2);
        out.put(statusAndFields);
        out.put(date);
        if (conn != null) out.put(conn);
        out.put(CRLF);
    }

    /** The status line, Date, the fixed fields, {@code length} (or none), Connection, the empty line; room for {@code more}. */
    private void encodeHead(Response r, byte[] conn, byte[] length, int more) {
        Response.Encoded e = r.encoded();
        byte[] date = HttpDate.line(System.currentTimeMillis());
        int n = e.statusLine.length + date.length + e.fields.length + (conn == null ? 0 : conn.length) + 2
                + (length == null ? 0 : length.length) + more;
        out.reserve(n);
        byte[] o = out.bytes;
        int w = out.wr;
        System.arraycopy(e.statusLine, 0, o, w, e.statusLine.length);
        w += e.statusLine.length;
        System.arraycopy(date, 0, o, w, date.length);
        w += date.length;
        System.arraycopy(e.fields, 0, o, w, e.fields.length);
        w += e.fields.length;
        if (length != null) {
            System.arraycopy(length, 0, o, w, length.length);
            w += length.length;
        }
        if (conn != null) {
            System.arraycopy(conn, 0, o, w, conn.length);
            w += conn.length;
        }
        o[w++] = '\r';
        o[w++] = '\n';
        out.wr = w;
    }
}
