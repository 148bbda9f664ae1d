package m0.lincheck;

/**
 * Invocation counts, sized for CI and raised for long runs by system properties (the
 * {@code model-check} profile raises them; {@code -Dlincheck.invocations=N} on the command line
 * overrides both).
 */
final class Budget {

    private Budget() {
    }

    /** Interleavings Lincheck explores for each scenario over the real core. */
    static int core() {
        return Integer.getInteger("lincheck.invocations", 50);
    }

    /** Interleavings per death point when a scenario sweeps where an actor dies. */
    static int perDeathPoint() {
        return Integer.getInteger("lincheck.deathPointInvocations", Math.max(5, core() / 4));
    }

    /**
     * The most interleavings a mutant may take before it is caught. Lincheck stops at the
     * first failure, so a caught mutant costs far less than this; one that is not caught
     * fails the build.
     */
    static int mutant() {
        return Integer.getInteger("lincheck.mutantInvocations", 1000);
    }
}
