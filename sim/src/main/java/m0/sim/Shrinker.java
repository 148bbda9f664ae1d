package m0.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Function;

/**
 * Reduces a failing run's schedule string to a small one that still breaks the same rule:
 * delta debugging (Zeller and Hildebrandt's ddmin) over its choices, then each fault dropped,
 * then each remaining choice lowered to 0 (the first enabled actor, the smallest free choice),
 * then the trailing zeros cut (past its end a schedule answers 0 anyway).
 *
 * <p>Candidates replay leniently ({@link ReplayChoices#lenient}): a choice out of range is
 * clamped, and a fault fires when its question number comes up, wherever it stood, so any
 * subsequence of a schedule is itself a schedule. The result is re-recorded from its own run,
 * so it replays strictly, byte for byte, like any other schedule.
 */
public final class Shrinker {

    /** The smallest failing schedule found, its run (full trace), and what the search cost. */
    public static final class Outcome {
        public final String schedule;
        public final RunResult result;
        public final int runs;
        public final int fromLength;

        Outcome(String schedule, RunResult result, int runs, int fromLength) {
            this.schedule = schedule;
            this.result = result;
            this.runs = runs;
            this.fromLength = fromLength;
        }

        @Override
        public String toString() {
            return "shrunk " + fromLength + " -> " + schedule.length() + " chars in " + runs + " runs: " + schedule;
        }
    }

    private final Function<ChoiceSource, Sim> world;
    private final String rule;
    private final int budget;
    private int runs;

    private Shrinker(Function<ChoiceSource, Sim> world, String rule, int budget) {
        this.world = world;
        this.rule = rule;
        this.budget = budget;
    }

    /**
     * @param world   builds the run's world on a choice source (full trace on)
     * @param failing the failing run's recorded schedule
     * @param rule    the rule it broke: a candidate counts only if it breaks the same one
     * @param budget  at most this many candidate runs
     */
    public static Outcome shrink(Function<ChoiceSource, Sim> world, String failing, String rule, int budget) {
        Shrinker s = new Shrinker(world, rule, budget);
        List<String> tokens = ReplayChoices.tokens(failing);
        if (s.breaks(tokens) == null) {
            throw new IllegalArgumentException("the schedule does not break " + rule + " when replayed");
        }
        tokens = s.ddmin(tokens);
        tokens = s.dropFaults(tokens);
        tokens = s.lower(tokens);
        RunResult last = s.breaks(tokens);
        String recorded = trimZeros(last.schedule);
        RunResult strict = world.apply(new ReplayChoices(recorded)).run();
        if (!brokeRule(strict, rule)) {
            // the lenient and strict readings differ only past a clamp; keep what replays
            recorded = last.schedule;
            strict = world.apply(new ReplayChoices(recorded)).run();
        }
        return new Outcome(recorded, strict, s.runs, failing.length());
    }

    /** ddmin over the choice tokens, faults kept: remove chunks, halving their size. */
    private List<String> ddmin(List<String> tokens) {
        int n = 2;
        while (tokens.size() >= 2 && runs < budget) {
            int chunk = Math.max(1, tokens.size() / n);
            boolean reduced = false;
            for (int start = 0; start < tokens.size() && runs < budget; start += chunk) {
                List<String> candidate = new ArrayList<>(tokens.subList(0, start));
                candidate.addAll(tokens.subList(Math.min(tokens.size(), start + chunk), tokens.size()));
                if (breaks(candidate) != null) {
                    tokens = candidate;
                    n = Math.max(n - 1, 2);
                    reduced = true;
                    break;
                }
            }
            if (!reduced) {
                if (chunk == 1) {
                    break;
                }
                n = Math.min(tokens.size(), n * 2);
            }
        }
        return tokens;
    }

    private List<String> dropFaults(List<String> tokens) {
        for (int k = tokens.size() - 1; k >= 0 && runs < budget; k--) {
            if (ReplayChoices.isFault(tokens.get(k))) {
                List<String> candidate = new ArrayList<>(tokens);
                candidate.remove(k);
                if (breaks(candidate) != null) {
                    tokens = candidate;
                }
            }
        }
        return tokens;
    }

    private List<String> lower(List<String> tokens) {
        for (int k = 0; k < tokens.size() && runs < budget; k++) {
            String t = tokens.get(k);
            if (!ReplayChoices.isFault(t) && !t.equals("0")) {
                List<String> candidate = new ArrayList<>(tokens);
                candidate.set(k, "0");
                if (breaks(candidate) != null) {
                    tokens = candidate;
                }
            }
        }
        return tokens;
    }

    /** The run of {@code tokens} if it breaks the rule, else null. */
    private RunResult breaks(List<String> tokens) {
        runs++;
        RunResult r = world.apply(ReplayChoices.lenient(String.join("", tokens))).run();
        return brokeRule(r, rule) ? r : null;
    }

    private static boolean brokeRule(RunResult r, String rule) {
        return r.violations.stream().anyMatch(v -> v.rule.equals(rule));
    }

    /** Trailing 0 choices say nothing: replay answers 0 past the end of a schedule. */
    static String trimZeros(String schedule) {
        List<String> tokens = ReplayChoices.tokens(schedule);
        int end = tokens.size();
        while (end > 0 && tokens.get(end - 1).equals("0")) {
            end--;
        }
        return String.join("", tokens.subList(0, end));
    }
}
