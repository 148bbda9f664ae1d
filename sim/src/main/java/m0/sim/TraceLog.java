package m0.sim;

/**
 * A run's trace: every line in full (exhaustive and replayed runs), or the last 64 (long random
 * runs), and a hash of all of them, so that two runs can be compared byte for byte cheaply.
 *
 * <p>A line is {@code #step t=M.UUUms actor what}. The last-64 mode never builds it: it keeps
 * the line's parts for {@link #text} and hashes the characters the line would have (the same
 * {@code String.hashCode} the full mode takes of the built line), so the two modes agree on
 * every run's hash and a random step pays for one string (its {@code what}), not four.
 */
final class TraceLog {

    private static final int RING = 64;

    private final boolean full;
    private final StringBuilder text = new StringBuilder();
    private final long[] ringStep = new long[RING];
    private final long[] ringNow = new long[RING];
    private final String[] ringActor = new String[RING];
    private final String[] ringWhat = new String[RING];
    private final char[] digits = new char[20];
    private long lines;
    private long hash = 0xcbf29ce484222325L; // FNV-1a offset basis, over each line's hashCode

    TraceLog(boolean full) {
        this.full = full;
    }

    void add(long step, long now, String actor, String what) {
        lines++;
        if (full) {
            String line = line(step, now, actor, what);
            hash = (hash ^ line.hashCode()) * 0x100000001b3L;
            text.append(line).append('\n');
            return;
        }
        hash = (hash ^ lineHash(step, now, actor, what)) * 0x100000001b3L;
        int slot = (int) (lines % RING);
        ringStep[slot] = step;
        ringNow[slot] = now;
        ringActor[slot] = actor;
        ringWhat[slot] = what;
    }

    static String line(long step, long now, String actor, String what) {
        return "#" + step + " " + Sim.ms(now) + " " + actor + " " + what;
    }

    /** {@code line(step, now, actor, what).hashCode()}, without the line. */
    int lineHash(long step, long now, String actor, String what) {
        int h = '#';
        h = hashDecimal(h, step);
        h = 31 * h + ' ';
        long d = now - Sim.T0;
        if (d < 0) {
            h = hashChars(h, Sim.ms(now)); // never in a run (time starts at T0): the plain way
        } else {
            h = 31 * (31 * h + 't') + '=';
            h = hashDecimal(h, d / Sim.MS);
            h = 31 * h + '.';
            long micros = (d % Sim.MS) / 1000;
            if (micros < 100) {
                h = 31 * h + '0';
            }
            if (micros < 10) {
                h = 31 * h + '0';
            }
            h = hashDecimal(h, micros);
            h = 31 * (31 * h + 'm') + 's';
        }
        h = 31 * h + ' ';
        h = hashChars(h, actor);
        h = 31 * h + ' ';
        return hashChars(h, what);
    }

    private int hashDecimal(int h, long v) {
        if (v < 0) {
            return hashChars(h, Long.toString(v));
        }
        int n = 0;
        do {
            digits[n++] = (char) ('0' + v % 10);
            v /= 10;
        } while (v != 0);
        while (n > 0) {
            h = 31 * h + digits[--n];
        }
        return h;
    }

    private static int hashChars(int h, String s) {
        for (int k = 0, n = s.length(); k < n; k++) {
            h = 31 * h + s.charAt(k);
        }
        return h;
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
            int slot = (int) (l % RING);
            sb.append(line(ringStep[slot], ringNow[slot], ringActor[slot], ringWhat[slot])).append('\n');
        }
        return sb.toString();
    }
}
