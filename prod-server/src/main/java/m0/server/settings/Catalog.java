package m0.server.settings;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Every setting there is, in the order {@code --help} and docs/settings.md list them.
 * {@link #STANDARD} is the server's ({@link ServerSettings}); {@link #plus} adds one, as a test
 * does to see a new declaration reach every source and the workers.
 */
public final class Catalog {

    public static final Catalog STANDARD = new Catalog(ServerSettings.ALL);

    private final List<Setting> settings;
    private final Map<String, Integer> byName = new HashMap<>();

    private Catalog(List<Setting> settings) {
        this.settings = List.copyOf(settings);
        for (int i = 0; i < this.settings.size(); i++) {
            if (byName.put(this.settings.get(i).name(), i) != null) {
                throw new IllegalArgumentException("declared twice: " + this.settings.get(i).name());
            }
        }
    }

    /** This catalog and {@code more}, after. */
    public Catalog plus(Setting... more) {
        List<Setting> all = new ArrayList<>(settings);
        all.addAll(List.of(more));
        return new Catalog(all);
    }

    public List<Setting> all() {
        return settings;
    }

    /** The setting named {@code name} (no dashes before it); null when there is none. */
    public Setting named(String name) {
        Integer i = byName.get(name);
        return i == null ? null : settings.get(i);
    }

    int indexOf(Setting s) {
        Integer i = byName.get(s.name());
        if (i == null || settings.get(i) != s) {
            throw new IllegalArgumentException("not in this catalog: " + s.name());
        }
        return i;
    }

    int size() {
        return settings.size();
    }
}
