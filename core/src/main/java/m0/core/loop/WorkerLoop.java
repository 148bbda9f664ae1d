package m0.core.loop;

import java.util.function.Consumer;
import java.util.function.Predicate;
import m0.core.AcceptPolicy;
import m0.core.AcceptShare;
import m0.core.BusyEstimator;
import m0.core.Clock;
import m0.core.WorkerShare;

/**
 * A worker's duty cycle, written once: what one pass of its event loop does, in what order, and
 * how long it may wait for the next. m0serve runs it over epoll and JNR; the simulator runs the
 * same class over its virtual kernel, so every protocol decision of the loop (the accept batch
 * and where it ends, the channel drain, whether the listener is in the interest set, the busy
 * sample, the heal and rebalance looks, the leave steps, the pass end) is on a checked path.
 *
 * <p>The driver's cycle, like nginx's worker cycle around one events-and-timers call:
 * <pre>
 *   loop.start();
 *   do {
 *       wait for events, at most loop.timeout() nanoseconds
 *       loop.begin();
 *       for each connection event: loop.work(); serve it (the driver's connection I/O)
 *   } while (loop.end(channelReadable, listenerReadable));
 * </pre>
 * {@link #end} runs the rest of the pass in a fixed order: the channel drain (a nudge it
 * swallows makes this pass's look due), the listener's batch, the stop, the connections'
 * timers, the leave step, the listener's return (cap, back-off, fountain's look), the rebalance
 * look, the heal look, the pass end, the busy sample. (A pick counts the receipts either way:
 * in open once admitted, in pending - taken until then.)
 *
 * <p>Not thread-safe: the worker's loop thread owns it, but for {@link #requestStop()}.
 *
 * @param <C> the connection handle of an accept or a receipt
 */
public final class WorkerLoop<C> {

    /** Accepts per listener wake-up: keeps one burst from starving the connections already open. */
    public static final int ACCEPT_BATCH = 64;
    /**
     * Receipts per pass, at most: a pass retires what it received at its end, and the counts
     * word holds at most {@link m0.core.Counts#IN_FLIGHT_MAX} unretired; what is left stays
     * queued and the channel readable, so the next wait returns at once.
     */
    public static final int RECEIVE_BATCH = 4096;
    /** After EMFILE/ENFILE on accept, the listener stays out of the interest set this long. */
    public static final long ACCEPT_BACKOFF_NANOS = 100_000_000L;
    /**
     * How often a worker holding idle connections looks whether one should move, when no pass end
     * did (a sibling that respawned or was added is lighter, and nothing wakes us). 25 ms: a skew
     * left by a crash starts draining within a tick; a pass end after work looks anyway, so under
     * load the tick never fires.
     */
    public static final long REBALANCE_TICK_NANOS = 25_000_000L;
    /**
     * While sharing, the loop waits at most this long, so that an idle worker looks at the page's
     * heal requests (ADR 0024) at least once a second: one read of a page word.
     */
    public static final long HEAL_LOOK_NANOS = 1_000_000_000L;
    /** While leaving, the drain and the grace deadline are looked at this often. */
    public static final long STOP_POLL_NANOS = 5_000_000L;

    /** How much one worker takes on: its accept batch, its connection cap, its grace when leaving. */
    public record Limits(int acceptBatch, long maxConnections, long graceNanos) {
        public Limits {
            if (acceptBatch < 1 || maxConnections < 1 || graceNanos < 0) {
                throw new IllegalArgumentException("batch >= 1, cap >= 1, grace >= 0: " + this);
            }
        }
    }

    private final WorkerShare<C> share;
    private final Listener<C> listener;
    private final ListenerInterest interest;
    private final Connections<C> connections;
    private final Channels channels;
    private final Clock clock;
    private final Consumer<String> failures;
    private final Limits limits;
    /** A policy whose worker moves idle connections: a look after work and on a tick. */
    private final boolean rebalancing;
    /** A policy that samples busy time (fountain): a sample every pass end, at least every 20 ms. */
    private final boolean sampling;
    /** A policy that judges the arrivals' shape (share, ADR 0041): a reading at every pass start. */
    private final boolean shaping;
    /** The listener defers accepts while every worker keeps (ADR 0056); null: never asked. */
    private ListenerDeferral deferral;
    private final PassMeter meter = new PassMeter();

