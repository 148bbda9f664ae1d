package m0.server.settings;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;

/**
 * The one reader of settings: the command line, the environment's {@code M0SERVE_*} variables,
 * the config file ({@code --config FILE} or {@code M0SERVE_CONFIG}, a {@link Properties} file),
 * and a worker's launch contract. Precedence: command line, environment, file, default
 * (docs/adr/0065). Anything wrong is one {@link SettingsException} naming the source and the
 * setting.
 */
public final class SettingsReader {

    /**
     * What the command line held beside the settings.
     *
     * @param warnings lines to print before going on: {@code M0SERVE_*} variables that name no
     *                 setting (a benchmark's own, such as M0SERVE_JAR, or a typo), ignored
     */
    public record Parsed(Values values, List<String> mainArgs, boolean help, boolean version, List<String> warnings) {
    }

    private SettingsReader() {
    }

    /**
     * {@code args} (the server's, after any subcommand word), then {@code env}, then the config
     * file either names.
     *
     * @param env the process's environment (only {@code M0SERVE_*} is read)
     */
    public static Parsed read(Catalog catalog, String[] args, Map<String, String> env) {
        Values v = new Values(catalog);
        List<String> mainArgs = new ArrayList<>();
        boolean help = false;
        boolean version = false;
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < args.length; i++) {
            String arg = args[i];
            if (arg.equals("--")) {
                mainArgs.addAll(List.of(args).subList(i + 1, args.length)); // --main's, whatever they look like
                break;
            }
            if (arg.equals("--help") || arg.equals("-h")) {
                help = true;
                continue;
            }
            if (arg.equals("--version") || arg.equals("-V")) {
                version = true;
                continue;
            }
            if (!arg.startsWith("--")) {
                throw new SettingsException("unexpected argument '" + arg + "' (see --help)");
            }
            int eq = arg.indexOf('=');
            String name = eq < 0 ? arg.substring(2) : arg.substring(2, eq);
            Setting s = catalog.named(name);
            if (s == null) {
                throw new SettingsException("unknown option: '--" + name + "' (see --help)");
            }
            String value;
            if (eq >= 0) {
                value = arg.substring(eq + 1);
            } else if (i + 1 < args.length && !args[i + 1].startsWith("--")) {
                value = args[++i];
            } else {
                throw new SettingsException(s.flag() + " needs a value (" + s.label() + ") (see --help)");
            }
            if (!seen.add(name)) {
                throw new SettingsException(s.flag() + " given twice (see --help)");
            }
            v.offer(s, value, Source.COMMAND_LINE);
        }
        List<String> warnings = readEnvironment(catalog, env, v);
        String file = v.text(ServerSettings.CONFIG);
        if (file != null && catalog.named(ServerSettings.CONFIG.name()) == ServerSettings.CONFIG) {
            readFile(catalog, Path.of(file), v.source(ServerSettings.CONFIG), v);
        }
        return new Parsed(v, List.copyOf(mainArgs), help, version, warnings);
    }

    /**
     * The {@code M0SERVE_*} variables. One that names no setting is said and ignored (scripts
     * export their own, e.g. the benchmarks' M0SERVE_JAR); a developer's setting is refused.
     */
    private static List<String> readEnvironment(Catalog catalog, Map<String, String> env, Values v) {
        List<String> warnings = new ArrayList<>();
        for (Map.Entry<String, String> e : env.entrySet()) {
            String key = e.getKey();
            if (!key.startsWith("M0SERVE_")) {
                continue;
            }
            Setting s = byEnvironmentName(catalog, key);
            if (s == null) {
                warnings.add("environment: " + key + " is not a setting, ignored (docs/settings.md)");
            } else if (!s.inEnvironment()) {
                throw new SettingsException("environment: " + key + " is a developer's setting: command line only ("
                        + s.flag() + ")");
            } else {
                v.offer(s, e.getValue().strip(), Source.ENVIRONMENT);
            }
        }
        return warnings;
    }

    private static Setting byEnvironmentName(Catalog catalog, String key) {
        for (Setting s : catalog.all()) {
            if (s.environmentName().equals(key)) {
                return s;
            }
        }
        return null;
    }

    /** {@code name = value} lines ({@link Properties}' format: '#' comments, '\' continues a line). */
    private static void readFile(Catalog catalog, Path path, Source namedBy, Values v) {
        Source source = Source.file(path.toString());
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(path, StandardCharsets.UTF_8)) {
            p.load(r);
        } catch (IOException | IllegalArgumentException e) {
            throw SettingsException.of(namedBy, ServerSettings.CONFIG, "cannot be read: " + e);
        }
        for (String name : p.stringPropertyNames()) {
            Setting s = catalog.named(name);
            if (s == null) {
                throw new SettingsException("config file " + path + ": " + name + " is not a setting (docs/settings.md)");
            }
            if (!s.inFile()) {
                throw new SettingsException("config file " + path + ": " + name
                        + (s.isDev() ? " is a developer's: command line only" : " cannot be set in the file"));
            }
            v.offer(s, p.getProperty(name).strip(), source);
        }
    }

    /**
     * A worker's launch arguments: {@code name=value} for the settings, the rest ({@code key=value}
     * of the launch itself) left to the caller; a setting the workers do not read is refused.
     */
    public static Values readLaunch(Catalog catalog, Map<String, String> launch) {
        Values v = new Values(catalog);
        for (Setting s : catalog.all()) {
            String value = launch.get(s.name());
            if (value != null) {
                if (!s.toWorkers()) {
                    throw new SettingsException("launch: " + s.name() + " is not a worker's setting");
                }
                v.offer(s, value, Source.LAUNCH);
            }
        }
        return v;
    }
}
