package m0.server.probe;

/** How the probe opens its connections. */
public enum Shape {
    /** All at once: the case a single client's page load or a pool's warm-up makes. */
    BURST,
    /** One at a time, each answered before the next opens: the server sees every one alone. */
    RAMP,
    /** Groups of eight, each group answered before the next opens. */
    BURSTS8;

    int groupSize(int connections) {
        switch (this) {
            case BURST:
                return connections;
            case RAMP:
                return 1;
            default:
                return 8;
        }
    }

    /** The spelling the command line takes: burst, ramp, bursts8. */
    public String flag() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
