package m0.examples.notes;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Just enough JSON for the notes API: one flat object of string fields in, strings out. An
 * example's dependency list stays one line long (sqlite-jdbc); a real app would take a library.
 */
final class Json {

    private Json() {
    }

    /** A JSON string literal. */
    static String quote(String s) {
        StringBuilder b = new StringBuilder(s.length() + 2).append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                case '\n' -> b.append("\\n");
                case '\r' -> b.append("\\r");
                case '\t' -> b.append("\\t");
                default -> {
                    if (c < 0x20) {
                        b.append(String.format("\\u%04x", (int) c));
                    } else {
                        b.append(c);
                    }
                }
            }
        }
        return b.append('"').toString();
    }

    /**
     * {@code {"k": "v", ...}} with string values only.
     *
     * @throws IllegalArgumentException for anything else
     */
    static Map<String, String> parseFlatObject(String text) {
        Map<String, String> out = new LinkedHashMap<>();
        int[] at = {skip(text, 0)};
        expect(text, at, '{');
        if (peek(text, at) == '}') {
            at[0]++;
            return end(text, at, out);
        }
        for (;;) {
            String key = string(text, at);
            expect(text, at, ':');
            out.put(key, string(text, at));
            char c = peek(text, at);
            at[0]++;
            if (c == '}') {
                return end(text, at, out);
            }
            if (c != ',') {
                throw new IllegalArgumentException("expected ',' or '}' at " + (at[0] - 1));
            }
        }
    }

    private static Map<String, String> end(String text, int[] at, Map<String, String> out) {
        if (skip(text, at[0]) != text.length()) {
            throw new IllegalArgumentException("text after the object");
        }
        return out;
    }

    private static int skip(String t, int i) {
        while (i < t.length() && Character.isWhitespace(t.charAt(i))) {
            i++;
        }
        return i;
    }

    private static char peek(String t, int[] at) {
        at[0] = skip(t, at[0]);
        if (at[0] >= t.length()) {
            throw new IllegalArgumentException("unexpected end");
        }
        return t.charAt(at[0]);
    }

    private static void expect(String t, int[] at, char c) {
        if (peek(t, at) != c) {
            throw new IllegalArgumentException("expected '" + c + "' at " + at[0]);
        }
        at[0]++;
    }

    private static String string(String t, int[] at) {
        expect(t, at, '"');
        StringBuilder b = new StringBuilder();
        for (int i = at[0]; i < t.length(); i++) {
            char c = t.charAt(i);
            if (c == '"') {
                at[0] = i + 1;
                return b.toString();
            }
            if (c == '\\') {
                if (++i >= t.length()) {
                    break;
                }
                char e = t.charAt(i);
                switch (e) {
                    case 'n' -> b.append('\n');
                    case 'r' -> b.append('\r');
                    case 't' -> b.append('\t');
                    case 'b' -> b.append('\b');
                    case 'f' -> b.append('\f');
                    case 'u' -> {
                        if (i + 4 >= t.length()) {
                            throw new IllegalArgumentException("short \\u escape");
                        }
                        b.append((char) Integer.parseInt(t.substring(i + 1, i + 5), 16));
                        i += 4;
                    }
                    default -> b.append(e); // \" \\ \/
                }
            } else {
                b.append(c);
            }
        }
        throw new IllegalArgumentException("unterminated string");
    }
}
