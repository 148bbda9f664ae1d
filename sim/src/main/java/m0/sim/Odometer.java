package m0.sim;

import java.util.ArrayList;
import java.util.List;

/**
 * Exhaustive enumeration without reduction, exactly TigerBeetle's exhaustigen: each answer is
 * a digit with its own base (the number of options when it was asked); after a run the last
 * digit that can be incremented is, and the digits after it are dropped. Every sequence of
 * answers is produced once. Used to check that {@link Dpor} loses no outcome on small
 * scenarios; far too slow for the real ones.
 */
public final class Odometer implements ChoiceSource {

    private final List<int[]> digits = new ArrayList<>(); // {value, base}
    private int at;
    private long runs;

    @Override
    public int next(Enabled enabled) {
        return digit(enabled.size());
    }

    @Override
    public int choose(int n) {
        return digit(n);
    }

    @Override
    public boolean chance(char kind, long question, int oneIn) {
        return false;
    }

    private int digit(int base) {
        if (base == 1) {
            return 0;
        }
        if (at < digits.size()) {
            int[] d = digits.get(at++);
            if (d[1] != base) {
                throw new IllegalStateException("nondeterministic: base " + base + " where " + d[1] + " was");
            }
            return d[0];
        }
        digits.add(new int[] {0, base});
        at++;
        return 0;
    }

    /** Turns the odometer; false once every answer sequence has run. */
    public boolean nextExecution() {
        runs++;
        at = 0;
        while (!digits.isEmpty()) {
            int[] last = digits.get(digits.size() - 1);
            if (last[0] + 1 < last[1]) {
                last[0]++;
                return true;
            }
            digits.remove(digits.size() - 1);
        }
        return false;
    }

    public long runs() {
        return runs;
    }
}
