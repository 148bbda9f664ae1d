package m0.server.supervisor;

/** m0serve's version: the jar's Implementation-Version when packaged, else the source tree's. */
public final class ServerVersion {

    private ServerVersion() {
    }

    public static String text() {
        String v = ServerVersion.class.getPackage().getImplementationVersion();
        return v != null ? v : "0.1.0-SNAPSHOT";
    }
}
