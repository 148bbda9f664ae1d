package m0.sim;

/** Runs a scenario in one of the three modes. */
public final class Explorer {

    private Explorer() {
    }

    /** What an exhaustive exploration found. */
    public static final class Report {
        public final String scenario;
        public final String protocol;
        public final PageKind page = PageKind.current;
        public long executions;
        public long sleepBlocked;
        public long violations;
        public long steps;
        /** Runs that ended with a raise orphaned by a death (a sender killed between raise and send), unhealed. */
        public long orphanRuns;
        /** Runs in which a heal took an orphan off. */
        public long healedRuns;
        public int maxDepth;
        public long nanos;
        public boolean complete;
        /** The first violating run (trace and schedule), or null. */
        public RunResult first;

        Report(String scenario, String protocol) {
            this.scenario = scenario;
            this.protocol = protocol;
        }

        public String row() {
            return String.format("| %-14s | %-19s | %-6s | %10d | %9d | %10d | %5d | %7.2f | %-8s |", scenario, protocol,
                    page.name().toLowerCase(java.util.Locale.ROOT), executions, sleepBlocked, violations, maxDepth, nanos / 1e9,
                    complete ? "yes" : "stopped");
        }

        public static String header() {
            return "| scenario       | protocol            | page   | executions | redundant | violations | depth | seconds | complete |\n"
                    + "|----------------|---------------------|--------|------------|-----------|------------|-------|---------|----------|";
        }
    }

    /**
     * Every interleaving of {@code scenario} under {@code protocol}.
     *
     * @param stopAtFirst stop at the first violating run (a mutant hunt)
     */
    public static Report exhaustive(Scenarios.Scenario scenario, Protocol protocol, boolean stopAtFirst) {
        return Carrier.control(() -> explore(scenario, protocol, stopAtFirst));
    }

    private static Report explore(Scenarios.Scenario scenario, Protocol protocol, boolean stopAtFirst) {
        Report r = new Report(scenario.name, protocol.name());
        Dpor dpor = new Dpor();
        long t0 = System.nanoTime();
        for (;;) {
            // Runs keep their last lines only (a full trace was a sixth of a run's CPU); the
            // first violating one is replayed from its schedule for the whole trace.
            Sim sim = scenario.build(protocol, dpor, false);
            RunResult res = sim.run();
            r.steps += res.steps;
            if (res.orphans > 0) {
                r.orphanRuns++;
            }
            if (res.healed > 0) {
                r.healedRuns++;
            }
            if (!res.ok()) {
                r.violations++;
                if (r.first == null) {
                    r.first = fullTrace(scenario, protocol, res);
                }
            }
            boolean more = dpor.nextExecution();
            if (!res.ok() && stopAtFirst) {
                break;
            }
            if (!more) {
                r.complete = true;
                break;
            }
        }
        r.nanos = System.nanoTime() - t0;
        r.executions = dpor.executions();
        r.sleepBlocked = dpor.sleepBlocked();
        r.maxDepth = dpor.maxDepth();
        return r;
    }

    /** The run again from its schedule, traced in full; the same trace, or the scenario is not deterministic. */
    private static RunResult fullTrace(Scenarios.Scenario scenario, Protocol protocol, RunResult run) {
        RunResult again = replay(scenario, protocol, run.schedule);
        if (again.traceHash != run.traceHash || !again.schedule.equals(run.schedule)) {
            throw new IllegalStateException(scenario.name + ": the schedule " + run.schedule
                    + " replays to another trace: the scenario is not deterministic");
        }
        return again;
    }

    /** Replays one schedule string of a scenario. */
    public static RunResult replay(Scenarios.Scenario scenario, Protocol protocol, String schedule) {
        return scenario.build(protocol, new ReplayChoices(schedule), true).run();
    }
}
