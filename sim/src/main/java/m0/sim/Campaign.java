package m0.sim;

import java.io.PrintStream;

/** A random campaign: one {@link RandomWorld} run per seed, for N seeds or a time budget. */
public final class Campaign {

    private Campaign() {
    }

    public static final class Summary {
        public long runs;
        public long steps;
        public long switches;
        public long failures;
        public long nanos;
        public long firstFailingSeed = -1;
        /** The first failure, shrunk (when the campaign prints), or null. */
        public Shrinker.Outcome shrunk;

        public double stepsPerSecond() {
            return steps / (nanos / 1e9);
        }

        @Override
        public String toString() {
            return String.format("random: %d runs, %d steps, %d thread switches (%.0f%%), %d failures, %.2f s: %.0f steps/s",
                    runs, steps, switches, 100.0 * switches / Math.max(1, steps), failures, nanos / 1e9, stepsPerSecond());
        }
    }

    /**
     * @param seeds   how many seeds (or -1: until {@code seconds} pass)
     * @param seconds wall-time budget (or -1)
     */
    public static Summary run(Protocol protocol, long from, long seeds, double seconds, PrintStream out) {
        return Carrier.control(() -> campaign(protocol, from, seeds, seconds, out));
    }

    private static Summary campaign(Protocol protocol, long from, long seeds, double seconds, PrintStream out) {
        Summary s = new Summary();
        long t0 = System.nanoTime();
        long deadline = seconds < 0 ? Long.MAX_VALUE : t0 + (long) (seconds * 1e9);
        for (long seed = from; (seeds < 0 || seed < from + seeds) && System.nanoTime() < deadline; seed++) {
            RunResult r = RandomWorld.build(protocol, new RandomChoices(seed), false).run();
            s.runs++;
            s.steps += r.steps;
            s.switches += r.switches;
            if (!r.ok()) {
                s.failures++;
                if (s.firstFailingSeed < 0) {
                    s.firstFailingSeed = seed;
                }
                if (out != null) {
                    out.println("FAIL seed " + seed + ": " + r.violations);
                    out.println("replay: replay-seed " + seed + "   (schedule " + r.schedule.length() + " chars)");
                    out.print(r.trace());
                    if (s.shrunk == null) {
                        s.shrunk = shrink(protocol, r);
                        out.println(s.shrunk);
                        out.print(s.shrunk.result.trace());
                    }
                }
            }
        }
        s.nanos = System.nanoTime() - t0;
        return s;
    }

    /** A failing random run reduced to a small schedule breaking its first rule (see {@link Shrinker}). */
    public static Shrinker.Outcome shrink(Protocol protocol, RunResult failing) {
        return Carrier.control(() -> Shrinker.shrink(src -> RandomWorld.build(protocol, src, true), failing.schedule,
                failing.violations.get(0).rule, SHRINK_BUDGET));
    }

    static final int SHRINK_BUDGET = 3000;
}
