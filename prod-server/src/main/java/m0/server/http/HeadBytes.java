package m0.server.http;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * The byte-level syntax of a request head (RFC 9110, RFC 9112), for {@link HttpParser}: token
 * and value bytes, a Host, a Content-Length, a chunk size's digits, and the LF scan. Each reads
 * a range of the head's array in place: no String per header, one table lookup or eight bytes a
 * step on what runs for every request.
 */
final class HeadBytes {

    /** The API's token table (app-api's HttpTokens): the parser and Response check names alike. */
    private static final boolean[] TCHAR = HttpTokens.TCHAR;
    /** reg-name bytes: unreserved, sub-delims and "%" (pct-encoded) are HOST_NAME but ".": HOST_DOT. */
    private static final byte[] HOST_CLASS = new byte[256];
    private static final int HOST_NAME = 1;
    private static final int HOST_DOT = 2;
    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long ONES = 0x0101010101010101L;
    private static final long HIGHS = 0x8080808080808080L;
    private static final long LFS = ONES * '\n';

    static {
        for (int c = '0'; c <= '9'; c++) HOST_CLASS[c] = HOST_NAME;
        for (int c = 'a'; c <= 'z'; c++) HOST_CLASS[c] = HOST_NAME;
        for (int c = 'A'; c <= 'Z'; c++) HOST_CLASS[c] = HOST_NAME;
        for (char c : "-_~!$&'()*+,;=%".toCharArray()) HOST_CLASS[c] = HOST_NAME;
        HOST_CLASS['.'] = HOST_DOT;
    }

    private HeadBytes() {
    }

    static boolean isTchar(byte b) {
        return TCHAR[b & 0xff];
    }

    static int lower(int c) {
        return HttpTokens.lower(c);
    }


    /**
     * A Host value (RFC 9110 7.2, RFC 3986 3.2.2): reg-name or IPv4 characters, or an IP-literal
     * in brackets, then an optional ":" port of digits. Never empty: an origin server always has
     * an authority to name, and nginx refuses an empty one too.
     */
    static boolean validHost(byte[] b, int from, int to) {
        if (from >= to) return false;
        int p = from;
        if (b[p] == '[') {
            while (p < to && b[p] != ']') {
                int c = b[p];
                if (p > from && hex((byte) c) < 0 && c != ':' && c != '.' && c != 'v' && c != 'V') return false;
                p++;
            }
            if (p >= to) return false;
            p++;
        } else {
            // One table lookup a byte (it runs on every request): no "..", no leading dot (nginx
            // refuses both: a path-like host is a trap for apps).
            int prev = HOST_DOT;
            for (; p < to; p++) {
                int k = HOST_CLASS[b[p] & 0xff];
                if (k == HOST_NAME || (k == HOST_DOT && prev != HOST_DOT)) {
                    prev = k;
                } else {
                    break;
                }
            }
            if (p == from) return false;
        }
        if (p == to) return true;
        if (b[p++] != ':') return false;
        for (; p < to; p++) {
            if ((b[p] - '0' & 0xff) > 9) return false;
        }
        return true;
    }

    /** No control byte but HTAB in b[from, to): bytes 0x20-0x7E and obs-text 0x80-0xFF. */
    static boolean validValue(byte[] b, int from, int to) {
        int i = from;
        for (; i + 8 <= to; i += 8) {
            long x = (long) LONGS.get(b, i);
            // Flags a byte below 0x20 or equal to 0x7F (exact for the lowest; may over-flag above
            // it), so a flagged word is checked byte by byte: HTAB is legal.
            long low = (x - ONES * 0x20) & ~x & HIGHS;
            long y = x ^ (ONES * 0x7f);
            long del = (y - ONES) & ~y & HIGHS;
            if ((low | del) != 0 && !validBytes(b, i, i + 8)) return false;
        }
        return validBytes(b, i, to);
    }

    static boolean validBytes(byte[] b, int from, int to) {
        for (int k = from; k < to; k++) {
            int c = b[k] & 0xff;
            if ((c < 0x20 && c != '\t') || c == 0x7f) return false;
        }
        return true;
    }

    static int indexOf(byte[] b, int from, int to, byte c) {
        for (int i = from; i < to; i++) {
            if (b[i] == c) return i;
        }
        return -1;
    }

    /**
     * The first LF in b[from, to), or -1. Eight bytes at a time (the "has zero byte" trick on
     * x ^ LF...): the lowest flagged byte is always a true match, so the first hit is exact.
     */
    static int indexOfLf(byte[] b, int from, int to) {
        int i = from;
        for (; i + 8 <= to; i += 8) {
            long x = (long) LONGS.get(b, i) ^ LFS;
            long t = (x - ONES) & ~x & HIGHS;
            if (t != 0) return i + (Long.numberOfTrailingZeros(t) >>> 3);
        }
        for (; i < to; i++) {
            if (b[i] == '\n') return i;
        }
        return -1;
    }

    static boolean nameIs(byte[] b, int at, String lowerName) {
        for (int k = 0; k < lowerName.length(); k++) {
            if (lower(b[at + k]) != lowerName.charAt(k)) return false;
        }
        return true;
    }

    static boolean valueIs(byte[] b, int from, int to, String lowerValue) {
        return to - from == lowerValue.length() && nameIs(b, from, lowerValue);
    }

    /** A Content-Length value: 1 to 18 digits, else -1. */
    static long digits(byte[] b, int from, int to) {
        if (to <= from || to - from > 18) return -1;
        long n = 0;
        for (int k = from; k < to; k++) {
            int d = b[k] - '0';
            if (d < 0 || d > 9) return -1;
            n = n * 10 + d;
        }
        return n;
    }

    static String method(byte[] b, int from, int to) {
        int n = to - from;
        // The common methods share one String each: no allocation on the hot path.
        if (n == 3 && b[from] == 'G' && b[from + 1] == 'E' && b[from + 2] == 'T') return "GET";
        if (n == 4 && b[from] == 'H' && b[from + 1] == 'E' && b[from + 2] == 'A' && b[from + 3] == 'D') return "HEAD";
        if (n == 4 && b[from] == 'P' && b[from + 1] == 'O' && b[from + 2] == 'S' && b[from + 3] == 'T') return "POST";
        if (n == 3 && b[from] == 'P' && b[from + 1] == 'U' && b[from + 2] == 'T') return "PUT";
        return new String(b, from, n, StandardCharsets.ISO_8859_1);
    }

    static int hex(byte c) {
        if (c >= '0' && c <= '9') return c - '0';
        if (c >= 'a' && c <= 'f') return c - 'a' + 10;
        if (c >= 'A' && c <= 'F') return c - 'A' + 10;
        return -1;
    }
}
