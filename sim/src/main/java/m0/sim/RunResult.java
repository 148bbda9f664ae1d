package m0.sim;

import java.util.List;

/** What a run found ({@link Sim#run}): its verdict, its schedule, its cost, its trace. */
public final class RunResult {
    public final boolean quiescent;
    public final boolean sleepBlocked;
    public final List<Violation> violations;
    public final String schedule;
    public final long steps;
    public final long switches;
    public final long traceHash;
    /** Raises orphaned by a death that the final accounting accepted (unhealed). */
    public final long orphans;
    /** What heals took off pending - taken, every index together. */
    public final long healed;
    private final String trace;

    RunResult(Sim sim, boolean quiescent) {
        this.quiescent = quiescent;
        this.sleepBlocked = sim.sleepBlocked;
        this.violations = List.copyOf(sim.violations);
        this.schedule = sim.turn.schedule.toString();
        this.steps = sim.step;
        this.switches = sim.turn.switches;
        this.traceHash = sim.log.hash();
        this.orphans = sim.orphans;
        long h = 0;
        for (long n : sim.healed) {
            h += n;
        }
        this.healed = h;
        this.trace = sim.traceText();
    }

    public boolean ok() {
        return violations.isEmpty();
    }

    /** The run's trace (in full, or its last lines for long random runs). */
    public String trace() {
        return trace;
    }
}
