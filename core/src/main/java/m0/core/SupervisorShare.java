package m0.core;

/**
 * The supervisor's side of accept sharing. The supervisor is the one process that learns of
 * a death, and it holds the page, so it writes the marks a dead worker cannot.
 *
 * <p>Not thread-safe: called from the supervisor's loop.
 */
public final class SupervisorShare<C> {

    /** How long the give-up drain waits for connections raised against a dead index. */
    public static final long GIVE_UP_DRAIN_NANOS = 250_000_000L;

    private final Page page;
    private final Channel<C> channel;
    private final Clock clock;
    private final HandOff<C> handOff;
    private final int workers;
    private final boolean sharing;

    public SupervisorShare(Page page, Channel<C> channel, Clock clock, int workers, boolean sharing) {
        this.page = page;
        this.channel = channel;
        this.clock = clock;
        this.workers = workers;
        this.sharing = sharing && workers > 1;
        this.handOff = new HandOff<>(page, channel, new Siblings(page, clock, workers));
    }

    public boolean sharing() {
        return sharing;
    }

    /**
     * Every reap, before anything decides whether to replace the worker: store LEFT.
     */
    public void markReaped(int index) {
        if (!sharing) {
            return;
        }
        checkIndex(index);
        // RP: a worker killed while parked otherwise reads parked and idle forever, and pick
        // hands it connections nothing will read. LEFT, not NOT_STARTED: a sender that picked
        // it before the reap reads state again after raising, and refuses only LEFT.
        page.setVolatile(PageLayout.stateWord(index), PageLayout.LEFT);
    }

    /**
     * The supervisor will not replace worker {@code index} (stopping, respawn budget spent,
     * exit 0 or 78): drain what was queued to it. Call only after {@link #markReaped}; then
     * drive the returned drain's {@link GiveUp#step} until it says done.
     */
    public GiveUp<C> giveUp(int index) {
        checkIndex(index);
        if (!sharing) {
            return GiveUp.nothingToDrain(index);
        }
        return new GiveUp<>(page, channel, handOff, index, clock, clock.nanoTime() + GIVE_UP_DRAIN_NANOS);
    }

    private void checkIndex(int index) {
        if (index < 0 || index >= workers) {
            throw new IllegalArgumentException("worker index " + index + " not in 0.." + (workers - 1));
        }
    }
}
