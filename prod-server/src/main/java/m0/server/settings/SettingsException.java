package m0.server.settings;

/** A bad setting in some source: the one line to print (after "m0serve: "), exit 2. */
public final class SettingsException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public SettingsException(String line) {
        super(line, null, false, false);
    }

    /** {@code s} as {@code source} spells it, then what is wrong; the command line adds where help is. */
    public static SettingsException of(Source source, Setting s, String problem) {
        return new SettingsException(source.spell(s) + " " + problem
                + (source.kind() == Source.Kind.COMMAND_LINE ? " (see --help)" : ""));
    }
}