    /** start() has run: work stamps a pass of the protocol from now on. */
    private boolean started;
    /** Set by a signal handler's thread (or the supervisor's death): read at the next pass. */
    private volatile boolean stopRequested;
    private boolean stopping;
    /** The leaver's drain goes on (leaveStep said so). */
    private boolean draining;
    private long stopDeadline;
    /** This pass's start (the clock read after the wait) and whether it found real work. */
    private long now;
    private boolean worked;
    /** The last pass end's clock read: the wait's timeout counts from it. */
    private long passEnd;
    /** What the HELD mark on the page says now (ADR 0038). */
    private boolean heldPublished;
    /** When the next rebalance look is due without work; MAX_VALUE: none. */
    private long nextRebalance = Long.MAX_VALUE;
    /** Fountain: the next pass end at which the core takes a sample (20 ms after its last). */
    private long nextSample;

    public WorkerLoop(WorkerShare<C> share, Listener<C> listener, Connections<C> connections, Channels channels,
                      Clock clock, Limits limits, Consumer<String> failures) {
        this.share = share;
        this.listener = listener;
        this.interest = new ListenerInterest(listener);
        this.connections = connections;
        this.channels = channels;
        this.clock = clock;
        this.limits = limits;
        this.failures = failures;
        this.rebalancing = share.rebalances();
        this.sampling = share.sharing() && share.policy().samplesBusy();
        this.shaping = share.sharing() && share.policy().judgesShape();
    }

    /** The listener goes into the interest set: before {@link #start()}, with the other registrations. */
    public void listen() {
        interest.register();
    }

    /**
     * Before {@link #start()}: the listener's deferral follows the load (ADR 0056). While every
     * worker keeps what it accepts (the arrivals close short everywhere), new connections are
     * accepted when their request arrives, one wake-up a connection instead of two; otherwise at
     * the handshake, so that a burst is seen, and placed, while it is still silent. Only a policy
     * that judges the shape does this, and only when the server leaves it to the workers
     * ({@code --defer-accept auto}).
     */
    public void deferOnChurn() {
        deferral = shaping ? new ListenerDeferral(listener) : null;
    }

    /**
     * The worker is ready to serve: the core takes over its index, and every pass from here on is
     * the protocol's. The first pass end gives the busy estimator its baseline and looks at
     * rebalancing once (a worker that holds one connection or none sets no tick then).
     */
    public void start() {
        share.start();
        started = true;
        passEnd = clock.nanoTime();
        nextSample = passEnd;
        if (rebalancing) {
            nextRebalance = passEnd;
        }
        if (shaping) {
            // The shape's first window starts here: what the warm-up closed is not the load's.
            share.shape(passEnd, connections.shortCloses(), connections.reuses());
            if (deferral != null) {
                deferral.start(share.keepingEverywhere(), passEnd);
            }
        }
    }

    /** SIGTERM, or the supervisor's death: leave at the next pass. Any thread; wake the wait after. */
    public void requestStop() {
        stopRequested = true;
    }

    /** A stop was asked for (any thread). */
    public boolean stopRequested() {
        return stopRequested;
    }

    /**
     * How long the next wait may block, counted from the last pass end: until the first of the
     * loop's timers (the connections', the listener's return or look, rebalance, the sample);
     * -1: no timer. While sharing, at most {@link #HEAL_LOOK_NANOS}.
     */
    public long timeout() {
        if (stopping) {
            return STOP_POLL_NANOS;
        }
        long next = Math.min(connections.deadline(), interest.wakeAt());
        if (rebalancing) {
            next = Math.min(next, nextRebalance);
        }
        if (sampling) {
            next = Math.min(next, nextSample);
        }
        if (shaping) {
            next = Math.min(next, share.shapeDeadline());
        }
        if (next == Long.MAX_VALUE) {
            return share.sharing() ? HEAL_LOOK_NANOS : -1;
        }
        long wait = Math.max(0, next - passEnd);
        return share.sharing() ? Math.min(wait, HEAL_LOOK_NANOS) : wait;
    }

