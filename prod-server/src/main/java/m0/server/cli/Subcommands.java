package m0.server.cli;

import java.io.IOException;
import java.io.PrintStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import m0.server.settings.Catalog;
import picocli.CommandLine;

/**
 * What picocli runs: {@code probe} and {@code stats}, with options of their own, and the help
 * and version text. Apart from {@link M0serve}, so that serving loads no picocli class
 * (docs/adr/0027, 0065): the launcher's check of {@code M0serve.main} resolves the types in
 * every public method of M0serve, so none of them may name a picocli class.
 */
public final class Subcommands {

    private Subcommands() {
    }

    static int run(String[] args, PrintStream out, PrintStream err) {
        CommandLine cl = commandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        return cl.execute(args);
    }

    static String version() {
        return new Version().getVersion()[0];
    }

    /**
     * picocli's command line of m0serve ({@link Usage}), with m0serve's error handling: a bad flag
     * prints one line and exits 2; a subcommand's I/O error prints one line and exits 1.
     */
    public static CommandLine commandLine() {
        CommandLine cl = new CommandLine(Usage.of(Catalog.STANDARD));
        cl.setParameterExceptionHandler((e, args) -> {
            e.getCommandLine().getErr().println("m0serve: " + e.getMessage() + " (see --help)");
            return M0serve.EXIT_USAGE;
        });
        // A subcommand that cannot reach what it was pointed at (probe's target refuses or
        // resets) says so in one line, as curl does; anything else is a bug and keeps its stack
        // trace.
        cl.setExecutionExceptionHandler((e, commandLine, parsed) -> {
            if (!(e instanceof IOException || e instanceof UncheckedIOException)) {
                throw e;
            }
            commandLine.getErr().println("m0serve " + commandLine.getCommandName() + ": " + e);
            return M0serve.EXIT_UNREACHABLE;
        });
        return cl;
    }

    /** --version: the jar's Implementation-Version when packaged, else the source tree's. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            return new String[] {"m0serve " + m0.server.supervisor.ServerVersion.text()};
        }
    }
}
