package m0.server.settings;

import java.net.InetAddress;
import java.net.UnknownHostException;

/** HOST:PORT ({@code [v6]:PORT} too), port 0..65535: the form checked here, the host resolved at start. */
public record HostPort(String host, int port) {

    /** What is wrong with the form of {@code v}; null when nothing is. */
    static String problem(String v) {
        int colon = v.lastIndexOf(':');
        if (colon <= 0) {
            return "wants HOST:PORT, got '" + v + "'";
        }
        long port = Setting.decimal(v.substring(colon + 1));
        if (port < 0 || port > 65535) {
            return "port must be 0..65535, got '" + v.substring(colon + 1) + "'";
        }
        return null;
    }

    /** {@code v}, whose form {@link #problem} passed. */
    public static HostPort of(String v) {
        int colon = v.lastIndexOf(':');
        String host = v.substring(0, colon);
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        return new HostPort(host, (int) Setting.decimal(v.substring(colon + 1)));
    }

    /** The host's address; the problem when it cannot be resolved. */
    public InetAddress address() throws UnknownHostException {
        return InetAddress.getByName(host);
    }
}
