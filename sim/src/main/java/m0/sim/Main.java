package m0.sim;

import java.util.ArrayList;
import java.util.List;

/**
 * Command-line runner.
 *
 * <pre>
 *   exhaustive [SCENARIO...]          every interleaving of the named scenarios (default all)
 *   random --seeds N [--from S]       a random campaign over seeds S..S+N-1
 *   random --seconds T [--from S]     a random campaign for T seconds of wall time
 *   replay-seed SEED [--full]         one random run, its trace
 *   shrink-seed SEED                  a failing random run reduced to a small schedule, its trace
 *   replay-random SCHEDULE            one random-world run from its schedule string
 *   replay SCENARIO SCHEDULE          one exhaustive scenario run from its schedule string
 * </pre>
 */
public final class Main {

    private Main() {
    }

    public static void main(String[] args) {
        if (args.length == 0) {
            usage();
            return;
        }
        int code;
        switch (args[0]) {
            case "exhaustive":
                code = exhaustive(args);
                break;
            case "random":
                code = random(args);
                break;
            case "replay-seed":
                code = replaySeed(args);
                break;
            case "replay":
                code = replay(args);
                break;
            case "replay-random":
                code = replayRandom(args);
                break;
            case "shrink-seed":
                code = shrinkSeed(args);
                break;
            default:
                usage();
                code = 2;
        }
        System.exit(code);
    }

    private static void usage() {
        System.out.println("usage: exhaustive [SCENARIO...] | random (--seeds N | --seconds T) [--from S]"
                + " | replay-seed SEED [--full] | shrink-seed SEED | replay-random SCHEDULE | replay SCENARIO SCHEDULE");
        System.out.println("scenarios: " + Scenarios.ALL);
    }

    private static int exhaustive(String[] args) {
        List<Scenarios.Scenario> list = new ArrayList<>();
        for (int k = 1; k < args.length; k++) {
            list.add(Scenarios.named(args[k]));
        }
        if (list.isEmpty()) {
            list.addAll(Scenarios.ALL);
        }
        System.out.println(Explorer.Report.header());
        int bad = 0;
        for (Scenarios.Scenario s : list) {
            Explorer.Report r = Explorer.exhaustive(s, Protocol.core(), false);
            System.out.println(r.row());
            if (r.first != null) {
                bad++;
                System.out.println(r.first.violations + "\nschedule: " + r.first.schedule + "\n" + r.first.trace());
            }
        }
        return bad == 0 ? 0 : 1;
    }

    private static int random(String[] args) {
        long seeds = -1;
        double seconds = -1;
        long from = 1;
        for (int k = 1; k < args.length; k++) {
            switch (args[k]) {
                case "--seeds":
                    seeds = Long.parseLong(args[++k]);
                    break;
                case "--seconds":
                    seconds = Double.parseDouble(args[++k]);
                    break;
                case "--from":
                    from = Long.parseLong(args[++k]);
                    break;
                default:
                    throw new IllegalArgumentException(args[k]);
            }
        }
        Campaign.Summary s = Campaign.run(Protocol.core(), from, seeds, seconds, System.out);
        System.out.println(s);
        return s.failures == 0 ? 0 : 1;
    }

    private static int replaySeed(String[] args) {
        long seed = Long.parseLong(args[1]);
        boolean full = args.length > 2 && args[2].equals("--full");
        RunResult r = RandomWorld.build(Protocol.core(), new RandomChoices(seed), full).run();
        System.out.print(r.trace());
        System.out.println("seed " + seed + ": " + r.steps + " steps, trace hash " + Long.toHexString(r.traceHash)
                + ", " + (r.ok() ? "ok" : r.violations));
        System.out.println("schedule: " + r.schedule);
        return r.ok() ? 0 : 1;
    }

    private static int shrinkSeed(String[] args) {
        long seed = Long.parseLong(args[1]);
        RunResult r = RandomWorld.build(Protocol.core(), new RandomChoices(seed), true).run();
        if (r.ok()) {
            System.out.println("seed " + seed + " breaks no rule: nothing to shrink");
            return 0;
        }
        Shrinker.Outcome o = Campaign.shrink(Protocol.core(), r);
        System.out.print(o.result.trace());
        System.out.println("seed " + seed + ": " + r.violations.get(0).rule + "; " + o);
        System.out.println("replay it: replay-random " + o.schedule);
        return 1;
    }

    private static int replayRandom(String[] args) {
        RunResult r = RandomWorld.build(Protocol.core(), new ReplayChoices(args.length > 1 ? args[1] : ""), true).run();
        System.out.print(r.trace());
        System.out.println(r.ok() ? "ok" : r.violations.toString());
        return r.ok() ? 0 : 1;
    }

    private static int replay(String[] args) {
        Scenarios.Scenario s = Scenarios.named(args[1]);
        RunResult r = Explorer.replay(s, Protocol.core(), args.length > 2 ? args[2] : "");
        System.out.print(r.trace());
        System.out.println(r.ok() ? "ok" : r.violations.toString());
        return r.ok() ? 0 : 1;
    }
}
