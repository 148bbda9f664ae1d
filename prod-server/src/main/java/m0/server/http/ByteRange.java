package m0.server.http;

/**
 * What a {@code Range} header's value asks of a representation of a known length (RFC 9110
 * 14.1.2, 14.2): one slice, or nothing satisfiable (416), or the whole (a header that is
 * malformed, names another unit, or asks several ranges: no multipart here, ADR 0071).
 */
final class ByteRange {
    enum Kind { WHOLE, SLICE, UNSATISFIABLE }

    static final ByteRange WHOLE = new ByteRange(Kind.WHOLE, 0, 0);
    static final ByteRange UNSATISFIABLE = new ByteRange(Kind.UNSATISFIABLE, 0, 0);

    final Kind kind;
    /** A slice's first byte and its last (inclusive), within the length. */
    final long first;
    final long last;

    private ByteRange(Kind kind, long first, long last) {
        this.kind = kind;
        this.first = first;
        this.last = last;
    }

    @Override
    public String toString() {
        return kind == Kind.SLICE ? "bytes " + first + "-" + last : kind.toString();
    }

    long count() {
        return last - first + 1;
    }

    /**
     * The range {@code value} asks of {@code length} bytes. An empty representation has no slice
     * a Content-Range can name, so it is always whole.
     */
    static ByteRange of(String value, long length) {
        if (value == null || length <= 0) return WHOLE;
        int eq = value.indexOf('=');
        // The unit is case-insensitive (RFC 9110 14.1); another unit is one we do not know: ignored.
        if (eq < 0 || !value.substring(0, eq).equalsIgnoreCase("bytes")) return WHOLE;
        ByteRange only = null;
        int specs = 0;
        boolean satisfiable = false;
        for (String raw : value.substring(eq + 1).split(",", -1)) {
            String spec = raw.strip();
            if (spec.isEmpty()) continue; // empty list elements do not count (RFC 9110 5.6.1)
            ByteRange r = spec(spec, length);
            if (r == null) return WHOLE; // one malformed spec: the header is ignored
            specs++;
            if (r.kind == Kind.SLICE) {
                satisfiable = true;
                only = r;
            }
        }
        if (specs == 0) return WHOLE;
        if (!satisfiable) return UNSATISFIABLE;
        return specs == 1 ? only : WHOLE;
    }

    /** One range-spec: first-last, first-, or -suffix; null when malformed. */
    private static ByteRange spec(String spec, long length) {
        int dash = spec.indexOf('-');
        if (dash < 0) return null;
        String a = spec.substring(0, dash);
        String b = spec.substring(dash + 1);
        if (a.isEmpty()) {
            if (!digits(b)) return null;
            long suffix = number(b);
            if (suffix == 0) return UNSATISFIABLE; // a suffix is satisfiable only when non-zero
            return new ByteRange(Kind.SLICE, Math.max(0, length - suffix), length - 1);
        }
        if (!digits(a) || !(b.isEmpty() || digits(b))) return null;
        if (!b.isEmpty() && compare(a, b) > 0) return null; // last before first: invalid
        long first = number(a);
        if (first >= length) return UNSATISFIABLE;
        long last = b.isEmpty() ? length - 1 : Math.min(number(b), length - 1);
        return new ByteRange(Kind.SLICE, first, last);
    }

    private static boolean digits(String s) {
        if (s.isEmpty()) return false;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c < '0' || c > '9') return false;
        }
        return true;
    }

    /** Its value, or Long.MAX_VALUE past it: a number too large to hold is past any file's end. */
    private static long number(String digits) {
        long n = 0;
        for (int i = 0; i < digits.length(); i++) {
            int d = digits.charAt(i) - '0';
            if (n > (Long.MAX_VALUE - d) / 10) return Long.MAX_VALUE;
            n = n * 10 + d;
        }
        return n;
    }

    /** Two digit strings compared as numbers of any size (saturated longs would tie). */
    private static int compare(String a, String b) {
        String x = a.replaceFirst("^0+(?=.)", "");
        String y = b.replaceFirst("^0+(?=.)", "");
        return x.length() != y.length() ? Integer.compare(x.length(), y.length()) : x.compareTo(y);
    }
}
