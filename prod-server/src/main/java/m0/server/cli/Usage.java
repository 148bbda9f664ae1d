package m0.server.cli;

import m0.server.settings.Catalog;
import m0.server.settings.Setting;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

/**
 * picocli's model of {@code m0serve}, made from the settings' declarations rather than from
 * annotations: {@code --help} prints it, and the subcommands with options of their own
 * ({@code probe}, {@code stats}) are parsed and run by it. The server's settings themselves are
 * parsed by {@link m0.server.settings.SettingsReader} alone (docs/adr/0065): this model's options
 * are there to be shown.
 */
final class Usage {

    static final String DESCRIPTION = "A prefork HTTP/1.1 server: one supervisor, N worker JVMs sharing one listener.";

    private Usage() {
    }

    static CommandSpec of(Catalog catalog) {
        CommandSpec spec = CommandSpec.create().name("m0serve").mixinStandardHelpOptions(true)
                .versionProvider(new Subcommands.Version());
        spec.usageMessage().description(DESCRIPTION).sortOptions(false).abbreviateSynopsis(true)
                .footer("", "Every setting is also read from M0SERVE_<NAME> (e.g. M0SERVE_WORKERS) and from the "
                        + "--config file ('workers = 4'); the command line wins, then the environment, then the file. "
                        + "'m0serve config --show' prints each value and where it came from (docs/settings.md).");
        for (Setting s : catalog.all()) {
            spec.addOption(OptionSpec.builder(s.flag()).paramLabel(s.label()).type(String.class).hidden(s.isDev())
                    .description(escaped(s.doc()) + " (default: " + (s.defaultValue() == null ? "unset" : s.defaultValue())
                            + ")").build());
        }
        spec.addPositional(PositionalParamSpec.builder().paramLabel("ARGS").arity("0..*").type(String.class)
                .description("After --: the arguments for --main's main.").build());
        spec.addSubcommand("probe", CommandSpec.forAnnotatedObject(new m0.server.probe.ProbeCommand()));
        spec.addSubcommand("stats", CommandSpec.forAnnotatedObject(new m0.server.stats.StatsCommand()));
        spec.addSubcommand("stop", CommandSpec.forAnnotatedObject(new m0.server.control.StopCommand()));
        spec.addSubcommand("reload", CommandSpec.forAnnotatedObject(new m0.server.control.ReloadCommand()));
        CommandSpec config = CommandSpec.create().name("config").mixinStandardHelpOptions(true);
        config.usageMessage().description("Print every setting's value and where it came from (command line, "
                + "environment, file, default), as a config file would hold it.");
        config.addOption(OptionSpec.builder("--show").arity("0").description("Print them (required).").build());
        config.addPositional(PositionalParamSpec.builder().paramLabel("SETTINGS").arity("0..*").type(String.class)
                .description("The server's options, as they would be given to it.").build());
        spec.addSubcommand("config", config);
        return spec;
    }

    /** picocli formats descriptions: a '%' is literal. */
    private static String escaped(String doc) {
        return doc.replace("%", "%%");
    }

    /** The usage text ({@code m0serve --help}). */
    static String text(Catalog catalog) {
        return new CommandLine(of(catalog)).getUsageMessage();
    }
}