    /** {@link #timeout()} as a clock time: when the next wait must end at the latest; MAX_VALUE: never. */
    public long deadline() {
        long t = timeout();
        return t < 0 ? Long.MAX_VALUE : passEnd + t;
    }

    /**
     * The wait returned: a pass begins. No stamp on the page yet (busy means busy, ADR 0015): a
     * wake-up that lost the accept race to a sibling stays PARKED; {@link #work()} stamps the
     * pass at its first real work.
     */
    public void begin() {
        now = clock.nanoTime();
        worked = false;
        meter.wakeup();
        if (shaping && started) {
            // Before this pass's accepts: a burst that wakes a worker idle since a spell of
            // churn is judged on the idle time, not on the churn (ADR 0041).
            share.shape(now, connections.shortCloses(), connections.reuses());
            if (deferral != null) {
                deferral.follow(share.keepingEverywhere(), now);
            }
        }
    }

    /** This pass's start, for the driver's connection I/O. */
    public long now() {
        return now;
    }

    /**
     * The pass has real work (bytes to parse, output to write, a move; an accept or a receipt
     * where the policy says so, {@link #admitted()}): stamp its start on the page, once per
     * pass, and look at rebalancing at its end.
     */
    public void work() {
        worked = true;
        if (started) { // before start (the warm-up) the index is NOT_STARTED: nothing to stamp
            share.work();
        }
    }

    /**
     * The pass runs a TLS handshake (ADR 0069, addendum): work for the rebalance look at its end,
     * and on the page what an admission is (share: no stamp). A handshake runs no app code and
     * ends; stamped like a view, a pass of handshakes read to the siblings' picks as a slow view.
     */
    public void handshaking() {
        worked = true;
        if (started) {
            share.handshaking();
        }
    }

    /**
     * The pass accepted or received a connection: work for the rebalance look at its end; on the
     * page, work only where the policy counts an admission as busy (share does not, ADR 0052).
     */
    private void admitted() {
        worked = true;
        if (started) {
            share.admitted();
        }
    }

    /**
     * The rest of the pass, in its fixed order.
     *
     * @param channelReadable the wait reported the worker's channel readable
     * @param listenerReadable the wait reported the listener readable
     * @return false once the worker has left and holds nothing: exit
     */
    public boolean end(boolean channelReadable, boolean listenerReadable) {
        if (channelReadable) {
            drainChannel();
        }
        if (listenerReadable && interest.in()) {
            long before = meter.accepted();
            listen(true);
            if (meter.accepted() == before) {
                meter.emptyWakeup(); // woken for nothing: the herd's cost
            }
        }
        if (stopRequested && !stopping) {
            beginStop();
        }
        if (now - connections.deadline() >= 0) {
            connections.expire(now);
        }
        if (stopping) {
            stepStop();
        } else {
            if (!interest.in()) {
                listenerDue();
            }
            if (rebalancing && (worked || now - nextRebalance >= 0)) {
                rebalance();
            }
            if (share.healDue()) {
                // A reap asked this index to heal its counts (ADR 0024): the core heals at the
                // EAGAIN of a receive, so receive even though the channel did not wake us.
                drainChannel();
            }
        }
        if (rebalancing) {
            share.publishAffinities(connections.affinities()); // for a sibling's swap (ADR 0057)
        }
        // For the siblings' looks and stats, before the pass end's retire: a connection moved here
        // leaves pending only after it is counted settled (ADR 0059).
        share.publishSettled(connections.settled());
        share.passEnd(connections.open());
        if (stopping && !draining && connections.open() == 0) {
            return false;
        }
        // Busy time: this pass, from the wake-up's clock read to this one, which the next wait's
        // timeout counts from: the loop's one reading of its own load.
        passEnd = clock.nanoTime();
        meter.busy(passEnd - now);
        if (sampling) {
            // Full is the larger of the loop's share and the pool's (ADR 0029).
            share.sample(meter.busyNanos(), connections.poolBusyNanos(passEnd), connections.poolThreads());
            if (passEnd - nextSample >= 0) {
                // The core sampled (its clock read came after passEnd): the next is due 20 ms
                // after a reading taken now, never before the core's own (ADR 0019).
                nextSample = clock.nanoTime() + BusyEstimator.SAMPLE_NANOS;
            }
        }
        return true;
    }

