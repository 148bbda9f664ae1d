package m0.server.http;

import static m0.server.http.HeadBytes.digits;
import static m0.server.http.HeadBytes.hex;
import static m0.server.http.HeadBytes.indexOf;
import static m0.server.http.HeadBytes.indexOfLf;
import static m0.server.http.HeadBytes.isTchar;
import static m0.server.http.HeadBytes.method;
import static m0.server.http.HeadBytes.nameIs;
import static m0.server.http.HeadBytes.validHost;
import static m0.server.http.HeadBytes.validValue;
import static m0.server.http.HeadBytes.valueIs;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * Incremental HTTP/1.1 request parser over one connection's bytes. Bytes are appended as they
 * arrive, split anywhere; {@link #next()} turns them into requests one at a time. No I/O, no
 * threads; owned by one {@link HttpSession}.
 *
 * <p>The head is scanned for its end incrementally (the scan resumes where it stopped), then
 * parsed in one pass over bytes that are already in cache; no regex, and no String per header.
 */
final class HttpParser {
    static final int NEED_MORE = 0;
    static final int REQUEST = 1;
    /** The head asked {@code Expect: 100-continue} and its body has not started: send 100 now. */
    static final int CONTINUE = 2;
    /**
     * Streaming bodies ({@link #streamBodies}): a head whose body follows; {@link #request()} has
     * no body, and the body goes to the sink given to {@link #streamTo} as it arrives.
     */
    static final int HEAD_READY = 3;
    /** Streaming bodies: the streamed body is complete (its sink was told). */
    static final int BODY_END = 4;

    private static final int HEAD = 0;
    private static final int BODY_LENGTH = 1;
    private static final int CHUNK_SIZE = 2;
    private static final int CHUNK_EXT = 3;
    private static final int CHUNK_SIZE_LF = 4;
    private static final int CHUNK_DATA = 5;
    private static final int CHUNK_DATA_CR = 6;
    private static final int CHUNK_DATA_LF = 7;
    private static final int TRAILER = 8;
    private static final int DEAD = 9;

    /** Empty lines tolerated before a request line (RFC 9112 2.2 says "at least one"); more: 400. */
    static final int MAX_LEADING_EMPTY_LINES = 4;
    /** A transfer coding other than chunked (RFC 9112 6.1: SHOULD be 501). */
    static final int NOT_IMPLEMENTED = 501;

    private static final byte[] EMPTY = new byte[0];
    private static final byte[] OPTIONS = "OPTIONS".getBytes(StandardCharsets.ISO_8859_1);
    private final int maxHead;
    private final long maxBody;

    /** Bytes read and not yet consumed: in the loop's scratch while it can (docs/adr/0036). */
    private final HeldBytes in;
    private int state = HEAD;
    // Head scan progress, relative to rd so compaction does not move them.
    private int scanRel;
    private int lineStartRel;
    /** Complete head lines before this (relative to rd) were checked while the head was partial. */
    private int checkedRel;
    private int emptyLines;
    // The request line's shape, set by requestLine().
    private int rlSp1;
    private int rlSp2;
    private boolean rlHttp11;

    // The request being read.
    private String method;
    private String target;
    private String version;
    private byte[] head;
    private int headersFrom;
    private int headersTo;
    private boolean keepAlive;
    private boolean continuePending;
    private long contentLength;
    private byte[] body;
    private int bodyLen;
    // Chunked decoding.
    private long chunkSize;
    private int sizeDigits;
    private int sizeLineBytes;
    private int trailerBytes;
    private int trailerLineBytes;
    private boolean trailerLineCr;

    /** Bodies stream to a sink instead of being read whole (no --max-body-bytes: the sink bounds them). */
    private boolean streamBodies;
    /** The body being streamed, or null. */
    private RequestBody sink;

    // The last result of next() == REQUEST.
    private Request request;
    private boolean requestKeepAlive;

    HttpParser(HttpConfig config) {
        this(config, null);
    }

    /** With {@code scratch} (null: none), the loop's array to parse in while bytes are held. */
    HttpParser(HttpConfig config, Scratch scratch) {
        this.maxHead = config.maxHeaderBytes();
        this.maxBody = config.maxBodyBytes();
        this.in = new HeldBytes(scratch);
    }

    /** From now on a body streams to the sink {@link #streamTo} gives, after {@link #HEAD_READY}. */
    void streamBodies() {
        streamBodies = true;
    }

    /** Where the body of the head just returned goes. */
    void streamTo(RequestBody body) {
        sink = body;
    }

    /** A streamed body is being read and its sink is full: nothing more is read until it has room. */
    boolean sinkFull() {
        return sink != null && sink.full();
    }

    /** Whether the head just returned asked for a 100 Continue (and forgets it: the caller sends it). */
    boolean takeContinue() {
        boolean c = continuePending;
        continuePending = false;
        return c;
    }

    /** A streamed body is being read. */
    boolean streaming() {
        return sink != null;
    }

    /** Takes all of src's remaining bytes. */
    void append(ByteBuffer src) {
        int n = src.remaining();
        if (n == 0) return;
        if (state == DEAD) {
            src.position(src.limit());
            return;
        }
        // A body arriving with nothing buffered goes straight to its array: one copy, not two.
        if (state == BODY_LENGTH && sink == null && in.rd == in.wr) {
            int take = (int) Math.min(n, contentLength - bodyLen);
            src.get(body, bodyLen, take);
            bodyLen += take;
            if (take == n) return;
        }
        in.put(src);
    }

    /** Appends from an array (tests and callers holding byte[]). */
    void append(byte[] bytes, int off, int len) {
        append(ByteBuffer.wrap(bytes, off, len));
    }

    /** The bytes read and not yet consumed (tests). */
    HeldBytes held() {
        return in;
    }

    /** Bytes received and not yet consumed by a request. */
    int buffered() {
        return in.size();
    }

    /** Some of a request is read (its head or body), or received bytes wait to be parsed. */
    boolean partial() {
        return state != DEAD && (state != HEAD || in.size() > 0);
    }

    /** A head is complete and its body is being read. */
    boolean inBody() {
        return state != HEAD && state != DEAD;
    }

    /** Parsing stopped for good (an error, or the connection is closing). */
    boolean dead() {
        return state == DEAD;
    }

    /** Stop parsing for good and drop whatever is buffered. */
    void kill() {
        if (sink != null) {
            sink.abort("the request body ended early: the connection closed or the body was malformed");
            sink = null;
        }
        state = DEAD;
        body = null;
        head = null;
        in.holdNothing();
    }

    Request request() {
        return request;
    }

    boolean requestKeepAlive() {
        return requestKeepAlive;
    }

    /**
     * Parses on: {@link #NEED_MORE}, {@link #REQUEST} (see {@link #request()}), {@link #CONTINUE},
     * or an error status (400, 413, 431) after which the parser is dead.
     */
    int next() {
        if (continuePending) {
            continuePending = false;
            return CONTINUE;
        }
        int r = switch (state) {
            case HEAD -> head();
            case BODY_LENGTH -> bodyLength();
            case DEAD -> NEED_MORE;
            default -> chunked();
        };
        if (in.rd == in.wr && state != DEAD) {
            in.holdNothing(); // the scratch is free for the next read, ours or another's
        }
        return r;
    }

    private int fail(int status) {
        kill();
        return status;
    }

    private int head() {
        // Locals, not in's fields: the scan stays as small as it was, so next() still inlines it.
        HeldBytes h = in;
        byte[] b = h.bytes;
        int rd = h.rd;
        int end = h.wr;
        if (scanRel == 0) {
            // RFC 9112 2.2: ignore empty lines before a request line, a few of them.
            while (rd < end && (b[rd] == '\r' || b[rd] == '\n')) {
                if (b[rd++] == '\n' && ++emptyLines > MAX_LEADING_EMPTY_LINES) return fail(400);
            }
            h.rd = rd;
        }
        int i = rd + scanRel;
        int ls = rd + lineStartRel;
        while (i < end) {
            int lf = indexOfLf(b, i, end);
            if (lf < 0) {
                i = end;
                break;
            }
            int len = lf - ls;
            if (len == 0 || (len == 1 && b[ls] == '\r')) {
                int headEnd = lf + 1;
                scanRel = 0;
                lineStartRel = 0;
                checkedRel = 0;
                if (headEnd - rd > maxHead) return fail(431);
                return parseHead(headEnd);
            }
            ls = lf + 1;
            i = lf + 1;
        }
        scanRel = i - rd;
        lineStartRel = ls - rd;
        // The head is not complete: answer a bad line now, not when (if ever) the head ends.
        if (ls - rd > checkedRel && !checkLines(rd + checkedRel, ls)) return fail(400);
        checkedRel = ls - rd;
        if (end - rd > maxHead) return fail(431);
        return NEED_MORE;
    }

    /** The complete lines in [from, to) of a partial head: the request line (at rd) and header lines. */
    private boolean checkLines(int from, int to) {
        byte[] b = in.bytes;
        int p = from;
        while (p < to) {
            int eol = indexOfLf(b, p, to);
            int end = eol > p && b[eol - 1] == '\r' ? eol - 1 : eol;
            if (p == in.rd ? requestLine(b, p, end) != 0 : !headerLine(b, p, end)) return false;
            p = eol + 1;
        }
        return true;
    }

    /** name ":" value with a token name (so no obs-fold) and no control byte but HTAB in the value. */
    private static boolean headerLine(byte[] b, int p, int end) {
        int colon = p;
        while (colon < end && isTchar(b[colon])) colon++;
        return colon != p && colon < end && b[colon] == ':' && validValue(b, colon + 1, end);
    }

    /**
     * method SP request-target SP HTTP-version in b[p, end): 0 (and rlSp1, rlSp2, rlHttp11 set) or
     * 400. HTTP/1.2 and up are read as 1.1 (RFC 9110 2.5). The target must be origin-form, "*"
     * for OPTIONS, or absolute-form http(s) (RFC 9112 3.2); authority-form (CONNECT) is refused.
     */
    private int requestLine(byte[] b, int p, int end) {
        int sp1 = p;
        while (sp1 < end && isTchar(b[sp1])) sp1++;
        if (sp1 == p || sp1 >= end || b[sp1] != ' ') return 400;
        int t0 = sp1 + 1;
        int sp2 = t0;
        while (sp2 < end && b[sp2] > 0x20 && b[sp2] < 0x7f) sp2++; // visible ASCII only
        if (sp2 == t0 || sp2 >= end || b[sp2] != ' ') return 400;
        int v0 = sp2 + 1;
        if (end - v0 != 8 || b[v0] != 'H' || b[v0 + 1] != 'T' || b[v0 + 2] != 'T' || b[v0 + 3] != 'P'
                || b[v0 + 4] != '/' || b[v0 + 5] != '1' || b[v0 + 6] != '.' || b[v0 + 7] < '0' || b[v0 + 7] > '9') {
            return 400;
        }
        if (b[t0] != '/') {
            boolean star = sp2 - t0 == 1 && b[t0] == '*';
            boolean options = sp1 - p == 7 && Arrays.equals(b, p, sp1, OPTIONS, 0, 7);
            if (star ? !options : !absoluteForm(b, t0, sp2)) return 400;
        }
        rlSp1 = sp1;
        rlSp2 = sp2;
        rlHttp11 = b[v0 + 7] != '0';
        return 0;
    }

    /** "http://" or "https://" (any case), a valid authority without userinfo, then "/", "?" or the end. */
    private static boolean absoluteForm(byte[] b, int from, int to) {
        int a;
        if (to - from > 7 && nameIs(b, from, "http://")) a = from + 7;
        else if (to - from > 8 && nameIs(b, from, "https://")) a = from + 8;
        else return false;
        int z = a;
        while (z < to && b[z] != '/' && b[z] != '?') z++;
        return validHost(b, a, z);
    }
    private int parseHead(int headEnd) {
        // The head is b[rd, headEnd): each of its lines ends in an LF before headEnd.
        byte[] b = in.bytes;
        int rd = in.rd;
        int p = rd;
        int eol = indexOfLf(b, p, headEnd);
        int end = eol > p && b[eol - 1] == '\r' ? eol - 1 : eol;
        if (requestLine(b, p, end) != 0) return fail(400);
        int sp1 = rlSp1;
        int sp2 = rlSp2;
        int t0 = sp1 + 1;
        boolean http11 = rlHttp11;

        long cl = -1;
        boolean te = false;
        boolean teUnknown = false;
        int hosts = 0;
        boolean close = false;
        boolean ka = false;
        boolean expect = false;
        p = eol + 1;
        int from = p;
        while (true) {
            eol = indexOfLf(b, p, headEnd);
            end = eol > p && b[eol - 1] == '\r' ? eol - 1 : eol;
            if (end == p) break; // the blank line
            // A line starting with SP or HTAB (obs-fold, RFC 9112 5.2) fails here: not a tchar.
            int colon = p;
            while (colon < end && isTchar(b[colon])) colon++;
            if (colon == p || colon >= end || b[colon] != ':') return fail(400);
            int v = colon + 1;
            if (!validValue(b, v, end)) return fail(400); // CR, NUL, DEL... in a value
            while (v < end && (b[v] == ' ' || b[v] == '\t')) v++;
            int ve = end;
            while (ve > v && (b[ve - 1] == ' ' || b[ve - 1] == '\t')) ve--;
            switch (colon - p) {
                case 14 -> {
                    if (nameIs(b, p, "content-length")) {
                        // One, even when equal (RFC 9112 6.3 would allow "5, 5"; nginx refuses it too).
                        long n = digits(b, v, ve);
                        if (n < 0 || cl >= 0) return fail(400);
                        cl = n;
                    }
                }
                case 17 -> {
                    if (nameIs(b, p, "transfer-encoding")) {
                        // RFC 9112 6.1, 6.3: chunked once and last, or the framing is unknown: 400.
                        // Another coding before it is one we do not implement: 501. No HTAB in it:
                        // legal OWS, but a front end that disagrees would frame the body otherwise.
                        if (indexOf(b, colon + 1, end, (byte) '\t') >= 0) return fail(400);
                        int t = v;
                        while (t < ve) {
                            int comma = t;
                            while (comma < ve && b[comma] != ',') comma++;
                            int ts = t;
                            int tz = comma;
                            while (ts < tz && (b[ts] == ' ' || b[ts] == '\t')) ts++;
                            while (tz > ts && (b[tz - 1] == ' ' || b[tz - 1] == '\t')) tz--;
                            if (te) return fail(400); // anything after chunked, or chunked twice
                            if (valueIs(b, ts, tz, "chunked")) te = true;
                            else if (tz > ts) teUnknown = true;
                            t = comma + 1;
                        }
                        if (!te) return fail(400); // this field does not end in chunked
                    }
                }
                case 4 -> {
                    if (nameIs(b, p, "host")) {
                        if (++hosts > 1 || !validHost(b, v, ve)) return fail(400);
                    }
                }
                case 10 -> {
                    if (nameIs(b, p, "connection")) {
                        int t = v;
                        while (t < ve) {
                            int comma = t;
                            while (comma < ve && b[comma] != ',') comma++;
                            int ts = t;
                            int tz = comma;
                            while (ts < tz && (b[ts] == ' ' || b[ts] == '\t')) ts++;
                            while (tz > ts && (b[tz - 1] == ' ' || b[tz - 1] == '\t')) tz--;
                            if (valueIs(b, ts, tz, "close")) close = true;
                            else if (valueIs(b, ts, tz, "keep-alive")) ka = true;
                            t = comma + 1;
                        }
                    }
                }
                case 6 -> {
                    if (nameIs(b, p, "expect") && valueIs(b, v, ve, "100-continue")) expect = true;
                }
                default -> { }
            }
            p = eol + 1;
        }
        // RFC 9112 3.2: exactly one valid Host in HTTP/1.1 (at most one in 1.0), else 400.
        if (http11 && hosts != 1) return fail(400);
        if (te && cl >= 0) return fail(400); // RFC 9112 6.3: a smuggling vector; refuse
        if (teUnknown) return fail(NOT_IMPLEMENTED);
        if (cl > maxBody && !streamBodies) return fail(413);
        // RFC 9112 6.1: chunked in an HTTP/1.0 request is faulty framing; close after it.
        if (te && !http11) close = true;

        method = method(b, rd, sp1);
        target = new String(b, t0, sp2 - t0, StandardCharsets.ISO_8859_1);
        version = http11 ? Request.HTTP_1_1 : Request.HTTP_1_0;
        head = Arrays.copyOfRange(b, rd, headEnd);
        headersFrom = from - rd;
        headersTo = p - rd;
        keepAlive = http11 ? !close : ka && !close;
        in.rd = headEnd;
        bodyLen = 0;
        if (te) {
            state = CHUNK_SIZE;
            body = streamBodies ? null : EMPTY;
            resetChunkLine();
        } else if (cl > 0) {
            state = BODY_LENGTH;
            contentLength = cl;
            body = streamBodies ? null : new byte[(int) cl];
        } else {
            body = null;
            return complete();
        }
        // Only worth a 100 when none of the body was sent along with the head.
        if (expect && http11 && in.rd == in.wr) continuePending = true;
        if (streamBodies) {
            request = new Request(method, target, version, head, headersFrom, headersTo, null);
            requestKeepAlive = keepAlive;
            return HEAD_READY;
        }
        return next();
    }


    private int bodyLength() {
        if (sink != null) {
            contentLength -= toSink(contentLength);
            return contentLength == 0 ? complete() : NEED_MORE;
        }
        int take = (int) Math.min(contentLength - bodyLen, in.wr - in.rd);
        System.arraycopy(in.bytes, in.rd, body, bodyLen, take);
        in.rd += take;
        bodyLen += take;
        return bodyLen == contentLength ? complete() : NEED_MORE;
    }

    /**
     * Moves up to {@code want} buffered body bytes into the streamed body's pipe, until the bytes
     * or its room run out. Only {@code room() == 0}, which marks the loop as waiting under the
     * pipe's lock, may stop this with bytes left: the reader may free room between a room() and
     * its put(), and a pipe left short of full would never be read into a wake-up.
     *
     * @return the bytes moved
     */
    private long toSink(long want) {
        long moved = 0;
        while (moved < want && in.rd < in.wr) {
            int take = (int) Math.min(Math.min(want - moved, in.wr - in.rd), sink.room());
            if (take == 0) {
                break; // the reader is behind: its next read wakes the loop
            }
            sink.put(in.bytes, in.rd, take);
            in.rd += take;
            moved += take;
        }
        return moved;
    }

    private void resetChunkLine() {
        chunkSize = 0;
        sizeDigits = 0;
        sizeLineBytes = 0;
    }

    private int chunked() {
        byte[] b = in.bytes;
        while (in.rd < in.wr) {
            switch (state) {
                case CHUNK_SIZE -> {
                    byte c = b[in.rd];
                    int hex = hex(c);
                    if (hex >= 0) {
                        chunkSize = (chunkSize << 4) | hex;
                        if (++sizeDigits > 15) return fail(400); // no overflow below 2^60
                        if (sink == null && bodyLen + chunkSize > maxBody) return fail(413);
                        in.rd++;
                    } else if (sizeDigits == 0) {
                        return fail(400);
                    } else if (c == ';' || c == ' ' || c == '\t') {
                        state = CHUNK_EXT; // extensions are ignored
                        in.rd++;
                    } else if (c == '\r') {
                        state = CHUNK_SIZE_LF;
                        in.rd++;
                    } else if (c == '\n') {
                        in.rd++;
                        sizeLineDone();
                    } else {
                        return fail(400);
                    }
                    if (++sizeLineBytes > maxHead) return fail(400);
                }
                case CHUNK_EXT -> {
                    int c = b[in.rd] & 0xff;
                    in.rd++;
                    if (c == '\n') sizeLineDone();
                    else if (c == '\r') state = CHUNK_SIZE_LF;
                    else if ((c < 0x20 && c != '\t') || c == 0x7f) return fail(400);
                    else if (++sizeLineBytes > maxHead) return fail(400);
                }
                case CHUNK_SIZE_LF -> {
                    if (b[in.rd++] != '\n') return fail(400);
                    sizeLineDone();
                }
                case CHUNK_DATA -> {
                    if (sink != null) {
                        chunkSize -= toSink(chunkSize);
                        if (chunkSize != 0) return NEED_MORE; // the bytes or the reader's room ran out
                        state = CHUNK_DATA_CR;
                        continue;
                    }
                    int take = (int) Math.min(chunkSize, in.wr - in.rd);
                    System.arraycopy(b, in.rd, body, bodyLen, take);
                    in.rd += take;
                    bodyLen += take;
                    chunkSize -= take;
                    if (chunkSize == 0) state = CHUNK_DATA_CR;
                }
                case CHUNK_DATA_CR -> {
                    byte c = b[in.rd++];
                    if (c == '\r') state = CHUNK_DATA_LF;
                    else if (c == '\n') nextChunk();
                    else return fail(400);
                }
                case CHUNK_DATA_LF -> {
                    if (b[in.rd++] != '\n') return fail(400);
                    nextChunk();
                }
                case TRAILER -> {
                    // Trailer fields are consumed and dropped; only their size is bounded.
                    byte c = b[in.rd++];
                    if (c == '\n') {
                        if (trailerLineBytes == 0 || (trailerLineBytes == 1 && trailerLineCr)) return complete();
                        trailerLineBytes = 0;
                    } else {
                        trailerLineBytes++;
                        trailerLineCr = c == '\r';
                    }
                    if (++trailerBytes > maxHead) return fail(431);
                }
                default -> throw new IllegalStateException("state " + state);
            }
        }
        return NEED_MORE;
    }

    private void sizeLineDone() {
        if (chunkSize == 0) {
            state = TRAILER;
            trailerBytes = 0;
            trailerLineBytes = 0;
            trailerLineCr = false;
            return;
        }
        if (sink != null) {
            state = CHUNK_DATA;
            return;
        }
        int need = (int) (bodyLen + chunkSize); // <= maxBody, checked digit by digit
        if (need > body.length) body = Arrays.copyOf(body, (int) Math.min(maxBody, Math.max(need, body.length * 2L)));
        state = CHUNK_DATA;
    }

    private void nextChunk() {
        state = CHUNK_SIZE;
        resetChunkLine();
    }

    private int complete() {
        if (sink != null) {
            sink.end();
            sink = null;
            emptyLines = 0;
            state = HEAD;
            head = null;
            return BODY_END;
        }
        byte[] bd = body;
        if (bd != null && bd.length != bodyLen) bd = Arrays.copyOf(bd, bodyLen);
        request = new Request(method, target, version, head, headersFrom, headersTo, bd);
        requestKeepAlive = keepAlive;
        emptyLines = 0;
        state = HEAD;
        body = null;
        head = null;
        return REQUEST;
    }
}
