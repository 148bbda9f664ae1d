package m0.core;

import java.util.ArrayList;
import java.util.List;

/**
 * An {@link AtomicLongArrayPage} that records every access as "op word value", naming words
 * by their layout ("state[1]", "pending[0]"), so a test can check the order of accesses.
 */
final class RecordingPage implements Page {

    private final AtomicLongArrayPage page;
    private final List<String> log;

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
        String[] names = {"state", "active", "pending", "taken", "busy", "r5", "r6", "r7"};
        return names[(word - PageLayout.HEADER_WORDS) % PageLayout.LINE_WORDS] + "[" + i + "]";
    }

    @Override
    public int words() {
        return page.words();
    }

    @Override
    public long getVolatile(int word) {
        long v = page.getVolatile(word);
        log.add("get " + name(word) + " " + v);
        return v;
    }

    @Override
    public void setVolatile(int word, long value) {
        log.add("set " + name(word) + " " + value);
        page.setVolatile(word, value);
    }

    @Override
    public long getAndAdd(int word, long delta) {
        log.add("add " + name(word) + " " + delta);
        return page.getAndAdd(word, delta);
    }

    @Override
    public boolean compareAndSet(int word, long expected, long value) {
        log.add("cas " + name(word) + " " + expected + " " + value);
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
