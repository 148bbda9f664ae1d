package m0.server.settings;

import java.util.List;

/**
 * One setting, declared once: its name, what its values may be, its default, one line of doc,
 * whether a reload picks it up, and who reads it. The command line ({@code --name}), the config
 * file ({@code name = value}), the environment ({@code M0SERVE_NAME}), the workers' launch
 * contract ({@code name=value}), {@code --help} and docs/settings.md are all made from this.
 * {@link ServerSettings} holds the server's; a test may declare more ({@link Catalog#plus}).
 */
public final class Setting {

    /** What a value is. */
    public enum Kind {
        /** Plain decimal in [min, max], or one of the extra words (e.g. {@code auto}). */
        NUMBER,
        /** One of the listed words. */
        WORD,
        /** Any text; empty means unset. */
        TEXT,
        /** HOST:PORT ({@code [v6]:PORT} too), port 0..65535; empty means unset. */
        HOST_PORT,
        /** A JVM heap size: digits and k, m or g, at least 16m. */
        HEAP
    }

    /** Who reads it: the supervisor alone, or every worker too (then it is in the launch contract). */
    public enum Reach { SUPERVISOR, WORKERS }

    /** A number's maximum when it has none to speak of (18 digits: what a value may have). */
    public static final long UNBOUNDED = 999_999_999_999_999_999L;

    private final String name;
    private final Kind kind;
    private final long min;
    private final long max;
    private final List<String> words;
    private final String defaultValue;
    private final String label;
    private final String doc;
    private final boolean reload;
    private final boolean dev;
    private final boolean inFile;
    private final Reach reach;

    private Setting(String name, Kind kind, long min, long max, List<String> words, String defaultValue, String label,
                    String doc, boolean reload, boolean dev, boolean inFile, Reach reach) {
        this.name = name;
        this.kind = kind;
        this.min = min;
        this.max = max;
        this.words = List.copyOf(words);
        this.defaultValue = defaultValue;
        this.label = label;
        this.doc = doc;
        this.reload = reload;
        this.dev = dev;
        this.inFile = inFile;
        this.reach = reach;
    }

    /** A number in [min, max], or one of {@code words}. */
    public static Setting number(String name, long dflt, long min, long max, String label, String doc,
                                 String... words) {
        return number(name, Long.toString(dflt), min, max, label, doc, words);
    }

    /** The same with a word for its default (e.g. {@code auto}). */
    public static Setting number(String name, String dflt, long min, long max, String label, String doc,
                                 String... words) {
        return new Setting(name, Kind.NUMBER, min, max, List.of(words), dflt, label, doc, false, false, true,
                Reach.WORKERS);
    }

    /** One of {@code words}; {@code dflt} among them. */
    public static Setting word(String name, String dflt, String doc, String... words) {
        return new Setting(name, Kind.WORD, 0, 0, List.of(words), dflt, String.join("|", words), doc, false, false,
                true, Reach.WORKERS);
    }

    /** {@code on} or {@code off}. */
    public static Setting onOff(String name, boolean dflt, String doc) {
        return word(name, dflt ? "on" : "off", doc, "on", "off");
    }

    /** Free text; {@code dflt} null: unset unless given. */
    public static Setting text(String name, String dflt, String label, String doc) {
        return new Setting(name, Kind.TEXT, 0, 0, List.of(), dflt, label, doc, false, false, true, Reach.WORKERS);
    }

    /** HOST:PORT; {@code dflt} null: unset unless given. */
    public static Setting hostPort(String name, String dflt, String doc) {
        return new Setting(name, Kind.HOST_PORT, 0, 0, List.of(), dflt, "HOST:PORT", doc, false, false, true,
                Reach.WORKERS);
    }

    /** A JVM heap size. */
    public static Setting heap(String name, String dflt, String doc) {
        return new Setting(name, Kind.HEAP, 0, 0, List.of(), dflt, "SIZE", doc, false, false, true, Reach.WORKERS);
    }

    /** Read by the supervisor alone: not passed on to the workers. */
    public Setting supervisorOnly() {
        return new Setting(name, kind, min, max, words, defaultValue, label, doc, reload, dev, inFile, Reach.SUPERVISOR);
    }

