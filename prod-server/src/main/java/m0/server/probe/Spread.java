package m0.server.probe;

import java.util.Map;
import java.util.TreeMap;

/**
 * What one probe round saw: how many of its connections each worker served.
 *
 * @param perWorker worker index to connection count, every expected worker present (0 if none)
 */
public record Spread(Shape shape, int connections, Map<Integer, Integer> perWorker) {

    public Spread {
        perWorker = java.util.Collections.unmodifiableMap(new TreeMap<>(perWorker));
    }

    public int max() {
        return perWorker.values().stream().mapToInt(Integer::intValue).max().orElse(0);
    }

    public int min() {
        return perWorker.values().stream().mapToInt(Integer::intValue).min().orElse(0);
    }

    /** Largest share over smallest; infinite when a worker served none. */
    public double ratio() {
        return min() == 0 ? Double.POSITIVE_INFINITY : (double) max() / min();
    }

    /** Counts largest share first, as the seed's tables print them: "16/16". */
    public String counts() {
        StringBuilder out = new StringBuilder();
        perWorker.values().stream().sorted(java.util.Comparator.reverseOrder()).forEach(n -> {
            if (out.length() > 0) {
                out.append('/');
            }
            out.append(n);
        });
        return out.toString();
    }

    @Override
    public String toString() {
        StringBuilder byIndex = new StringBuilder();
        perWorker.forEach((i, n) -> byIndex.append(" w").append(i).append('=').append(n));
        return String.format("%-7s %3d  %-12s%s", shape.flag(), connections, counts(), byIndex);
    }
}
