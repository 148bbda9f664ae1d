package m0.core;

import java.util.function.Consumer;

/**
 * The supervisor's bounded drain of a dead worker's channel (RB): the leaver's half of the
 * handshake, run on the dead worker's behalf.
 *
 * <p>It first retires what the dead worker had taken ({@code pending -= taken; taken = 0}, as a
 * replacement's start would); then it takes connections off the channel while
 * {@code pending - taken > 0}, within 250 ms of the give-up, retiring each as it takes it,
 * re-homes each to a live worker through sendWith (none was ever read, so a live worker serves
 * it as a fresh accept) and closes it only when no live worker takes it. At an EAGAIN it heals
 * the index's counts ({@link Heal}): a raise the dead worker's death cut short (its receipt
 * lost between recvmsg and taken, a dead sender's raise against it) is taken off, so the drain
 * waits only for what is really on its way, and a worker a reload later places at this index
 * waits for nothing.
 */
public final class GiveUp<C> {

    private final Page page;
    private final Channel<C> channel;
    private final HandOff<C> handOff;
    private final Heal<C> heal;
    private final int index;
    private final Clock clock;
    private final long deadline;

    private final long startWaitEnd;
    /** Connections no live worker took while one was starting: held for it, not closed. */
    private final java.util.ArrayDeque<C> awaitingStart = new java.util.ArrayDeque<>();

    private long drained;
    private long rehomed;
    private long closed;
    private long lost;
    private boolean done;
    /** The dead worker's taken is retired (the first step). */
    private boolean settled;
    /** The bounded drain is over: what is still raised against the index stays counted. */
    private boolean retired;

    GiveUp(Page page, Channel<C> channel, HandOff<C> handOff, int index, Clock clock, long deadline) {
        this.page = page;
        this.channel = channel;
        this.handOff = handOff;
        this.heal = page == null ? null : new Heal<>(page, channel, index, handOff.siblings().workers());
        if (heal != null) {
            heal.ask(); // the dead may have died holding a receipt it never took
        }
        this.index = index;
        this.clock = clock;
        this.deadline = deadline;
        this.startWaitEnd = clock == null ? 0
                : deadline - SupervisorShare.GIVE_UP_DRAIN_NANOS + AcceptShare.START_WAIT_NANOS;
    }

    /** Without sharing nothing was ever passed to the index: a drain that is already done. */
    static <C> GiveUp<C> nothingToDrain(int index) {
        GiveUp<C> none = new GiveUp<>(null, null, null, index, null, 0);
        none.done = true;
        return none;
    }

    /**
     * One step: take what is queued now, re-home or {@code close} each, and say whether to go
     * on. The caller calls again after a short wait (between epoll waits, or at the simulator's
     * next scheduling point) until it returns false.
     */
    public boolean step(Consumer<? super C> close) {
        if (done) {
            return false;
        }
        for (int n = awaitingStart.size(); n > 0; n--) {
            rehomeOrHold(awaitingStart.pollFirst(), close);
        }
        if (!settled) {
            settled = true;
            // TAKEN, as a replacement's start: what the dead worker took will never be retired by it.
            long counts = page.getVolatile(countsWord());
            heal.note(counts); // the reap asked for a heal of the dead index
            long taken = Counts.taken(counts);
            if (taken != 0) {
                page.getAndAdd(countsWord(), Counts.retire(taken));
            }
        }
        if (!retired) {
            while (inFlight() > 0) {
                C connection = channel.receive(index);
                if (connection == null && (connection = heal.atEagain()) == null) {
                    break;
                }
                take(connection, close);
            }
            if (inFlight() > 0 && clock.nanoTime() - deadline < 0) {
                return true;
            }
            retired = true;
        }
        if (!awaitingStart.isEmpty()) {
            return true; // the counts are settled; what is held waits for a starting worker
        }
        done = true;
        return false;
    }

    /** A receipt off the dead index's channel: retired at once (nobody else retires it), then re-homed. */
    private void take(C connection, Consumer<? super C> close) {
        drained++;
        heal.note(page.getAndAdd(countsWord(), Counts.DRAINED));
        if (channel.lost(connection)) {
            lost++; // drained like any receipt (it was raised against the index); nothing to re-home
            return;
        }
        rehomeOrHold(connection, close);
    }

    /**
     * To a live worker; else, while one is starting (within the wait), held for it; else
     * closed: no worker will serve it.
     */
    private void rehomeOrHold(C connection, Consumer<? super C> close) {
        if (handOff.forward(index, connection) >= 0) {
            rehomed++;
        } else if (clock.nanoTime() - startWaitEnd < 0 && handOff.siblings().anyLiveOrStarting(index)) {
            awaitingStart.addLast(connection);
        } else {
            closed++;
            close.accept(connection);
        }
    }

    /**
     * After the drain is done, while the index stays given up: take what arrived late, re-home
     * each connection (or {@code close} it when no live worker takes it), and retire each
     * receipt at once. Call when the channel is readable, until the index is bound again, and
     * after every reap (a heal: a sender killed against this index leaves a raise nothing else
     * takes off).
     *
     * <p>Why: a sender that re-read the index's state before the reap (PARKED) and then stalled
     * past the drain's bound (a GC pause will do) still queues its connection, into a channel
     * nobody reads until the index is bound again, or ever, after a scale-down. Its raise is
     * still in {@code pending} (the drain's retire took back only what it received), so a late
     * receipt retires {@code pending - 1}; {@code taken} is already zero and nobody raises it
     * while the state reads LEFT. No sender can arrive after its raise read LEFT (B25 takes it
     * back), so what this watches for is bounded by the senders that were mid-hand-off at the reap.
     *
     * @return receipts taken off the channel by this call
     */
    public int watch(Consumer<? super C> close) {
        if (!done || channel == null) {
            return 0;
        }
        int n = 0;
        heal.note(page.getVolatile(countsWord())); // a later reap may have asked for a heal here
        C connection;
        while ((connection = channel.receive(index)) != null || (connection = heal.atEagain()) != null) {
            n++;
            drained++;
            // Retired one at a time: the index is dead, nothing else retires its raises.
            page.getAndAdd(countsWord(), Counts.DRAINED);
            if (channel.lost(connection)) {
                lost++;
            } else if (handOff.forward(index, connection) >= 0) {
                rehomed++;
            } else {
                closed++;
                close.accept(connection);
            }
        }
        return n;
    }

    /** Raised against the dead worker and not yet received by it or by this drain. */
    private long inFlight() {
        long counts = page.getVolatile(countsWord());
        heal.note(counts);
        return Counts.inFlight(counts);
    }

    private int countsWord() {
        return PageLayout.countsWord(index);
    }

    public boolean done() {
        return done;
    }

    public int index() {
        return index;
    }

    /** Connections taken off the dead worker's channel. */
    public long drained() {
        return drained;
    }

    /** Of those, passed to a live worker. */
    public long rehomed() {
        return rehomed;
    }

    /** Of those, closed because no live worker would take them. */
    public long closed() {
        return closed;
    }

    /** Of those, receipts that carried no connection (see {@link Channel#lost}). */
    public long lost() {
        return lost;
    }
}
