package m0.sim;

import m0.core.Counts;
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
    /** The supervisor's SENDING word. */
    static final int SUPERVISOR_SENDING = 3;
    static final int MAX_WORKER_OBJECTS = 8;
    private static final int PER_WORKER = 5;
    private static final int WORKER_BASE = 4;

    private Footprint() {
    }

    public static long bit(int object) {
        return 1L << (object & 63);
    }

    /** The state word of worker i, and the supervisor's reap mark of index i. */
    static int state(int i) {
        return WORKER_BASE + PER_WORKER * (i % MAX_WORKER_OBJECTS);
    }

    /** counts[i] (active, pending and taken) and channel i. (The busy and stats words of a line share {@link #busy}.) */
    static int acct(int i) {
        return state(i) + 2;
    }

    static int busy(int i) {
        return state(i) + 3;
    }

    /** sending[i]: the hand-off worker i is making, read by every heal. */
    static int sending(int i) {
        return state(i) + 4;
    }

    /** The process an actor runs in: every step of the actor writes it, a kill writes it. */
    static int proc(int actor) {
        return WORKER_BASE + PER_WORKER * MAX_WORKER_OBJECTS + actor;
    }

    /** The object a page word is, on a page for {@code workers}: the STARTING region is the EVENT object. */
    static int ofWord(int word, int workers) {
        if (word >= PageLayout.lineOf(workers)) {
            return EVENT;
        }
        if (word < PageLayout.HEADER_WORDS) {
            switch (word) {
                case PageLayout.ROTATION_WORD:
                    return ROTATION;
                case PageLayout.SUPERVISOR_SENDING_WORD:
                    return SUPERVISOR_SENDING;
                default:
                    return EVENT;
            }
        }
        int i = (word - PageLayout.HEADER_WORDS) / PageLayout.LINE_WORDS;
        int offset = (word - PageLayout.HEADER_WORDS) % PageLayout.LINE_WORDS;
        switch (offset) {
            case PageLayout.STATE_OFFSET:
                return state(i);
            case PageLayout.COUNTS_OFFSET:
                return acct(i);
            case PageLayout.SENDING_OFFSET:
                return sending(i);
            default:
                return busy(i);
        }
    }

    static boolean dependent(long r1, long w1, long r2, long w2) {
        return (w1 & (r2 | w2)) != 0 || (w2 & r1) != 0;
    }

    /** A readable name of a page word, for traces. */
    static String wordName(int word, int workers) {
        if (word >= PageLayout.lineOf(workers)) {
            return "starting[" + (word - PageLayout.lineOf(workers)) * 64 + "..]";
        }
        if (word == PageLayout.ROTATION_WORD) {
            return "rotation";
        }
        if (word == PageLayout.REHOMED_WORD) {
            return "rehomed";
        }
        if (word == PageLayout.SUPERVISOR_SENDING_WORD) {
            return "sending[sup]";
        }
        if (word < PageLayout.HEADER_WORDS) {
            return "header[" + word + "]";
        }
        int i = (word - PageLayout.HEADER_WORDS) / PageLayout.LINE_WORDS;
        int offset = (word - PageLayout.HEADER_WORDS) % PageLayout.LINE_WORDS;
        String[] names = {"state", "reserved", "counts", "sending", "busy", "sent", "received", "forwarded"};
        return names[offset] + "[" + i + "]";
    }

    private static boolean counts(int word) {
        return word >= PageLayout.HEADER_WORDS
                && (word - PageLayout.HEADER_WORDS) % PageLayout.LINE_WORDS == PageLayout.COUNTS_OFFSET;
    }

    /** A word's value for traces: a counts word by field ("p1 t0"), a SENDING word as the worker it names. */
    static String valueName(int word, long v) {
        if (counts(word)) {
            return (Counts.active(v) == 0 ? "" : "a" + Counts.active(v) + " ") + "p" + Counts.pending(v) + " t"
                    + Counts.taken(v) + (Counts.healRequested(v) ? " heal" : "");
        }
        boolean sending = word == PageLayout.SUPERVISOR_SENDING_WORD || word >= PageLayout.HEADER_WORDS
                && (word - PageLayout.HEADER_WORDS) % PageLayout.LINE_WORDS == PageLayout.SENDING_OFFSET;
        if (sending) {
            return v == 0 ? "none" : "w" + (v - 1);
        }
        return Long.toString(v);
    }

    /** A delta added to a word, for traces: a counts delta by field ("pending+1", "pending-1 taken-1"). */
    static String deltaName(int word, long d) {
        if (!counts(word)) {
            return (d >= 0 ? "+" : "") + d;
        }
        long da = Counts.active(d);
        long dp = Counts.pending(d);
        long dt = Counts.taken(d);
        String a = da == 0 ? "" : "active" + (da > 0 ? "+" : "") + da + " ";
        String p = dp == 0 ? "" : "pending" + (dp > 0 ? "+" : "") + dp + " ";
        String t = dt == 0 ? "" : "taken" + (dt > 0 ? "+" : "") + dt;
        return a.isEmpty() && p.isEmpty() && t.isEmpty() ? "+0" : (a + p + t).strip();
    }
}
