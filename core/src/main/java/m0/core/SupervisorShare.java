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
    /** Indices whose STARTING bit is set: spawned, not yet seen started or reaped. */
    private final boolean[] starting;

    public SupervisorShare(Page page, Channel<C> channel, Clock clock, int workers, boolean sharing) {
        this.page = page;
        this.channel = channel;
        this.clock = clock;
        this.workers = workers;
        this.sharing = sharing && workers > 1;
        this.handOff = new HandOff<>(page, channel, new Siblings(page, clock, workers),
                PageLayout.SUPERVISOR_SENDING_WORD);
        this.starting = new boolean[workers];
    }

    /**
     * Before spawning a worker into {@code index}: mark it as starting, so that a leaver or a
     * give-up with no live worker waits for it rather than close what it holds. Before the
     * spawn: from the moment the process exists until the supervisor sees it start, it counts.
     * The mark is a bit of its own per index ({@link PageLayout#startingWord}), not a server-wide
     * count: a worker that leaves before the supervisor has seen it start must not read itself as
     * a sibling that is coming (it would hold its hand-offs for the whole start wait, ADR 0038).
     */
    public void spawning(int index) {
        checkIndex(index);
        if (!sharing || starting[index]) {
            return;
        }
        starting[index] = true;
        mark(index, true);
    }

    /**
     * The supervisor saw worker {@code index} start (its state read PARKED or a pass): it is
     * live now, and no longer marked as starting. Marked until after its PARKED, so a reader
     * never sees it in neither.
     */
    public void started(int index) {
        checkIndex(index);
        notStarting(index);
    }

    /**
     * One look at a worker the supervisor spawned into {@code index} and has not seen start:
     * true, and no longer marked as starting, once its state reads PARKED or a pass (what its
     * start and its passes write). A worker that left before it was seen (LEFT) stays marked
     * until its reap: it reads no channel, but it is no sibling of its own (the mark is its
     * index's), so nobody else waits on it for long.
     */
    public boolean startSeen(int index) {
        checkIndex(index);
        long state = page.getVolatile(PageLayout.stateWord(index));
        if (state == PageLayout.PARKED || PageLayout.inPass(state)) {
            started(index);
            return true;
        }
        return false;
    }

    /** The spawn into {@code index} failed: nothing is coming there. */
    public void spawnFailed(int index) {
        checkIndex(index);
        notStarting(index);
    }

    private void notStarting(int index) {
        if (starting[index]) {
            starting[index] = false;
            mark(index, false);
        }
    }

    /** Sets or clears index i's STARTING bit. One writer: no other process changes the word. */
    private void mark(int i, boolean on) {
        int word = PageLayout.startingWord(workers, i);
        long bits = page.getVolatile(word);
        page.setVolatile(word, on ? bits | PageLayout.startingBit(i) : bits & ~PageLayout.startingBit(i));
    }

    public boolean sharing() {
        return sharing;
    }

    /**
     * Every reap, before the index is respawned or given up: store LEFT.
     */
    public void markReaped(int index) {
        markReaped(index, false);
    }

    /**
     * Every reap, before the index is respawned or given up: store LEFT. With
     * {@code replacing}, the replacement is marked as starting BEFORE the LEFT: a leaver or a
     * give-up that reads the dead worker LEFT then finds the mark set, so there is no instant at
     * which the index reads neither live nor coming.
     */
    public void markReaped(int index, boolean replacing) {
        if (!sharing) {
            return;
        }
        checkIndex(index);
        if (replacing) {
            spawning(index);
        }
        // RP: a worker killed while parked otherwise reads parked and idle forever, and pick
        // hands it connections nothing will read. LEFT, not NOT_STARTED: a sender that picked
        // it before the reap reads state again after raising, and refuses only LEFT.
        page.setVolatile(PageLayout.stateWord(index), PageLayout.LEFT);
        // Heal (ADR 0024): the dead write nothing more, so a hand-off it was making is over, and
        // a heal must not wait for it as for a live one: its SENDING is cleared; THEN the
        // receiver of the index it was sending to is asked to recount pending - taken (a raise
        // never sent). Its own index (a receipt never taken) is healed by whoever takes it over:
        // a replacement's start, a give-up, ask themselves.
        long sending = page.getVolatile(PageLayout.sendingWord(index));
        if (sending != 0) {
            page.setVolatile(PageLayout.sendingWord(index), 0);
            if (sending - 1 != index && sending - 1 < workers) {
                requestHeal((int) (sending - 1));
            }
        }
        if (!replacing) {
            // A worker that died before it was seen started is not coming: nobody waits for it.
            notStarting(index);
        }
    }

    /** Sets index i's HEAL bit (and moves its version, so a heal already reading it tries again). */
    private void requestHeal(int i) {
        int word = PageLayout.countsWord(i);
        long counts;
        do {
            counts = page.getVolatile(word);
        } while (!page.compareAndSet(word, counts, Counts.requestHeal(counts)));
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
