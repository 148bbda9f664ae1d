package m0.sim;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Exhaustive mode: an odometer over scheduling answers (TigerBeetle's exhaustigen, matklad's
 * "generate all the things") whose digits are pruned by dynamic partial-order reduction
 * (Flanagan and Godefroid, POPL 2005) with sleep sets (Godefroid 1996).
 *
 * <p>Each run replays the recorded prefix of choices, then extends it. At every new state
 * the last event that races with each actor's next transition (dependent, by another actor,
 * not ordered before it by happens-before) adds that actor to the backtrack set of the state
 * before the race, or all enabled actors when it was not enabled there. A transition put to
 * sleep (explored from a state and independent of the step taken) is not tried again below.
 * {@link #nextExecution} turns the odometer: the deepest state with an untried backtrack
 * choice gets it, and everything deeper is forgotten.
 *
 * <p>Sound for terminating runs: every Mazurkiewicz trace (every order of dependent events)
 * of the scenario is explored at least once. Time advances are barriers: they happen only
 * when nothing is enabled, so no event reorders across one.
 */
public final class Dpor implements ChoiceSource {

    static final int MAX_ACTORS = 32;

    private static final class Frame {
        long enabled;
        final long[] reads = new long[MAX_ACTORS];
        final long[] writes = new long[MAX_ACTORS];
        long backtrack;
        long done;
        long sleep;
        int chosen;
    }

    private final List<Frame> frames = new ArrayList<>();
    /** Frames below this depth are replayed this run; at and after it they are new. */
    private int replayDepth;
    private int depth;
    private long nextSleep;

    // happens-before, recomputed each run
    private final int[][] actorClock = new int[MAX_ACTORS][MAX_ACTORS];
    private final int[] count = new int[MAX_ACTORS];
    /**
     * Actors 0..known-1 have been seen this run; every clock is zero past known. An actor not
     * yet seen has done nothing, so its clock is the last time advance's join ({@code advanced}):
     * it takes that when first seen, and the loops stop at known (ADR 0026: the 32 x 32 join
     * at each advance was an eighth of an exhaustive run's CPU).
     */
    private int known;
    private final int[] advanced = new int[MAX_ACTORS];
    /** Each event's vector clock and actor, in arrays kept across runs (no allocation per step). */
    private int[][] eventClock = new int[256][];
    private int[] eventActor = new int[256];
    private int events;
    private final int[] lastWrite = new int[64];
    private final int[][] readsSince = new int[64][];
    private final int[] readsSinceCount = new int[64];

    private long executions;
    private long blocked;
    private int maxDepth;

    public Dpor() {
        for (int o = 0; o < 64; o++) {
            readsSince[o] = new int[8];
        }
        resetRun();
    }

    private void resetRun() {
        depth = 0;
        nextSleep = 0;
        for (int[] c : actorClock) {
            Arrays.fill(c, 0);
        }
        Arrays.fill(count, 0);
        Arrays.fill(advanced, 0);
        known = 0;
        events = 0;
        Arrays.fill(lastWrite, -1);
        Arrays.fill(readsSinceCount, 0);
    }

    @Override
    public int next(Enabled e) {
        long mask = 0;
        for (int k = 0; k < e.size(); k++) {
            if (e.actor(k) >= MAX_ACTORS) {
                throw new IllegalStateException("exhaustive mode supports " + MAX_ACTORS + " actors");
            }
            see(e.actor(k));
            mask |= 1L << e.actor(k);
        }
        if (depth < replayDepth) {
            Frame f = frames.get(depth);
            if (f.enabled != mask) {
                throw new IllegalStateException("nondeterministic scenario: at depth " + depth
                        + " enabled " + Long.toBinaryString(mask) + ", recorded " + Long.toBinaryString(f.enabled));
            }
            return indexOf(e, f.chosen);
        }
        Frame f = new Frame();
        f.enabled = mask;
        for (int k = 0; k < e.size(); k++) {
            f.reads[e.actor(k)] = e.reads(k);
            f.writes[e.actor(k)] = e.writes(k);
        }
        f.sleep = nextSleep & mask;
        frames.add(f);
        maxDepth = Math.max(maxDepth, frames.size());
        for (int k = 0; k < e.size(); k++) {
            race(e.actor(k), e.reads(k), e.writes(k));
        }
        long candidates = mask & ~f.sleep;
        if (candidates == 0) {
            frames.remove(frames.size() - 1);
            blocked++;
            return -1;
        }
        int p = Long.numberOfTrailingZeros(candidates);
        f.backtrack |= 1L << p;
        f.chosen = p;
        return indexOf(e, p);
    }

    /** Finds the last event racing with actor p's next transition and backtracks there. */
    private void race(int p, long r, long w) {
        int best = -1;
        long objects = r | w;
        while (objects != 0) {
            int o = Long.numberOfTrailingZeros(objects);
            objects &= objects - 1;
            int lw = lastWrite[o];
            if (lw > best && !happensBefore(lw, p)) {
                best = lw;
            }
            if ((w & (1L << o)) != 0) {
                for (int k = 0; k < readsSinceCount[o]; k++) {
                    int ev = readsSince[o][k];
                    if (ev > best && !happensBefore(ev, p)) {
                        best = ev;
                    }
                }
            }
        }
        if (best < 0) {
            return;
        }
        Frame f = frames.get(best);
        if ((f.enabled & (1L << p)) != 0) {
            f.backtrack |= 1L << p;
        } else {
            f.backtrack |= f.enabled;
        }
    }

    private boolean happensBefore(int event, int p) {
        int q = eventActor[event];
        return q == p || actorClock[p][q] >= eventClock[event][q];
    }

    /** Actor a takes part from now on: every actor up to it gets the clock it has had all along. */
    private void see(int a) {
        while (known <= a) {
            System.arraycopy(advanced, 0, actorClock[known], 0, known);
            known++;
        }
    }

    @Override
    public void onStep(int actor, long reads, long writes) {
        if (depth >= replayDepth - 1) {
            // the child state is new: its sleep set is what slept here, or was done here,
            // and is independent of the step taken
            Frame f = frames.get(depth);
            long s = (f.sleep | f.done) & ~(1L << actor);
            long keep = 0;
            while (s != 0) {
                int q = Long.numberOfTrailingZeros(s);
                s &= s - 1;
                if (!Footprint.dependent(f.reads[q], f.writes[q], reads, writes)) {
                    keep |= 1L << q;
                }
            }
            nextSleep = keep;
        }
        see(actor);
        int ev = events++;
        if (ev == eventClock.length) {
            eventClock = Arrays.copyOf(eventClock, ev * 2);
            eventActor = Arrays.copyOf(eventActor, ev * 2);
        }
        int[] vc = eventClock[ev];
        if (vc == null) {
            vc = eventClock[ev] = new int[MAX_ACTORS];
        }
        System.arraycopy(actorClock[actor], 0, vc, 0, MAX_ACTORS);
        long objects = reads | writes;
        long o2 = objects;
        while (o2 != 0) {
            int o = Long.numberOfTrailingZeros(o2);
            o2 &= o2 - 1;
            if (lastWrite[o] >= 0) {
                join(vc, eventClock[lastWrite[o]]);
            }
            if ((writes & (1L << o)) != 0) {
                for (int k = 0; k < readsSinceCount[o]; k++) {
                    join(vc, eventClock[readsSince[o][k]]);
                }
            }
        }
        vc[actor] = ++count[actor];
        eventActor[ev] = actor;
        System.arraycopy(vc, 0, actorClock[actor], 0, MAX_ACTORS);
        while (objects != 0) {
            int o = Long.numberOfTrailingZeros(objects);
            objects &= objects - 1;
            if ((writes & (1L << o)) != 0) {
                lastWrite[o] = ev;
                readsSinceCount[o] = 0;
            } else {
                if (readsSinceCount[o] == readsSince[o].length) {
                    readsSince[o] = Arrays.copyOf(readsSince[o], readsSince[o].length * 2);
                }
                readsSince[o][readsSinceCount[o]++] = ev;
            }
        }
        depth++;
    }

    @Override
    public void onTimeAdvance() {
        for (int a = 0; a < known; a++) {
            join(advanced, actorClock[a]);
        }
        for (int a = 0; a < known; a++) {
            System.arraycopy(advanced, 0, actorClock[a], 0, known);
        }
    }

    @Override
    public void onWake(int waker, int woken) {
        see(Math.max(waker, woken));
        join(actorClock[woken], actorClock[waker]); // the wake-up is ordered after the step that woke it
    }

    @Override
    public void onSpawn(int parent, int child) {
        see(Math.max(parent, child));
        System.arraycopy(actorClock[parent], 0, actorClock[child], 0, MAX_ACTORS);
    }

    /** Every clock is zero past {@code known}: joining the first {@code known} entries is the whole join. */
    private void join(int[] into, int[] from) {
        for (int i = 0; i < known; i++) {
            if (from[i] > into[i]) {
                into[i] = from[i];
            }
        }
    }

    private static int indexOf(Enabled e, int actor) {
        for (int k = 0; k < e.size(); k++) {
            if (e.actor(k) == actor) {
                return k;
            }
        }
        throw new IllegalStateException("actor " + actor + " not enabled on replay");
    }

    @Override
    public int choose(int n) {
        throw new UnsupportedOperationException("exhaustive scenarios make no free choices");
    }

    @Override
    public boolean chance(char kind, long question, int oneIn) {
        return false; // faults are actors' transitions in exhaustive scenarios
    }

    /**
     * Turns the odometer after a run: the deepest state with an untried backtrack choice
     * takes it.
     *
     * @return false when every choice has been explored
     */
    public boolean nextExecution() {
        executions++;
        for (int d = frames.size() - 1; d >= 0; d--) {
            Frame f = frames.get(d);
            f.done |= 1L << f.chosen;
            long candidates = f.backtrack & ~f.done & ~f.sleep;
            if (candidates != 0) {
                f.chosen = Long.numberOfTrailingZeros(candidates);
                frames.subList(d + 1, frames.size()).clear();
                replayDepth = d + 1;
                resetRun();
                return true;
            }
        }
        frames.clear();
        return false;
    }

    /** Runs finished so far. */
    public long executions() {
        return executions;
    }

    /** Runs abandoned because every enabled transition was asleep (redundant). */
    public long sleepBlocked() {
        return blocked;
    }

    public int maxDepth() {
        return maxDepth;
    }
}
