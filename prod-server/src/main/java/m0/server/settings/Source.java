package m0.server.settings;

/**
 * Where a value came from, in precedence order: the command line, then the environment, then
 * the config file, then the declaration's default. {@link #LAUNCH} is a worker's: its launch
 * contract, which the supervisor wrote from its own resolved values.
 *
 * @param kind  which source
 * @param where the config file's path; null for the others
 */
public record Source(Kind kind, String where) {

    public enum Kind { COMMAND_LINE, ENVIRONMENT, FILE, DEFAULT, LAUNCH }

    public static final Source COMMAND_LINE = new Source(Kind.COMMAND_LINE, null);
    public static final Source ENVIRONMENT = new Source(Kind.ENVIRONMENT, null);
    public static final Source DEFAULT = new Source(Kind.DEFAULT, null);
    public static final Source LAUNCH = new Source(Kind.LAUNCH, null);

    public static Source file(String path) {
        return new Source(Kind.FILE, path);
    }

    /** The setting as this source spells it: {@code --workers}, {@code environment: M0SERVE_WORKERS}, ... */
    public String spell(Setting s) {
        return switch (kind) {
            case COMMAND_LINE -> s.flag();
            case ENVIRONMENT -> "environment: " + s.environmentName();
            case FILE -> "config file " + where + ": " + s.name();
            case DEFAULT -> s.flag() + " (default)";
            case LAUNCH -> "launch: " + s.name();
        };
    }

    /** For {@code config --show}: "command line", "environment M0SERVE_X", "file F", "default". */
    public String describe(Setting s) {
        return switch (kind) {
            case COMMAND_LINE -> "command line";
            case ENVIRONMENT -> "environment " + s.environmentName();
            case FILE -> "file " + where;
            case DEFAULT -> "default";
            case LAUNCH -> "launch";
        };
    }
}
