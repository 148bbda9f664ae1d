package m0.server.cli;

import java.io.PrintStream;
import java.util.Arrays;
import java.util.Map;
import m0.server.settings.Catalog;
import m0.server.settings.Setting;
import m0.server.settings.SettingsException;
import m0.server.settings.SettingsReader;
import m0.server.settings.Values;

/**
 * {@code m0serve config --show [SETTINGS...]}: every setting's value and where it came from, the
 * sources read and checked as the server would (a bad value is the same one line, exit 2; like
 * {@code nginx -t}, a missing access log is created), nothing started. Printed
 * as a config file holds them, so the output can be one: a developer's setting given, and
 * {@code config} itself, are comments (they are not taken from a file).
 */
final class ConfigShow {

    private ConfigShow() {
    }

    static int run(String[] args, Map<String, String> env, PrintStream out, PrintStream err) {
        boolean show = args.length > 0 && args[0].equals("--show");
        if (!show) {
            if (args.length > 0 && (args[0].equals("--help") || args[0].equals("-h"))) {
                out.print(new picocli.CommandLine(Usage.of(Catalog.STANDARD).subcommands().get("config").getCommandSpec())
                        .getUsageMessage());
                return 0;
            }
            err.println("m0serve config: what to do? --show prints every setting and its source (see config --help)");
            return M0serve.EXIT_USAGE;
        }
        Values v;
        try {
            SettingsReader.Parsed parsed = SettingsReader.read(Catalog.STANDARD, Arrays.copyOfRange(args, 1, args.length), env);
            for (String w : parsed.warnings()) {
                err.println("m0serve: " + w);
            }
            ServerStart.of(parsed, env); // checked as for a start: the app's class, hosts, the access log
            v = parsed.values();
        } catch (SettingsException e) {
            err.println("m0serve: " + e.getMessage());
            return M0serve.EXIT_USAGE;
        }
        out.print(text(v));
        return 0;
    }

    /** One line a setting: {@code name = value    # source}; unset values are empty. */
    static String text(Values v) {
        StringBuilder b = new StringBuilder("# m0serve settings: value, then where it came from\n");
        for (Setting s : v.catalog().all()) {
            if (s.isDev() && v.isDefault(s)) {
                continue;
            }
            String value = v.text(s) == null ? "" : v.text(s);
            String line = (s.inFile() ? "" : "# ") + s.name() + " = " + value;
            b.append(line).append(" ".repeat(Math.max(1, 48 - line.length()))).append("# ")
                    .append(v.source(s).describe(s)).append(s.isDev() ? ", a developer's" : "").append('\n');
        }
        return b.toString();
    }
}
