package m0.server.cli;

import java.io.PrintStream;
import java.util.Arrays;
import java.util.Map;
import m0.server.jnr.NativePaths;
import m0.server.log.StartTrace;
import m0.server.settings.Catalog;
import m0.server.settings.Environment;
import m0.server.settings.ServerSettings;
import m0.server.settings.SettingsException;
import m0.server.settings.SettingsReader;
import m0.server.supervisor.Supervisor;

/**
 * {@code m0serve}: the command line. Starts the supervisor, which starts the workers; or runs a
 * subcommand ({@code probe}, {@code stats}, {@code stop}, {@code reload}, {@code config --show}).
 *
 * <p>The server's settings are read by {@link SettingsReader} alone, from their declarations
 * ({@link ServerSettings}), without building picocli's model: that costs the supervisor ~0.2 s
 * of CPU before it can spawn a worker (docs/adr/0027). picocli prints {@code --help} from a
 * model made from the same declarations ({@link Usage}) and runs the subcommands with options
 * of their own.
 */
public final class M0serve {

    /** Exit status for a usage error (a bad flag or value, in any source). */
    public static final int EXIT_USAGE = 2;
    /** A subcommand's target could not be reached or read (an I/O error): one line, exit 1. */
    static final int EXIT_UNREACHABLE = 1;

    static final String BUILTIN = "builtin";

    private M0serve() {
    }

    public static void main(String[] args) {
        m0.server.log.WholeLines.install(); // the supervisor's and every worker's lines share one stream
        StartTrace.as("supervisor");
        System.exit(run(args, Environment.ofThisProcess(), System.out, System.err));
    }

    /** Runs {@code m0serve args}; the exit status. {@code env}: where {@code M0SERVE_*} are read. */
    static int run(String[] args, Map<String, String> env, PrintStream out, PrintStream err) {
        String first = args.length > 0 ? args[0] : "";
        if (first.equals("probe") || first.equals("stats") || first.equals("stop") || first.equals("reload")) {
            return Subcommands.run(args, out, err);
        }
        if (first.equals("config")) {
            return ConfigShow.run(Arrays.copyOfRange(args, 1, args.length), env, out, err);
        }
        ServerStart start;
        try {
            SettingsReader.Parsed parsed = SettingsReader.read(Catalog.STANDARD, args, env);
            for (String w : parsed.warnings()) {
                err.println("m0serve: " + w);
            }
            if (parsed.help()) {
                out.print(Usage.text(Catalog.STANDARD));
                return 0;
            }
            if (parsed.version()) {
                out.println(Subcommands.version());
                return 0;
            }
            start = ServerStart.of(parsed, env);
        } catch (SettingsException e) {
            err.println("m0serve: " + e.getMessage());
            return EXIT_USAGE;
        }
        return serve(start);
    }

    private static int serve(ServerStart start) {
        if (start.config().values().on(ServerSettings.DEV_START_TRACE)) {
            StartTrace.turnOn(); // from here: the supervisor's trace starts once its settings are read
        }
        StartTrace.mark("command line parsed");
        // Before anything waits, spawns or watches: the paths of the calls newer than the floor.
        // Said on the start line (Supervisor), once the configuration is known good.
        String forced = start.config().values().text(ServerSettings.DEV_NATIVE_FALLBACKS);
        NativePaths.choose(NativePaths.parse(forced == null ? "" : forced));
        String pidFile = start.config().values().text(ServerSettings.PID_FILE);
        return new Supervisor(start.config(), start.ops(), start.knobs(), System.out)
                .pidFile(pidFile == null ? null : java.nio.file.Path.of(pidFile)).run();
    }
}