    /** Receipts to EAGAIN, each admitted through the accept path's tail; then a nudge's look. */
    private void drainChannel() {
        try {
            C c;
            for (int k = 0; k < RECEIVE_BATCH && (c = share.receive()) != null; k++) {
                admitted();
                connections.admit(c, true);
            }
            if (channels.nudged()) {
                interest.lookNow(now); // fountain: an earlier worker turned full
            }
        } catch (RuntimeException e) {
            // The receive failed before anything was taken: the counts are as they were, the
            // channel stays readable and the next pass tries again.
            failures.accept("receiving a hand-off: " + e + "; retrying");
        }
    }

    /**
     * The loop looked at the listener: the wait found it {@code readable}, or fountain's look
     * polled it. The core's takeListener decides (always yes under share and race); no: leave it
     * to the earlier worker until the core's deadline; yes: in, and a batch when readable.
     */
    private void listen(boolean readable) {
        if (!share.takeListener(readable)) {
            interest.leaveToHead(share.listenDeadline());
            return;
        }
        interest.take();
        if (readable) {
            acceptBatch();
        }
    }

    /**
     * Up to a batch of accepts. Each goes through the core's passOn; one kept here is admitted,
     * and the core says whether the batch goes on (fountain ends it when the accept turned this
     * worker full, and names the sibling to nudge). The cap and EMFILE take the listener out.
     */
    private void acceptBatch() {
        for (int k = 0; k < limits.acceptBatch() && !stopping; k++) {
            long open = connections.open();
            if (open >= limits.maxConnections()) {
                // At the cap: stop accepting before the descriptors run out (nginx's "worker
                // connections are not enough", said once a second at most).
                if (!interest.outFor(ListenerInterest.CAP)) {
                    failures.accept("at --max-connections " + limits.maxConnections()
                            + ": not accepting until a connection closes");
                }
                interest.atCap();
                publishHeld();
                return;
            }
            C c;
            try {
                c = listener.accept();
            } catch (RuntimeException e) {
                if (listener.outOfDescriptors(e)) {
                    // Out of descriptors is a state, not a loop: the listener stays readable, so
                    // a level-triggered wait would wake us for it at once, forever. Out for a
                    // back-off, serving what we hold meanwhile.
                    interest.backOff(now + ACCEPT_BACKOFF_NANOS);
                    publishHeld();
                    failures.accept(e.getMessage() + "; not accepting for " + ACCEPT_BACKOFF_NANOS / 1_000_000
                            + " ms (" + open + " open)");
                } else {
                    failures.accept(String.valueOf(e.getMessage())); // ECONNABORTED and the like: per connection
                }
                return;
            }
            if (c == null) {
                return; // EAGAIN: a sibling won the race; an empty wake-up is not work
            }
            meter.accepted(1);
            admitted();
            boolean passed;
            try {
                passed = share.passOn(c, open);
            } catch (RuntimeException e) {
                // The core took its raise back before this left sendWith: the connection is ours.
                failures.accept("passing a connection on: " + e + "; serving it here");
                passed = false;
            }
            if (passed) {
                continue; // a sibling's channel holds it now
            }
            connections.admit(c, false);
            int next = share.endBatch();
            if (next != AcceptPolicy.GO_ON) {
                if (next >= 0) {
                    channels.nudge(next); // fountain: we are full; it left the listener to us
                }
                return;
            }
        }
    }

    /**
     * Once a pass while the listener is out: back in when below the cap and the back-off is over;
     * fountain's look when its deadline has come (a zero-timeout poll: a connection the head
     * leaves waiting is taken at the second look, ADR 0019).
     */
    private void listenerDue() {
        interest.resume(now, connections.open(), limits.maxConnections());
        publishHeld();
        if (interest.lookDue(now)) {
            meter.look();
            listen(listener.readable());
        }
    }

    /** The HELD mark follows the cap and the back-off: published on a change only. */
    private void publishHeld() {
        boolean held = interest.held();
        if (held != heldPublished) {
            heldPublished = held;
            share.holdListener(held);
        }
    }

