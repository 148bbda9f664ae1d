package m0.server.cli;

import m0.server.settings.Catalog;

/** The usage text for tests outside the package. */
public final class UsageAccess {

    private UsageAccess() {
    }

    public static String text(Catalog catalog) {
        return Usage.text(catalog);
    }
}