    /** A reload (SIGHUP) picks a changed value up. */
    public Setting reloaded() {
        return new Setting(name, kind, min, max, words, defaultValue, label, doc, true, dev, inFile, reach);
    }

    /** Not in the config file (where the file is named, for one). */
    public Setting notInFile() {
        return new Setting(name, kind, min, max, words, defaultValue, label, doc, reload, dev, false, reach);
    }

    /**
     * A developer's: fault injection or a benchmark's A/B arm. Named {@code dev-*}, hidden from
     * {@code --help}, given on the command line only (never the environment or the file).
     */
    public Setting dev() {
        if (!name.startsWith("dev-")) {
            throw new IllegalArgumentException("a developer setting is named dev-*: " + name);
        }
        return new Setting(name, kind, min, max, words, defaultValue, label, doc, reload, true, false, reach);
    }

    public String name() {
        return name;
    }

    public Kind kind() {
        return kind;
    }

    /** The default as text; null: unset. */
    public String defaultValue() {
        return defaultValue;
    }

    public String label() {
        return label;
    }

    public String doc() {
        return doc;
    }

    public boolean reload() {
        return reload;
    }

    public boolean isDev() {
        return dev;
    }

    public boolean inFile() {
        return inFile;
    }

    public boolean inEnvironment() {
        return !dev;
    }

    public Reach reach() {
        return reach;
    }

    public boolean toWorkers() {
        return reach == Reach.WORKERS;
    }

    /** {@code --name}. */
    public String flag() {
        return "--" + name;
    }

    /** {@code M0SERVE_NAME}. */
    public String environmentName() {
        return "M0SERVE_" + name.toUpperCase(java.util.Locale.ROOT).replace('-', '_');
    }

    /** What values it takes, for the help and the reference page. */
    public String range() {
        return switch (kind) {
            case NUMBER -> (words.isEmpty() ? "" : String.join(", ", words) + " or ")
                    + (max >= UNBOUNDED ? min + " or more" : min + ".." + max);
            case WORD -> String.join(", ", words);
            case TEXT -> "text";
            case HOST_PORT -> "HOST:PORT, port 0..65535";
            case HEAP -> "a size: digits and k, m or g; 16m or more";
        };
    }

    /**
     * What is wrong with {@code v} as this setting's value, said after its name ("must be ...,
     * got '...'"); null when nothing is. Empty text is unset, never wrong.
     */
    public String problem(String v) {
        switch (kind) {
            case NUMBER -> {
                if (words.contains(v)) {
                    return null;
                }
                long n = decimal(v);
                return n >= min && n <= max ? null : "must be " + range() + ", got '" + v + "'";
            }
            case WORD -> {
                return words.contains(v) ? null : "must be " + range().replace(", ", " or ") + ", got '" + v + "'";
            }
            case HOST_PORT -> {
                return v.isEmpty() ? null : HostPort.problem(v);
            }
            case HEAP -> {
                return heapBytes(v) >= 16L << 20 ? null : "must be a heap size of 16m or more (e.g. 512m, 2g), got '" + v + "'";
            }
            default -> {
                return null;
            }
        }
    }

    /** Plain decimal digits (no sign, no leading zero) up to 18 of them; -1 otherwise. */
    static long decimal(String v) {
        if (v.isEmpty() || v.length() > 18 || (v.length() > 1 && v.charAt(0) == '0')) {
            return -1;
        }
        long n = 0;
        for (int i = 0; i < v.length(); i++) {
            char c = v.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            n = 10 * n + (c - '0');
        }
        return n;
    }

    /** A heap size in bytes; -1 when it is not one. */
    static long heapBytes(String v) {
        if (v.length() < 2) {
            return -1;
        }
        int shift = switch (Character.toLowerCase(v.charAt(v.length() - 1))) {
            case 'k' -> 10;
            case 'm' -> 20;
            case 'g' -> 30;
            default -> -1;
        };
        long n = decimal(v.substring(0, v.length() - 1));
        return shift < 0 || n < 0 || n > (1L << 40) ? -1 : n << shift;
    }

    @Override
    public String toString() {
        return name;
    }
}
