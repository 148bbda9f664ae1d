package m0.server.stats;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import m0.server.settings.ServerSettings;
import m0.server.settings.Setting;

/**
 * A setting of a running supervisor, found where the supervisor found it, in the same order
 * (docs/settings.md): its command line ({@code /proc/<pid>/cmdline}), then its environment
 * ({@code /proc/<pid>/environ}), then the {@code --config} file it named (relative to its working
 * directory). Empty when none of them sets it: the caller uses the default. Reading another
 * process's environment needs the same user, as reading its page does.
 *
 * <p>Not {@code SettingsReader.read}: that takes the server's own arguments, where cmdline holds
 * the JVM's and the launcher's before them; it reads a relative config file against our working
 * directory, not the server's; and it refuses the whole set for one setting it does not know,
 * where a stats of an older or newer server needs only one value.
 */
final class RunningSettings {

    private RunningSettings() {
    }

    static Optional<String> valueOf(long pid, Setting setting) throws IOException {
        Path proc = Path.of("/proc", Long.toString(pid));
        List<String> args = nulSeparated(proc.resolve("cmdline"));
        Optional<String> given = fromArgs(args, setting.name());
        if (given.isPresent()) {
            return given; // the environment, read once below, is not needed
        }
        return valueIn(args, nulSeparated(proc.resolve("environ")), proc.resolve("cwd"), setting);
    }

    /**
     * {@code setting} in a supervisor's command line {@code args}, then its environment
     * {@code env} ({@code NAME=value} entries), then the config file either names, relative to
     * {@code cwd}, its working directory.
     */
    static Optional<String> valueIn(List<String> args, List<String> env, Path cwd, Setting setting) throws IOException {
        Optional<String> given = fromArgs(args, setting.name());
        if (given.isPresent()) {
            return given;
        }
        Optional<String> set = fromEnvironment(env, setting.environmentName());
        if (set.isPresent()) {
            return set;
        }
        Optional<String> file = fromArgs(args, ServerSettings.CONFIG.name());
        if (file.isEmpty()) {
            file = fromEnvironment(env, ServerSettings.CONFIG.environmentName());
        }
        if (file.isEmpty()) {
            return Optional.empty();
        }
        Properties p = new Properties();
        try (Reader r = Files.newBufferedReader(cwd.resolve(file.get()), StandardCharsets.UTF_8)) {
            p.load(r);
        }
        return Optional.ofNullable(p.getProperty(setting.name())).map(String::strip);
    }

    /** {@code --name value} or {@code --name=value}, before any {@code --} that starts the app's own. */
    static Optional<String> fromArgs(List<String> args, String name) {
        String flag = "--" + name;
        for (int i = 0; i < args.size(); i++) {
            String a = args.get(i);
            if (a.equals("--")) {
                break;
            }
            if (a.equals(flag) && i + 1 < args.size()) {
                return Optional.of(args.get(i + 1));
            }
            if (a.startsWith(flag + "=")) {
                return Optional.of(a.substring(flag.length() + 1));
            }
        }
        return Optional.empty();
    }

    static Optional<String> fromEnvironment(List<String> entries, String variable) {
        for (String e : entries) {
            if (e.startsWith(variable + "=")) {
                return Optional.of(e.substring(variable.length() + 1).strip());
            }
        }
        return Optional.empty();
    }

    private static List<String> nulSeparated(Path file) throws IOException {
        return List.of(new String(Files.readAllBytes(file), StandardCharsets.UTF_8).split("\0"));
    }
}
