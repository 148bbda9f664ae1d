package m0.server.http;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * One parsed request: method, target, version, headers, body. Immutable; safe to hand to a pool
 * thread. Headers are kept as the raw head bytes and looked up on demand, so a request whose
 * headers nobody asks for costs no String per header.
 */
public final class Request {
    public static final String HTTP_1_1 = "HTTP/1.1";
    public static final String HTTP_1_0 = "HTTP/1.0";
    private static final byte[] EMPTY = new byte[0];

    private final String method;
    private final String target;
    private final String version;
    private final byte[] head;        // the head, from the request line through the blank line
    private final int headersFrom;    // start of the first header line in head
    private final int headersTo;      // start of the blank line ending the head
    private final byte[] body;
    // Lazily split; racy but benign: Strings are immutable and recomputed identically.
    private String path;
    private String query;
    private boolean split;

    Request(String method, String target, String version, byte[] head, int headersFrom, int headersTo, byte[] body) {
        this.method = method;
        this.target = target;
        this.version = version;
        this.head = head;
        this.headersFrom = headersFrom;
        this.headersTo = headersTo;
        this.body = body == null ? EMPTY : body;
    }

    /**
     * A request built by hand (for tests of an app): {@code headers} alternate names and values.
     */
    public static Request of(String method, String target, byte[] body, String... headers) {
        if (headers.length % 2 != 0) throw new IllegalArgumentException("headers: names and values must alternate");
        StringBuilder sb = new StringBuilder();
        sb.append(method).append(' ').append(target).append(' ').append(HTTP_1_1).append("\r\n");
        int from = sb.length();
        for (int i = 0; i < headers.length; i += 2) sb.append(headers[i]).append(": ").append(headers[i + 1]).append("\r\n");
        int to = sb.length();
        sb.append("\r\n");
        return new Request(method, target, HTTP_1_1, sb.toString().getBytes(StandardCharsets.ISO_8859_1), from, to, body);
    }

    /** The method, e.g. "GET" (case-sensitive, as sent). */
    public String method() {
        return method;
    }

    /** The request target as sent, e.g. "/sleep?ms=5". */
    public String target() {
        return target;
    }

    /** "HTTP/1.1" or "HTTP/1.0". */
    public String version() {
        return version;
    }

    /** The path part of the target, without the query (not percent-decoded). */
    public String path() {
        if (!split) split();
        return path;
    }

    /** The raw query after '?', or null when there is none. */
    public String query() {
        if (!split) split();
        return query;
    }

    /**
     * The first value of a query parameter, percent-decoded as UTF-8; "" for a name without '=';
     * null when absent.
     *
     * @throws IllegalArgumentException on a malformed percent escape
     */
    public String queryParam(String name) {
        String q = query();
        if (q == null) return null;
        int i = 0;
        int n = q.length();
        while (i <= n) {
            int amp = q.indexOf('&', i);
            if (amp < 0) amp = n;
            int eq = q.indexOf('=', i);
            int nameEnd = eq >= 0 && eq < amp ? eq : amp;
            if (nameEnd > i && decode(q, i, nameEnd).equals(name)) {
                return nameEnd == amp ? "" : decode(q, nameEnd + 1, amp);
            }
            i = amp + 1;
        }
        return null;
    }

    private static String decode(String s, int from, int to) {
        String part = s.substring(from, to);
        if (part.indexOf('%') < 0 && part.indexOf('+') < 0) return part;
        return URLDecoder.decode(part, StandardCharsets.UTF_8);
    }

    private void split() {
        String t = target;
        int start = 0;
        // Absolute form (a proxy-style target): the path starts after the authority.
        if (!t.isEmpty() && t.charAt(0) != '/') {
            int scheme = t.indexOf("://");
            if (scheme > 0) {
                int slash = t.indexOf('/', scheme + 3);
                int q = t.indexOf('?', scheme + 3);
                if (slash < 0 || (q >= 0 && q < slash)) {
                    query = q >= 0 ? t.substring(q + 1) : null;
                    path = "/";
                    split = true;
                    return;
                }
                start = slash;
            }
        }
        int q = t.indexOf('?', start);
        path = q < 0 ? (start == 0 ? t : t.substring(start)) : t.substring(start, q);
        query = q < 0 ? null : t.substring(q + 1);
        split = true;
    }

    /** The first value of a header (name case-insensitive), trimmed; null when absent. */
    public String header(String name) {
        int i = headersFrom;
        while (i < headersTo) {
            int eol = lineEnd(i);
            int colon = indexOf(i, eol, (byte) ':');
            if (colon - i == name.length() && nameEquals(i, name)) return value(colon + 1, eol);
            i = eol + 1;
        }
        return null;
    }

    /** Every value of a header, in order (name case-insensitive). */
    public List<String> headers(String name) {
        List<String> out = new ArrayList<>(2);
        int i = headersFrom;
        while (i < headersTo) {
            int eol = lineEnd(i);
            int colon = indexOf(i, eol, (byte) ':');
            if (colon - i == name.length() && nameEquals(i, name)) out.add(value(colon + 1, eol));
            i = eol + 1;
        }
        return out;
    }

    /** Every header name, in order, as sent (repeated names appear repeatedly). */
    public List<String> headerNames() {
        List<String> out = new ArrayList<>();
        int i = headersFrom;
        while (i < headersTo) {
            int eol = lineEnd(i);
            int colon = indexOf(i, eol, (byte) ':');
            out.add(new String(head, i, colon - i, StandardCharsets.ISO_8859_1));
            i = eol + 1;
        }
        return out;
    }

    /** The body (decoded from chunks when chunked; empty when none). The array itself: do not change it. */
    public byte[] body() {
        return body;
    }

    /** The body as UTF-8 text. */
    public String bodyText() {
        return new String(body, StandardCharsets.UTF_8);
    }

    private int lineEnd(int from) {
        int i = from;
        while (head[i] != '\n') i++;
        return i;
    }

    private int indexOf(int from, int to, byte b) {
        for (int i = from; i < to; i++) if (head[i] == b) return i;
        return to;
    }

    private boolean nameEquals(int at, String name) {
        for (int k = 0; k < name.length(); k++) {
            int a = head[at + k] & 0xff;
            int b = name.charAt(k);
            if (a != b && HttpTokens.lower(a) != (b < 128 ? HttpTokens.lower(b) : b)) return false;
        }
        return true;
    }

    private String value(int from, int eol) {
        int to = eol;
        if (to > from && head[to - 1] == '\r') to--;
        while (from < to && (head[from] == ' ' || head[from] == '\t')) from++;
        while (to > from && (head[to - 1] == ' ' || head[to - 1] == '\t')) to--;
        return new String(head, from, to - from, StandardCharsets.ISO_8859_1);
    }

    @Override
    public String toString() {
        return method + " " + target + " " + version;
    }
}
