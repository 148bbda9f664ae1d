package m0.sim;

import m0.core.PageLayout;

/**
 * What a transition touches, as bits of a {@code long}: the dependency relation of the
 * partial-order reduction. Two transitions are dependent when one writes an object the other
 * reads or writes. Object ids above 63 alias onto lower bits, which only adds dependencies
 * (less reduction, never a missed interleaving).
 *
 * <p>A worker's {@code pending}, {@code taken} and channel are ONE object ("acct"): the R5
 * oracle reads exactly those three, so every event that can change its verdict is ordered in
 * every explored trace and the oracle sees every value the group can reach.
 */
public final class Footprint {

    static final int ROTATION = 0;
    static final int EVENT = 1;
    static final int LISTENER = 2;
    static final int MAX_WORKER_OBJECTS = 8;
    private static final int WORKER_BASE = 3;

    private Footprint() {
    }

    public static long bit(int object) {
        return 1L << (object & 63);
    }

    /** The state word of worker i, and the supervisor's reap mark of index i. */
    static int state(int i) {
        return WORKER_BASE + 4 * (i % MAX_WORKER_OBJECTS);
    }

    static int active(int i) {
        return state(i) + 1;
    }

    /** pending[i], taken[i] and channel i. (The busy and stats words of a line share {@link #busy}.) */
    static int acct(int i) {
        return state(i) + 2;
    }

    static int busy(int i) {
        return state(i) + 3;
    }

    /** The process an actor runs in: every step of the actor writes it, a kill writes it. */
    static int proc(int actor) {
        return WORKER_BASE + 4 * MAX_WORKER_OBJECTS + actor;
    }

    static int ofWord(int word) {
        if (word < PageLayout.HEADER_WORDS) {
            return word == PageLayout.ROTATION_WORD ? ROTATION : EVENT;
        }
        int i = (word - PageLayout.HEADER_WORDS) / PageLayout.LINE_WORDS;
        int offset = (word - PageLayout.HEADER_WORDS) % PageLayout.LINE_WORDS;
        switch (offset) {
            case PageLayout.STATE_OFFSET:
                return state(i);
            case PageLayout.ACTIVE_OFFSET:
                return active(i);
            case PageLayout.PENDING_OFFSET:
            case PageLayout.TAKEN_OFFSET:
                return acct(i);
            default:
                return busy(i);
        }
    }

    static boolean dependent(long r1, long w1, long r2, long w2) {
        return (w1 & (r2 | w2)) != 0 || (w2 & r1) != 0;
    }

    /** A readable name of a page word, for traces. */
    static String wordName(int word) {
        if (word == PageLayout.ROTATION_WORD) {
            return "rotation";
        }
        if (word == 2) {
            return "rehomed";
        }
        if (word < PageLayout.HEADER_WORDS) {
            return "header[" + word + "]";
        }
        int i = (word - PageLayout.HEADER_WORDS) / PageLayout.LINE_WORDS;
        int offset = (word - PageLayout.HEADER_WORDS) % PageLayout.LINE_WORDS;
        String[] names = {"state", "active", "pending", "taken", "busy", "sent", "received", "forwarded"};
        return names[offset] + "[" + i + "]";
    }
}
