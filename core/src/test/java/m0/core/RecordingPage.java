package m0.core;

import java.util.ArrayList;
import java.util.List;

/**
 * An {@link AtomicLongArrayPage} that records every access as "op word value", naming words
 * by their layout ("state[1]", "counts[0]"), so a test can check the order of accesses. A
 * counts word's values and deltas are shown by field: "add counts[1] p-2 t-2" (a retire),
 * "get counts[1] p3 t1".
 */
final class RecordingPage implements Page {

    private final AtomicLongArrayPage page;
    private final List<String> log;
    /** Once, just before the next access named "op word" ("get counts[1]"): another actor's step. */
    private String hookAt;
    private Runnable hook;
    private int hookSkip;

    RecordingPage(int workers, List<String> log) {
        this.page = AtomicLongArrayPage.forWorkers(workers);
        this.log = log;
    }

    RecordingPage(int workers) {
        this(workers, new ArrayList<>());
    }

    static String name(int word) {
        if (word == PageLayout.ROTATION_WORD) {
            return "rotation";
        }
        if (word < PageLayout.HEADER_WORDS) {
            return "header[" + word + "]";
        }
        int i = (word - PageLayout.HEADER_WORDS) / PageLayout.LINE_WORDS;
        String[] names = {"state", "active", "counts", "sending", "busy", "r5", "r6", "r7"};
        return names[(word - PageLayout.HEADER_WORDS) % PageLayout.LINE_WORDS] + "[" + i + "]";
    }

    private static boolean counts(int word) {
        return word >= PageLayout.HEADER_WORDS
                && (word - PageLayout.HEADER_WORDS) % PageLayout.LINE_WORDS == PageLayout.COUNTS_OFFSET;
    }

    /** A counts word's value: "p3 t1". */
    static String value(int word, long v) {
        return counts(word) ? (Counts.active(v) == 0 ? "" : "a" + Counts.active(v) + " ") + "p" + Counts.pending(v)
                + " t" + Counts.taken(v) + (Counts.healRequested(v) ? " heal" : "") : Long.toString(v);
    }

    /** A delta added to a word: for counts, its changed fields, "p+1", "a+2 p-2 t-2". */
    static String delta(int word, long d) {
        if (!counts(word)) {
            return Long.toString(d);
        }
        long da = Counts.active(d);
        long dp = Counts.pending(d);
        long dt = Counts.taken(d);
        String a = da == 0 ? "" : "a" + (da > 0 ? "+" : "") + da + " ";
        String p = dp == 0 ? "" : "p" + (dp > 0 ? "+" : "") + dp + " ";
        String t = dt == 0 ? "" : "t" + (dt > 0 ? "+" : "") + dt;
        return a.isEmpty() && p.isEmpty() && t.isEmpty() ? "0" : (a + p + t).strip();
    }

    @Override
    public int words() {
        return page.words();
    }

    /**
     * Runs {@code step} once, just before the {@code nth} (1-based) access named {@code at}
     * ("get counts[1]", "add counts[1]", "set sending[0]"): what another actor does at that
     * point of an interleaving. Its own accesses are not recorded.
     */
    void before(String at, int nth, Runnable step) {
        hookAt = at;
        hookSkip = nth - 1;
        hook = step;
    }

    private void hook(String op, int word) {
        if (hook != null && (op + " " + name(word)).equals(hookAt) && hookSkip-- == 0) {
            Runnable step = hook;
            hook = null;
            List<String> saved = new ArrayList<>(log);
            step.run();
            log.clear();
            log.addAll(saved);
        }
    }

    @Override
    public long getVolatile(int word) {
        hook("get", word);
        long v = page.getVolatile(word);
        log.add("get " + name(word) + " " + value(word, v));
        return v;
    }

    @Override
    public void setVolatile(int word, long value) {
        hook("set", word);
        log.add("set " + name(word) + " " + value(word, value));
        page.setVolatile(word, value);
    }

    @Override
    public long getAndAdd(int word, long delta) {
        hook("add", word);
        log.add("add " + name(word) + " " + delta(word, delta));
        return page.getAndAdd(word, delta);
    }

    @Override
    public boolean compareAndSet(int word, long expected, long value) {
        hook("cas", word);
        log.add("cas " + name(word) + " " + value(word, expected) + " " + value(word, value));
        return page.compareAndSet(word, expected, value);
    }

    /** Sets a word without recording it: the test's own arrangement. */
    void put(int word, long value) {
        page.setVolatile(word, value);
    }

    long peek(int word) {
        return page.getVolatile(word);
    }

    List<String> log() {
        return log;
    }

    /** The recorded accesses that touch one of the {@code words} named, in order. */
    List<String> writesTo(String... names) {
        List<String> out = new ArrayList<>();
        for (String entry : log) {
            if (entry.startsWith("get ")) {
                continue;
            }
            for (String n : names) {
                if (entry.split(" ")[1].equals(n)) {
                    out.add(entry);
                }
            }
        }
        return out;
    }
}
