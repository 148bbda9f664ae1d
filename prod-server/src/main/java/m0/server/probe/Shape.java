package m0.server.probe;

/** How the probe opens its connections. */
public enum Shape {
    /** All at once: the case a single client's page load or a pool's warm-up makes. */
    BURST,
    /** One at a time, each answered before the next opens: the server sees every one alone. */
    RAMP,
    /** Groups of eight, each group answered before the next opens. */
    BURSTS8,
    /**
     * All at once, each asking as it opens, as a pool's clients do (BURST's connections say
     * nothing until all are open): where a burst lands when passes read requests while it is
     * still arriving, and the only burst a listener with TCP_DEFER_ACCEPT sees at once (ADR 0054).
     */
    ASKING;

    int groupSize(int connections) {
        switch (this) {
            case BURST:
            case ASKING:
                return connections;
            case RAMP:
                return 1;
            default:
                return 8;
        }
    }

    /** Whether each connection asks as it opens (its first answer is where it landed). */
    boolean asksOnOpen() {
        return this == ASKING;
    }

    /** The spelling the command line takes: burst, ramp, bursts8, asking. */
    public String flag() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
