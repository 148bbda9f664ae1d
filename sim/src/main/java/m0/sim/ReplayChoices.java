package m0.sim;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * Replay: answers read back from a schedule string the {@link Sim} recorded. Grammar: one
 * token per answer that had a choice (n > 1): a base-36 digit, or {@code (decimal)} when it
 * is 36 or more; {@code !q.} where the q-th (base 36) fault question, "kill now?", said yes
 * and {@code ~q.} where a "stall now?" did (a no is not recorded: the questions are
 * themselves determined by the earlier answers, and each is numbered). Whitespace is ignored.
 */
public final class ReplayChoices implements ChoiceSource {

    private final String schedule;
    private int at;
    /** Shrinking's reading: choices clamped to range, faults fired by question number wherever they stand. */
    private final boolean lenient;
    private final Set<String> faults = new HashSet<>();

    public ReplayChoices(String schedule) {
        this(schedule, false);
    }

    private ReplayChoices(String schedule, boolean lenient) {
        String s = schedule.replaceAll("\\s", "");
        this.lenient = lenient;
        if (lenient) {
            StringBuilder choices = new StringBuilder();
            for (String t : tokens(s)) {
                if (isFault(t)) {
                    faults.add(t);
                } else {
                    choices.append(t);
                }
            }
            s = choices.toString();
        }
        this.schedule = s;
    }

    /** Any subsequence of a schedule is a schedule: see {@link Shrinker}. */
    static ReplayChoices lenient(String schedule) {
        return new ReplayChoices(schedule, true);
    }

    /** A schedule's tokens: a digit, {@code (n)}, {@code !q.} or {@code ~q.}. */
    static List<String> tokens(String schedule) {
        String s = schedule.replaceAll("\\s", "");
        List<String> out = new ArrayList<>();
        int k = 0;
        while (k < s.length()) {
            char c = s.charAt(k);
            int end;
            if (c == '(') {
                end = s.indexOf(')', k) + 1;
            } else if (c == '!' || c == '~') {
                end = s.indexOf('.', k) + 1;
            } else {
                end = k + 1;
            }
            out.add(s.substring(k, end));
            k = end;
        }
        return out;
    }

    static boolean isFault(String token) {
        return token.charAt(0) == '!' || token.charAt(0) == '~';
    }

    @Override
    public int next(Enabled enabled) {
        return enabled.size() == 1 ? 0 : token(enabled.size());
    }

    @Override
    public int choose(int n) {
        return n == 1 ? 0 : token(n);
    }

    @Override
    public boolean chance(char kind, long question, int oneIn) {
        if (lenient) {
            return faults.contains(kind + Long.toString(question, 36) + ".");
        }
        if (at < schedule.length() && schedule.charAt(at) == kind) {
            int end = schedule.indexOf('.', at);
            if (Long.parseLong(schedule.substring(at + 1, end), 36) == question) {
                at = end + 1;
                return true;
            }
        }
        return false;
    }

    static void recordFault(StringBuilder out, char kind, long question) {
        out.append(kind).append(Long.toString(question, 36)).append('.');
    }

    private int token(int n) {
        if (at >= schedule.length()) {
            return 0; // past the recorded end: the lowest answer, deterministically
        }
        char c = schedule.charAt(at++);
        int v;
        if (c == '(') {
            int end = schedule.indexOf(')', at);
            v = Integer.parseInt(schedule.substring(at, end));
            at = end + 1;
        } else {
            v = Character.digit(c, 36);
        }
        if (lenient && v >= n) {
            return n - 1;
        }
        if (v < 0 || v >= n) {
            throw new IllegalStateException("schedule diverged at offset " + (at - 1) + ": '" + c
                    + "' is not a choice among " + n);
        }
        return v;
    }

    static void record(StringBuilder out, int v) {
        if (v < 36) {
            out.append(Character.forDigit(v, 36));
        } else {
            out.append('(').append(v).append(')');
        }
    }
}
