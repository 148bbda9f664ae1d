package m0.server.settings;

import java.util.Map;

/**
 * The one read of the process's environment on the server's path (the supervisor's, at start):
 * {@link SettingsReader} takes the {@code M0SERVE_*} settings from it, systemd's socket
 * activation and notify read their own variables (LISTEN_FDS, NOTIFY_SOCKET) from it, and the
 * workers inherit it. Nothing else calls {@code System.getenv}: a test hook or an A/B arm is a
 * {@code dev-*} setting on the command line, never a variable (docs/adr/0065).
 */
public final class Environment {

    private Environment() {
    }

    public static Map<String, String> ofThisProcess() {
        return System.getenv();
    }
}
