package m0.sim;

/**
 * A run's trace: every line in full (exhaustive and replayed runs), or the last 64 (long random
 * runs), and a hash of all of them, so that two runs can be compared byte for byte cheaply.
 */
final class TraceLog {

    private static final int RING = 64;

    private final boolean full;
    private final StringBuilder text = new StringBuilder();
    private final String[] ring = new String[RING];
    private long lines;
    private long hash = 0xcbf29ce484222325L; // FNV-1a offset basis, over each line's hashCode

    TraceLog(boolean full) {
        this.full = full;
    }

    void add(String line) {
        lines++;
        hash = (hash ^ line.hashCode()) * 0x100000001b3L;
        if (full) {
            text.append(line).append('\n');
        } else {
            ring[(int) (lines % RING)] = line;
        }
    }

    long hash() {
        return hash;
    }

    /** The whole trace, or its last lines. */
    String text() {
        if (full) {
            return text.toString();
        }
        StringBuilder sb = new StringBuilder();
        for (long l = Math.max(1, lines - RING + 1); l <= lines; l++) {
            sb.append(ring[(int) (l % RING)]).append('\n');
        }
        return sb.toString();
    }
}
