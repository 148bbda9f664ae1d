package m0.server.settings;

import java.util.ArrayList;
import java.util.List;

/**
 * Every setting's value and where it came from, checked against its declaration. Typed reads
 * ({@link #number}, {@link #on}, {@link #text}) are of values already checked.
 */
public final class Values {

    private final Catalog catalog;
    private final String[] values;
    private final Source[] sources;

    Values(Catalog catalog) {
        this.catalog = catalog;
        this.values = new String[catalog.size()];
        this.sources = new Source[catalog.size()];
        for (int i = 0; i < values.length; i++) {
            values[i] = catalog.all().get(i).defaultValue();
            sources[i] = Source.DEFAULT;
        }
    }

    /** Every default, as {@code catalog} declares them. */
    public static Values defaults(Catalog catalog) {
        return new Values(catalog);
    }

    /** Sets {@code s} from {@code source} unless a source before it has; a bad value throws, naming both. */
    void offer(Setting s, String value, Source source) {
        int i = catalog.indexOf(s);
        String problem = s.problem(value);
        if (problem != null) {
            throw SettingsException.of(source, s, problem); // wrong even where a source before it wins
        }
        if (precedence(sources[i]) < precedence(source)) {
            return;
        }
        boolean unset = value.isEmpty() && (s.kind() == Setting.Kind.TEXT || s.kind() == Setting.Kind.HOST_PORT);
        values[i] = unset ? null : value;
        sources[i] = source;
    }

    private static int precedence(Source s) {
        return switch (s.kind()) {
            case COMMAND_LINE, LAUNCH -> 0;
            case ENVIRONMENT -> 1;
            case FILE -> 2;
            case DEFAULT -> 3;
        };
    }

    public Catalog catalog() {
        return catalog;
    }

    /** The value as text; null: unset. */
    public String text(Setting s) {
        return values[catalog.indexOf(s)];
    }

    public Source source(Setting s) {
        return sources[catalog.indexOf(s)];
    }

    /** Whether the value is the declaration's default (however it came). */
    public boolean isDefault(Setting s) {
        return java.util.Objects.equals(text(s), s.defaultValue());
    }

    /** A {@link Setting.Kind#NUMBER}'s value; one of its words reads as {@code otherwise}. */
    public long number(Setting s, long otherwise) {
        long n = Setting.decimal(text(s));
        return n < 0 ? otherwise : n;
    }

    public long number(Setting s) {
        return number(s, -1);
    }

    public int integer(Setting s) {
        return Math.toIntExact(number(s));
    }

    /** An on/off setting's value. */
    public boolean on(Setting s) {
        return "on".equals(text(s));
    }

    /** A problem found after the sources were read (a host not found, an app class missing): the one line. */
    public SettingsException problem(Setting s, String problem) {
        return SettingsException.of(source(s), s, problem);
    }

    /**
     * The workers' part as {@code name=value} arguments: every setting they read, the developer
     * ones only when not at their default (a worker's command line stays the operator's).
     */
    public List<String> toLaunchArgs() {
        List<String> args = new ArrayList<>();
        for (Setting s : catalog.all()) {
            if (s.toWorkers() && (!s.isDev() || !isDefault(s))) {
                String v = text(s);
                args.add(s.name() + "=" + (v == null ? "" : v));
            }
        }
        return args;
    }
}
