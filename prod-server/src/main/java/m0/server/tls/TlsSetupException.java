package m0.server.tls;

/** The certificate or key cannot be used: one line that names the file and the problem. */
public final class TlsSetupException extends Exception {
    private static final long serialVersionUID = 1L;

    TlsSetupException(String message) {
        super(message, null, false, false);
    }
}
