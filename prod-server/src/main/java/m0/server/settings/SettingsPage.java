package m0.server.settings;

/**
 * docs/settings.md, made from the declarations ({@code SettingsPageTest} regenerates it and
 * compares, so the page cannot drift from the code).
 */
public final class SettingsPage {

    private SettingsPage() {
    }

    public static String markdown(Catalog catalog) {
        StringBuilder b = new StringBuilder();
        b.append("# m0serve settings\n\n")
                .append("<!-- Generated from m0.server.settings.ServerSettings by SettingsPage; SettingsPageTest fails\n")
                .append("     when they differ. Regenerate: mvn -B -o -pl prod-server -am test -Dtest=SettingsPageTest\n")
                .append("     -Dsurefire.failIfNoSpecifiedTests=false -Dm0.settings.write=true -->\n\n")
                .append("Each setting is read, first found wins, from:\n\n")
                .append("1. the command line: `--name value` or `--name=value`;\n")
                .append("2. the environment: `M0SERVE_NAME` (upper case, `-` as `_`), e.g. `M0SERVE_WORKERS=4`;\n")
                .append("3. the config file named by `--config FILE` (or `M0SERVE_CONFIG`): `name = value` lines in\n")
                .append("   `java.util.Properties` form (`#` comments; `\\` continues a line), e.g. `workers = 4`;\n")
                .append("4. the default below.\n\n")
                .append("A bad value in any source, or an unknown name in the file, is one line naming the source\n")
                .append("and the setting, and exit status 2; nothing starts. An `M0SERVE_*` variable that names no\n")
                .append("setting is said in one line and ignored (scripts export their own, e.g. `M0SERVE_JAR`).\n")
                .append("`m0serve config --show [options]` prints every value and where it came from, in the\n")
                .append("file's form. An empty value in the file or the environment leaves a text setting unset.\n")
                .append("The workers are told their settings by the supervisor (their launch contract); a reload\n")
                .append("(SIGHUP) starts new workers with the values the server started with: \"Reload\" says\n")
                .append("whether it picks up a change, and \"no\" means a restart does.\n\n")
                .append("| Setting | Environment | Default | Values | Reload | What it does |\n")
                .append("|---|---|---|---|---|---|\n");
        for (Setting s : catalog.all()) {
            if (!s.isDev()) {
                b.append("| `").append(s.flag()).append(' ').append(cell(s.label())).append("` | `")
                        .append(s.environmentName()).append("` | ").append(dflt(s)).append(" | ")
                        .append(cell(s.range())).append(" | ").append(s.reload() ? "yes" : "no").append(" | ")
                        .append(cell(s.doc())).append(s.inFile() ? "" : " Not in the file.").append(" |\n");
            }
        }
        b.append("\n## Developer settings\n\n")
                .append("Fault injection for the tests' negative controls and the benchmarks' A/B arms\n")
                .append("(prod-server/bench/README.md): hidden from `--help`, taken from the command line only (never\n")
                .append("from the environment or the file), and passed on to the workers when not at their default.\n\n")
                .append("| Setting | Default | Values | What it does |\n")
                .append("|---|---|---|---|\n");
        for (Setting s : catalog.all()) {
            if (s.isDev()) {
                b.append("| `").append(s.flag()).append(' ').append(cell(s.label())).append("` | ").append(dflt(s))
                        .append(" | ").append(cell(s.range())).append(" | ").append(cell(s.doc())).append(" |\n");
            }
        }
        return b.toString();
    }

    /**
     * The packaged config file ({@code /etc/m0serve/m0serve.conf}, docs/deploy/m0serve.conf):
     * {@code set} as {@code name = value} lines, every other setting a file may hold commented
     * out at its default, each under its one line of doc.
     */
    public static String configFile(Catalog catalog, java.util.Map<String, String> set) {
        StringBuilder b = new StringBuilder();
        b.append("# /etc/m0serve/m0serve.conf: m0serve's settings, read by the packaged service\n")
                .append("# (ExecStart=/usr/bin/m0serve --config /etc/m0serve/m0serve.conf). Every setting is in\n")
                .append("# docs/settings.md; a flag on the command line or an M0SERVE_* variable wins over this file.\n")
                .append("# Check it with: m0serve config --show --config /etc/m0serve/m0serve.conf\n")
                .append("# Apply it with: systemctl restart m0serve (or reload, for the settings docs/settings.md\n")
                .append("# marks \"Reload: yes\").\n")
                .append("# Generated from m0.server.settings.ServerSettings (SettingsPageTest keeps it in step).\n");
        for (Setting s : catalog.all()) {
            if (s.isDev() || !s.inFile()) {
                continue;
            }
            b.append('\n');
            for (String line : wrap(s.doc(), 94)) {
                b.append("# ").append(line).append('\n');
            }
            String value = set.get(s.name());
            if (value != null) {
                b.append(s.name()).append(" = ").append(value).append('\n');
            } else {
                b.append("# ").append(s.name()).append(" =")
                        .append(s.defaultValue() == null ? "" : " " + s.defaultValue()).append('\n');
            }
        }
        return b.toString();
    }

    private static java.util.List<String> wrap(String text, int width) {
        java.util.List<String> lines = new java.util.ArrayList<>();
        StringBuilder line = new StringBuilder();
        for (String word : text.split(" ")) {
            if (line.length() > 0 && line.length() + 1 + word.length() > width) {
                lines.add(line.toString());
                line.setLength(0);
            }
            if (line.length() > 0) {
                line.append(' ');
            }
            line.append(word);
        }
        lines.add(line.toString());
        return lines;
    }

    private static String dflt(Setting s) {
        return s.defaultValue() == null ? "unset" : "`" + s.defaultValue() + "`";
    }

    private static String cell(String text) {
        return text.replace("|", "\\|");
    }
}
