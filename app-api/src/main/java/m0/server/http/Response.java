package m0.server.http;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * An immutable response: status, optional content type, extra headers, body bytes.
 * The server adds the framing itself (status line, {@code Date}, {@code Content-Length},
 * {@code Connection}), so those headers cannot be set here. A response may be reused for many
 * requests (a constant hello): its fixed head is encoded once, on first use, and cached.
 */
public final class Response {
    static final String TEXT_PLAIN = "text/plain; charset=utf-8";
    private static final byte[] EMPTY = new byte[0];

    private final int status;
    private final String contentType;
    private final byte[] body;
    private final String[] headers; // name, value, name, value ...
    /** Null but for a streamed response; its length, or {@link Exchange#CHUNKED}. */
    private final BodyWriter writer;
    private final long streamLength;
    /** Null but for a file's response: the file the server sends (sendfile(2) where it can). */
    private final java.nio.file.Path file;
    // Racy but benign: Encoded is immutable with final fields, so any thread sees it whole.
    private Encoded encoded;

    /**
     * @param contentType null for none
     * @param body        not copied: do not change it afterwards
     * @param headers     extra header names and values, alternating
     */
    public Response(int status, String contentType, byte[] body, String... headers) {
        if (status < 100 || status > 999) throw new IllegalArgumentException("status " + status);
        if (headers.length % 2 != 0) throw new IllegalArgumentException("headers: names and values must alternate");
        if (contentType != null) checkValue(contentType);
        for (int i = 0; i < headers.length; i += 2) {
            checkName(headers[i]);
            checkValue(headers[i + 1]);
        }
        this.status = status;
        this.contentType = contentType;
        this.body = body == null ? EMPTY : body;
        this.headers = headers.clone();
        this.writer = null;
        this.streamLength = 0;
        this.file = null;
    }

    /** What writes a streamed response's body, on a pool thread, as it is produced. */
    @FunctionalInterface
    public interface BodyWriter {
        /**
         * Writes the body. A write blocks while the client is behind (back-pressure); it throws
         * when the client has gone. The stream is closed after this returns.
         */
        void writeTo(java.io.OutputStream out) throws java.io.IOException;
    }

    /**
     * A response whose body is written as it is produced, by {@code writer} on the worker's
     * blocking pool: {@code length} bytes exactly, or {@link Exchange#CHUNKED}. Memory per
     * connection stays bounded whatever the length ({@link Exchange}).
     */
    public static Response stream(int status, String contentType, long length, BodyWriter writer, String... headers) {
        if (writer == null) throw new NullPointerException("writer");
        if (length < Exchange.CHUNKED) throw new IllegalArgumentException("length " + length);
        return new Response(new Response(status, contentType, EMPTY, headers), length, writer);
    }

    private Response(Response checked, long length, BodyWriter writer) {
        this.status = checked.status;
        this.contentType = checked.contentType;
        this.body = EMPTY;
        this.headers = checked.headers;
        this.writer = writer;
        this.streamLength = length;
        this.file = null;
    }

    private Response(Response checked, java.nio.file.Path file) {
        this.status = checked.status;
        this.contentType = checked.contentType;
        this.body = EMPTY;
        this.headers = checked.headers;
        this.writer = null;
        this.streamLength = 0;
        this.file = file;
    }

    /**
     * A response whose body is the file at {@code path}, as it is when the server opens it: the
     * server opens it when the answer's turn comes, takes its length then (Content-Length), sends
     * it with sendfile(2) where the connection allows (read and copied on TLS), and closes it
     * after the last byte. A file that cannot be opened is answered 404 (missing, or not a
     * regular file), 403 (not readable) or 500; one that shrinks while it is sent cuts the
     * connection. HEAD gets the head alone. A 200 answer to GET takes one byte range
     * ({@code Accept-Ranges: bytes}; 206 with the slice, sent by sendfile from its offset, or 416
     * with this answer's headers); HEAD ignores Range (RFC 9110 14.2) and gets the 200 head;
     * several ranges get the whole file; an {@code If-Range} is compared with this answer's own
     * {@code ETag} or {@code Last-Modified} header (none: the whole file). Set
     * {@code Accept-Ranges: none} (any case) to keep the server from taking ranges.
     * The path is the app's to check: this serves whatever it names.
     */
    public static Response file(int status, String contentType, java.nio.file.Path path, String... headers) {
        if (path == null) throw new NullPointerException("path");
        return new Response(new Response(status, contentType, EMPTY, headers), path);
    }

    /** This response at another status (a file answer's slice: 206), for the server. */
    Response withStatus(int status) {
        Response r = new Response(status, contentType, body, headers);
        return file == null ? r : new Response(r, file);
    }

    /** The file a {@link #file} response sends, or null. */
    public java.nio.file.Path file() {
        return file;
    }

    /** Whether the body is written by a {@link BodyWriter}. */
    public boolean streams() {
        return writer != null;
    }

    BodyWriter writer() {
        return writer;
    }

    long streamLength() {
        return streamLength;
    }

    /** The extra headers with Content-Type first, alternating (an exchange's head). */
    String[] headersWithType() {
        if (contentType == null) return headers.clone();
        String[] h = new String[headers.length + 2];
        h[0] = "Content-Type";
        h[1] = contentType;
        System.arraycopy(headers, 0, h, 2, headers.length);
        return h;
    }

