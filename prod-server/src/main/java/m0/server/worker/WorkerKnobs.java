package m0.server.worker;

import java.util.Map;
import java.util.concurrent.TimeUnit;
import m0.core.ForwardingWorkerShare;
import m0.core.WorkerShare;

/**
 * A worker's A/B knobs and test faults, read once from its environment at start; the parts
 * receive what they need from here and never read the environment themselves. A fault turns
 * into a stand-in chosen at start (a slower look, a close that leaves a registration behind, a
 * worker held before its start), never into a branch of the real code (Aeron's
 * {@code DebugSendChannelEndpoint}).
 *
 * <ul>
 *   <li>{@code M0_EAGER_READ=1}: read a new connection at once instead of when epoll reports it
 *       (the A/B arm of ADR 0033).
 *   <li>{@code M0_LISTEN_EXCLUSIVE=0}: the listener without EPOLLEXCLUSIVE under share and race
 *       (the herd, for the benchmark, ADR 0022).
 *   <li>{@code M0_WARM_UP=0}: no warm-up before the start (ADR 0016's A/B arm).
 *   <li>{@code M0_RING_SENDS=0}: each answer written with write(2) as it is made, not sent with the
 *       pass's others through io_uring at its end (ADR 0049's A/B arm).
 *   <li>{@code M0_PAIR=0}: no connection's affinity is read, so rebalance never swaps (ADR 0057's
 *       A/B arm); {@code M0_PAIR=N}, 2 to 1024 (where a session stops counting): read at a
 *       connection's Nth request instead of its {@link Affinities#READ_AT}th;
 *       {@code M0_PAIR_REREAD=N}: read again every N requests ({@link Affinities#REREAD_EVERY}),
 *       0 never.
 *   <li>{@code M0_TEST_ARM_GAP_MS} (and {@code M0_TEST_ARM_GAP_INDEX}): hold the worker that long
 *       between bind and start (only that index when given).
 *   <li>{@code M0_TEST_DIE_AT_START_INDEX}: that index exits 1 right after its start (a respawn storm).
 *   <li>{@code M0_TEST_LOOK_LATE_MS}: fountain's looks that much after the core's deadline (the
 *       negative control of the takeover test).
 *   <li>{@code M0_TEST_KEEP_RECEIVED_REGISTERED=1}: a received connection is closed without
 *       leaving the epoll set first (with {@code M0_TEST_HOLD_SENT_COPY_MS}, the negative control
 *       of the received-close test, ADR 0034).
 *   <li>{@code M0_TEST_HOLD_SENT_COPY_MS}: a sender parks that long between a hand-off's sendmsg
 *       and the close of its copy.
 *   <li>{@code M0_TEST_HIDE_HELD=1}: a worker whose listener is out for its own reasons (its cap,
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

    /** The knobs the environment sets; a malformed number is an error at start, not a default. */
    static WorkerKnobs from(Map<String, String> env) {
        return new WorkerKnobs(
                "1".equals(env.get("M0_EAGER_READ")),
                !"0".equals(env.get("M0_LISTEN_EXCLUSIVE")),
                !"0".equals(env.get("M0_WARM_UP")),
                number(env, "M0_TEST_ARM_GAP_MS", 0),
                (int) number(env, "M0_TEST_ARM_GAP_INDEX", -1),
                (int) number(env, "M0_TEST_DIE_AT_START_INDEX", -1),
                TimeUnit.MILLISECONDS.toNanos(number(env, "M0_TEST_LOOK_LATE_MS", 0)),
                "1".equals(env.get("M0_TEST_KEEP_RECEIVED_REGISTERED")),
                TimeUnit.MILLISECONDS.toNanos(number(env, "M0_TEST_HOLD_SENT_COPY_MS", 0)),
                "1".equals(env.get("M0_TEST_HIDE_HELD")),
                !"0".equals(env.get("M0_RING_SENDS")),
                (int) number(env, "M0_PAIR", Affinities.READ_AT),
                (int) number(env, "M0_PAIR_REREAD", Affinities.REREAD_EVERY));
    }

    /** The same knobs but the warm-up (--main: its requests would reach the app's own handlers). */
    WorkerKnobs withoutWarmUp() {
        return new WorkerKnobs(eagerRead, listenExclusive, false, armGapMillis, armGapIndex, dieAtStartIndex,
                lookLateNanos, keepReceivedRegistered, holdSentCopyNanos, hideHeld, ringSends, pairAt, pairReread);
    }

    private static long number(Map<String, String> env, String name, long otherwise) {
        String v = env.get(name);
        if (v == null || v.isBlank()) {
            return otherwise;
        }
        try {
            return Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(name + " is not a number: " + v);
        }
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
