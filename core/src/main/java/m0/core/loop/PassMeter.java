package m0.core.loop;

/**
 * What a worker's loop counts of itself, from the clock reads and events it has anyway: wake-ups,
 * wake-ups that found nothing to accept (the herd's cost), accepts, fountain's looks, and the
 * cumulative busy time (time outside the wait). The driver publishes them for observers.
 */
public final class PassMeter {

    private long wakeups;
    private long emptyWakeups;
    private long accepted;
    private long looks;
    private long busyNanos;

    void wakeup() {
        wakeups++;
    }

    void emptyWakeup() {
        emptyWakeups++;
    }

    void accepted(long n) {
        accepted += n;
    }

    void look() {
        looks++;
    }

    void busy(long nanos) {
        busyNanos += nanos;
    }

    public long wakeups() {
        return wakeups;
    }

    public long emptyWakeups() {
        return emptyWakeups;
    }

    public long accepted() {
        return accepted;
    }

    public long looks() {
        return looks;
    }

    /** Cumulative time outside the wait, from the loop's own clock reads. */
    public long busyNanos() {
        return busyNanos;
    }
}