    /** Checks a header an exchange writes: a token for a name, no CR/LF or controls in a value. */
    static void checkHeader(String name, String value) {
        if (name == null || name.isEmpty()) throw new IllegalArgumentException("empty header name");
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c > 127 || !HttpTokens.isTchar((byte) c)) throw new IllegalArgumentException("bad header name: " + name);
        }
        checkValue(value);
    }

    /** A text/plain UTF-8 response. */
    public static Response text(int status, String text) {
        return new Response(status, TEXT_PLAIN, text.getBytes(StandardCharsets.UTF_8));
    }

    /** A response with the given content type and body (not copied). */
    public static Response bytes(int status, String contentType, byte[] body) {
        return new Response(status, contentType, body);
    }

    /** A text response whose body is the status's reason phrase and a newline, e.g. "Not Found\n". */
    public static Response status(int status) {
        return text(status, reason(status) + "\n");
    }

    /** This response with one more header. */
    public Response withHeader(String name, String value) {
        String[] more = Arrays.copyOf(headers, headers.length + 2);
        more[headers.length] = name;
        more[headers.length + 1] = value;
        Response r = new Response(status, contentType, body, more);
        return file == null ? r : new Response(r, file);
    }

    public int status() {
        return status;
    }

    /** The content type, or null. */
    public String contentType() {
        return contentType;
    }

    /** The body bytes (the array itself: do not change it). */
    public byte[] body() {
        return body;
    }

    /** The first extra header of that name (case-insensitive), or null. */
    public String header(String name) {
        for (int i = 0; i < headers.length; i += 2) {
            if (headers[i].equalsIgnoreCase(name)) return headers[i + 1];
        }
        return null;
    }

    /** 1xx, 204 and 304 carry no body and (but 304) no Content-Length. */
    boolean bodyless() {
        return status < 200 || status == 204 || status == 304;
    }

    Encoded encoded() {
        Encoded e = encoded;
        if (e == null) {
            e = new Encoded(this);
            encoded = e;
        }
        return e;
    }

    /** The status line and the fixed fields (everything but Date and Connection). */
    static final class Encoded {
        final byte[] statusLine;
        final byte[] fields;

        Encoded(Response r) {
            statusLine = ("HTTP/1.1 " + r.status + " " + reason(r.status) + "\r\n").getBytes(StandardCharsets.ISO_8859_1);
            StringBuilder sb = new StringBuilder(64);
            if (r.contentType != null) sb.append("Content-Type: ").append(r.contentType).append("\r\n");
            // A file's length is the file's when it is opened: the server writes that field itself.
            if (!r.bodyless() && r.file == null) sb.append("Content-Length: ").append(r.body.length).append("\r\n");
            for (int i = 0; i < r.headers.length; i += 2) {
                sb.append(r.headers[i]).append(": ").append(r.headers[i + 1]).append("\r\n");
            }
            // Header values are checked to be Latin-1 safe; UTF-8 text in them would be mangled.
            fields = sb.toString().getBytes(StandardCharsets.ISO_8859_1);
        }
    }

    private static void checkName(String name) {
        if (name == null || name.isEmpty()) throw new IllegalArgumentException("empty header name");
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            if (c > 127 || !HttpTokens.isTchar((byte) c)) throw new IllegalArgumentException("bad header name: " + name);
        }
        switch (name.toLowerCase(java.util.Locale.ROOT)) {
            case "content-length", "transfer-encoding", "connection", "date", "keep-alive", "upgrade" ->
                throw new IllegalArgumentException(name + " is set by the server");
            default -> { }
        }
    }

    private static void checkValue(String value) {
        if (value == null) throw new IllegalArgumentException("null header value");
        for (int i = 0; i < value.length(); i++) {
            char c = value.charAt(i);
            // No CR/LF (response splitting), no other controls, nothing Latin-1 cannot carry.
            if ((c < 0x20 && c != '\t') || c == 0x7f || c > 0xff) {
                throw new IllegalArgumentException("bad character in header value: " + (int) c);
            }
        }
    }

    /** The reason phrase of a status code ("Unknown" for codes not listed). */
    static String reason(int status) {
        return switch (status) {
            case 100 -> "Continue";
            case 101 -> "Switching Protocols";
            case 200 -> "OK";
            case 201 -> "Created";
            case 202 -> "Accepted";
            case 204 -> "No Content";
            case 206 -> "Partial Content";
            case 301 -> "Moved Permanently";
            case 302 -> "Found";
            case 303 -> "See Other";
            case 304 -> "Not Modified";
            case 307 -> "Temporary Redirect";
            case 308 -> "Permanent Redirect";
            case 400 -> "Bad Request";
            case 401 -> "Unauthorized";
            case 403 -> "Forbidden";
            case 404 -> "Not Found";
            case 405 -> "Method Not Allowed";
            case 408 -> "Request Timeout";
            case 409 -> "Conflict";
            case 411 -> "Length Required";
            case 413 -> "Content Too Large";
            case 414 -> "URI Too Long";
            case 415 -> "Unsupported Media Type";
            case 416 -> "Range Not Satisfiable";
            case 417 -> "Expectation Failed";
            case 429 -> "Too Many Requests";
            case 431 -> "Request Header Fields Too Large";
            case 500 -> "Internal Server Error";
            case 501 -> "Not Implemented";
            case 502 -> "Bad Gateway";
            case 503 -> "Service Unavailable";
            case 504 -> "Gateway Timeout";
            case 505 -> "HTTP Version Not Supported";
            default -> "Unknown";
        };
    }

    @Override
    public String toString() {
        return file != null ? "Response[" + status + ", file " + file + "]" : "Response[" + status + ", " + body.length + " bytes]";
    }
}
