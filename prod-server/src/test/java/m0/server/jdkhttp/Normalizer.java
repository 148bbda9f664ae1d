package m0.server.jdkhttp;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Reduces what {@link RawHttpClient} read to what two conforming servers must agree on, and
 * says where two such reductions differ.
 *
 * <p>Dropped: the Date header (time), the case of header names (RFC 9110 5.1: insensitive; the
 * JDK sends "Content-length") and the order between different names. Kept: everything else,
 * including the reason phrase, each name's values in order, the framing and the close.
 */
public final class Normalizer {

    /** Bodies up to this many bytes are kept as (escaped) text; longer ones as length and hash. */
    static final int TEXT_LIMIT = 1024;

    private Normalizer() {
    }

    static List<Resp> normalize(RawHttpClient.Result result) {
        List<Resp> out = new ArrayList<>();
        List<RawHttpClient.RawResponse> rs = result.responses();
        for (int i = 0; i < rs.size(); i++) {
            out.add(normalize(rs.get(i), i == rs.size() - 1 ? result.after() : "-"));
        }
        if (out.isEmpty()) {
            out.add(new Resp("", 0, new TreeMap<>(), "none", "", "eof", List.of(), result.after()));
        }
        return List.copyOf(out);
    }

    private static Resp normalize(RawHttpClient.RawResponse r, String after) {
        List<String> interim = new ArrayList<>();
        for (RawHttpClient.RawResponse i : r.interim()) {
            interim.add(i.statusLine() + " | " + headers(i.headers()));
        }
        return new Resp(r.statusLine(), r.status(), headers(r.headers()), r.framing(), body(r.body()), r.end(),
                List.copyOf(interim), after);
    }

    static SortedMap<String, List<String>> headers(List<Map.Entry<String, String>> raw) {
        SortedMap<String, List<String>> m = new TreeMap<>();
        for (Map.Entry<String, String> h : raw) {
            String name = h.getKey().toLowerCase(Locale.ROOT);
            if (!name.equals("date")) {
                m.computeIfAbsent(name, k -> new ArrayList<>()).add(h.getValue());
            }
        }
        m.replaceAll((k, v) -> List.copyOf(v));
        return Collections.unmodifiableSortedMap(m);
    }

    static String body(byte[] b) {
        if (b.length <= TEXT_LIMIT) {
            return escape(b, TEXT_LIMIT);
        }
        return "<" + b.length + " bytes sha256=" + HexFormat.of().formatHex(ConformanceHandlers.sha256().digest(b)) + ">";
    }

    /** Printable ASCII as is, CR LF TAB backslash-escaped, the rest as \xNN; cut at max bytes. */
    static String escape(byte[] b, int max) {
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < Math.min(b.length, max); i++) {
            int x = b[i] & 0xff;
            switch (x) {
                case '\r' -> sb.append("\\r");
                case '\n' -> sb.append("\\n");
                case '\t' -> sb.append("\\t");
                case '\\' -> sb.append("\\\\");
                default -> sb.append(x >= 0x20 && x < 0x7f ? Character.toString(x) : String.format("\\x%02x", x));
            }
        }
        return b.length > max ? sb.append("...(").append(b.length).append(" bytes)").toString() : sb.toString();
    }

    /** Readable lines, one per field that differs; empty when the two agree. */
    public static List<String> diff(String caseName, List<Resp> reference, List<Resp> other) {
        List<String> lines = new ArrayList<>();
        if (reference.size() != other.size()) {
            lines.add(caseName + ": " + reference.size() + " responses vs " + other.size());
        }
        for (int i = 0; i < Math.min(reference.size(), other.size()); i++) {
            Resp a = reference.get(i);
            Resp b = other.get(i);
            String at = caseName + " #" + i + " ";
            field(lines, at + "status line", a.statusLine(), b.statusLine());
            field(lines, at + "framing", a.framing(), b.framing());
            field(lines, at + "body", a.body(), b.body());
            field(lines, at + "end", a.end(), b.end());
            field(lines, at + "interim", a.interim(), b.interim());
            field(lines, at + "after", a.after(), b.after());
            TreeMap<String, List<String>> names = new TreeMap<>(a.headers());
            names.putAll(b.headers());
            for (String name : names.keySet()) {
                field(lines, at + "header " + name, a.headers().get(name), b.headers().get(name));
            }
        }
        return lines;
    }

    private static void field(List<String> lines, String what, Object reference, Object other) {
        if (!Objects.equals(reference, other)) {
            lines.add(what + ": " + shorten(reference) + " vs " + shorten(other));
        }
    }

    private static String shorten(Object o) {
        String s = String.valueOf(o);
        return s.length() > 200 ? s.substring(0, 200) + "...(" + s.length() + " chars)" : s;
    }
}