    /**
     * Rebalance (the core's {@link m0.core.Rebalance}): while the core's look names a lighter
     * sibling, or one to swap with, hand it one idle connection, of the kind the core asks
     * for. The core allows one move per interval, so this moves
     * at most one now and schedules the next look; with nothing to move, the next look is a tick
     * away while we hold enough that one could ever move.
     */
    private void rebalance() {
        boolean moved = false;
        for (;;) {
            long affinities = connections.affinities();
            int target = share.rebalancePick(connections.open(), connections.settled(), affinities);
            if (target == share.self()) {
                break;
            }
            Predicate<C> send = c -> {
                if (!share.mayMove(connections.handshakeBegun(c))) {
                    return false; // its TLS session lives here (ADR 0069): served on where it is
                }
                work(); // a move is work, stamped before it like any
                try {
                    return share.rebalance(target, c);
                } catch (RuntimeException e) {
                    // As passOn's: the core took its raise back before the send threw, so the
                    // connection is ours; the port serves it on, and the next look may try again.
                    failures.accept("moving a connection to worker " + target + ": " + e + "; serving it here");
                    return false;
                }
            };
            // Keeping, only a settled one moves: the look counted those (ADR 0059).
            if (!(share.settledOnly() ? connections.moveSettled(send)
                    : connections.moveIdle(share.affinityToMove(target, affinities), share.swapping(), send))) {
                break; // nothing idle now, or a full channel: the next look retries
            }
            moved = true;
        }
        if (moved) {
            nextRebalance = now + AcceptShare.REBALANCE_INTERVAL_NANOS;
        } else if (connections.open() > AcceptShare.REBALANCE_DEAD_BAND) {
            nextRebalance = now + REBALANCE_TICK_NANOS;
        } else {
            nextRebalance = Long.MAX_VALUE; // one connection never moves: no tick
        }
    }

    /**
     * SIGTERM: LEFT first (no sibling hands us anything from here on), the listener out for good
     * and closed, then the idle connections handed over (or closed).
     */
    private void beginStop() {
        stopping = true;
        stopDeadline = now + limits.graceNanos();
        share.leave();
        interest.close();
        // Our copy of the listener closes now: its deferral is the siblings' to keep right (they
        // re-ask each period), and a setsockopt after the close would hit a closed or reused fd.
        deferral = null;
        listener.close(); // the supervisor and the siblings keep the listener open
        draining = true;
        connections.leaveIdle(this::handOver, this::keepIdle);
    }

    /**
     * One leave step: the core's drain (what arrives goes to a live sibling; only what none takes
     * is admitted here), idle connections handed over, and everything closed at the grace's end.
     */
    private void stepStop() {
        if (draining) {
            draining = share.leaveStep(c -> connections.admit(c, true));
            if (!draining) {
                channels.stopWatching();
            }
        }
        connections.leaveIdle(this::handOver, this::keepIdle);
        if (now - stopDeadline >= 0) {
            connections.closeAll(); // the grace period is over
            draining = false;
        }
    }

    /**
     * A leaver's hand-over of one idle connection, guarded as passOn is: a send that throws took
     * its raise back, so the connection is still ours, and is treated as one no sibling took.
     */
    private boolean handOver(C connection) {
        if (!share.mayMove(connections.handshakeBegun(connection))) {
            return false; // pinned (ADR 0069): the port closes it once idle, or serves it while a sibling starts
        }
        try {
            return share.handOver(connection);
        } catch (RuntimeException e) {
            failures.accept("handing a connection over: " + e + "; keeping it");
            return false;
        }
    }

    /**
     * An idle connection no sibling took is served on, and offered again at the next step, while
     * a sibling is starting (ADR 0021): closed now, it would race with its client's next request.
     * Not when the policy never moves connections (fountain): no step would take it.
     */
    private boolean keepIdle() {
        return share.policy().movesConnections() && share.awaitingStart();
    }

    /** Wake-ups, accepts, looks and busy time, for the worker's counters. */
    public PassMeter meter() {
        return meter;
    }

    /** Leaving: the stop has begun. */
    public boolean stopping() {
        return stopping;
    }

    /** The listener's interest (for stats and tests). */
    public ListenerInterest interest() {
        return interest;
    }
}
