package m0.server.jdkhttp;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The harness's entry points: play the corpus against a server on 127.0.0.1, and compare two
 * such runs. The corpus runs in order, one case (one connection) at a time, so a server that
 * keeps state between requests sees the same history in every run.
 */
public final class Conformance {

    private Conformance() {
    }

    /** Case name to its normalised responses, in corpus order. */
    public static Map<String, List<Resp>> run(int port) {
        Map<String, List<Resp>> results = new LinkedHashMap<>();
        for (ConformanceCorpus.Case c : ConformanceCorpus.cases()) {
            try {
                results.put(c.name(), Normalizer.normalize(RawHttpClient.run(port, c)));
            } catch (IOException e) {
                // only the connect can get here: a server that refuses a connection is broken, not different
                throw new UncheckedIOException("case " + c.name() + ": " + e.getMessage(), e);
            }
        }
        return results;
    }

    /** Readable difference lines, reference first in each; empty when the runs agree. */
    public static List<String> diff(Map<String, List<Resp>> reference, Map<String, List<Resp>> other) {
        Set<String> names = new LinkedHashSet<>(reference.keySet());
        names.addAll(other.keySet());
        List<String> lines = new ArrayList<>();
        for (String name : names) {
            List<Resp> a = reference.get(name);
            List<Resp> b = other.get(name);
            if (a == null || b == null) {
                lines.add(name + ": only in the " + (a == null ? "other run" : "reference run"));
            } else {
                lines.addAll(Normalizer.diff(name, a, b));
            }
        }
        return lines;
    }

    /** One line per response: case, index, status, framing, end, after. */
    public static String table(Map<String, List<Resp>> results) {
        StringBuilder sb = new StringBuilder();
        results.forEach((name, rs) -> {
            for (int i = 0; i < rs.size(); i++) {
                sb.append(String.format("%-28s %s%n", i == 0 ? name : "  #" + i, rs.get(i).brief()));
            }
        });
        return sb.toString();
    }

    /** Every response in full, one per line: what the table leaves out. */
    public static String dump(Map<String, List<Resp>> results) {
        StringBuilder sb = new StringBuilder();
        results.forEach((name, rs) -> {
            for (int i = 0; i < rs.size(); i++) {
                sb.append(name).append(" #").append(i).append(' ').append(rs.get(i)).append('\n');
            }
        });
        return sb.toString();
    }
}
