package m0.server.worker;

import java.util.concurrent.TimeUnit;
import m0.core.ForwardingWorkerShare;
import m0.core.WorkerShare;
import m0.server.settings.ServerSettings;
import m0.server.settings.Values;

/**
 * A worker's A/B arms and test faults, read once at start from its launch arguments: the hidden
 * {@code --dev-*} settings the supervisor passes on (docs/settings.md, docs/adr/0065), never the
 * environment. The parts receive what they need from here. A fault turns into a stand-in chosen
 * at start (a slower look, a close that leaves a registration behind, a worker held before its
 * start), never into a branch of the real code (Aeron's {@code DebugSendChannelEndpoint}).
 *
 * <ul>
 *   <li>{@code --dev-eager-read on}: read a new connection at once instead of when epoll reports
 *       it (the A/B arm of ADR 0033).
 *   <li>{@code --dev-listen-exclusive off}: the listener without EPOLLEXCLUSIVE under share and
 *       race (the herd, for the benchmark, ADR 0022).
 *   <li>{@code --dev-warm-up off}: no warm-up before the start (ADR 0016's A/B arm).
 *   <li>{@code --dev-ring-sends off}: each answer written with write(2) as it is made, not sent
 *       with the pass's others through io_uring at its end (ADR 0049's A/B arm).
 *   <li>{@code --dev-pair-at 0}: no connection's affinity is read, so rebalance never swaps (ADR
 *       0057's A/B arm); N: read at a connection's Nth request instead of its
 *       {@link Affinities#READ_AT}th; {@code --dev-pair-reread N}: read again every N requests
 *       ({@link Affinities#REREAD_EVERY}), 0 never.
 *   <li>{@code --dev-arm-gap-ms} (and {@code --dev-arm-gap-index}): hold the worker that long
 *       between bind and start (only that index when given).
 *   <li>{@code --dev-die-at-start-index}: that index exits 1 right after its start (a respawn storm).
 *   <li>{@code --dev-look-late-ms}: fountain's looks that much after the core's deadline (the
 *       negative control of the takeover test).
 *   <li>{@code --dev-keep-received-registered on}: a received connection is closed without
 *       leaving the epoll set first (with {@code --dev-hold-sent-copy-ms}, the negative control
 *       of the received-close test, ADR 0034).
 *   <li>{@code --dev-hold-sent-copy-ms}: a sender parks that long between a hand-off's sendmsg
 *       and the close of its copy.
 *   <li>{@code --dev-hide-held on}: a worker whose listener is out for its own reasons (its cap,
 *       an EMFILE back-off) does not say so on the page (the negative control of the held-head
 *       test, ADR 0038).
 * </ul>
 */
record WorkerKnobs(boolean eagerRead, boolean listenExclusive, boolean warmUp, long armGapMillis, int armGapIndex,
                   int dieAtStartIndex, long lookLateNanos, boolean keepReceivedRegistered, long holdSentCopyNanos,
                   boolean hideHeld, boolean ringSends, int pairAt, int pairReread) {

    /** Production: no fault, every knob at its default. */
    static final WorkerKnobs NONE = new WorkerKnobs(false, true, true, 0, -1, -1, 0, false, 0, false, true, Affinities.READ_AT,
            Affinities.REREAD_EVERY);

    /** The knobs the launch arguments set (checked by the supervisor and again as they are read). */
    static WorkerKnobs from(Values v) {
        return new WorkerKnobs(
                v.on(ServerSettings.DEV_EAGER_READ),
                v.on(ServerSettings.DEV_LISTEN_EXCLUSIVE),
                v.on(ServerSettings.DEV_WARM_UP),
                v.number(ServerSettings.DEV_ARM_GAP_MS),
                (int) v.number(ServerSettings.DEV_ARM_GAP_INDEX, -1),
                (int) v.number(ServerSettings.DEV_DIE_AT_START_INDEX, -1),
                TimeUnit.MILLISECONDS.toNanos(v.number(ServerSettings.DEV_LOOK_LATE_MS)),
                v.on(ServerSettings.DEV_KEEP_RECEIVED_REGISTERED),
                TimeUnit.MILLISECONDS.toNanos(v.number(ServerSettings.DEV_HOLD_SENT_COPY_MS)),
                v.on(ServerSettings.DEV_HIDE_HELD),
                v.on(ServerSettings.DEV_RING_SENDS),
                v.integer(ServerSettings.DEV_PAIR_AT),
                v.integer(ServerSettings.DEV_PAIR_REREAD));
    }

    /** The same knobs but the warm-up (--main: its requests would reach the app's own handlers). */
    WorkerKnobs withoutWarmUp() {
        return new WorkerKnobs(eagerRead, listenExclusive, false, armGapMillis, armGapIndex, dieAtStartIndex,
                lookLateNanos, keepReceivedRegistered, holdSentCopyNanos, hideHeld, ringSends, pairAt, pairReread);
    }

    /** How long worker {@code index} is held between bind and start (0: not at all). */
    long armGapMillis(int index) {
        return armGapIndex < 0 || armGapIndex == index ? armGapMillis : 0;
    }

    boolean diesAtStart(int index) {
        return dieAtStartIndex == index;
    }

    /**
     * The protocol object the loop runs: {@code share} itself, or the stand-ins the faults ask
     * for around it (late looks, a hidden HELD mark).
     */
    <C> WorkerShare<C> standIn(WorkerShare<C> share) {
        WorkerShare<C> s = share;
        if (lookLateNanos > 0) {
            s = new LateLooks<>(s, lookLateNanos);
        }
        if (hideHeld) {
            s = new ForwardingWorkerShare<>(s) {
                @Override
                public void holdListener(boolean held) {
                    // says nothing: siblings leave connections to a worker that will not take them
                }
            };
        }
        return s;
    }
}
