package m0.server.launch;

/** A worker's exit statuses that mean something to the supervisor. */
public final class ExitCodes {

    /**
     * The worker cannot serve with this configuration (sysexits' EX_CONFIG: the app will not
     * load, the access log will not open). The supervisor never respawns it: it would only fail
     * again (docs/adr/0010).
     */
    public static final int CONFIG = 78;

    private ExitCodes() {
    }
}
