package m0.server.control;

import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.file.Path;
import picocli.CommandLine.Option;

/**
 * Which running server a subcommand ({@code stats}, {@code stop}, {@code reload}) acts on: one
 * of {@code --bind HOST:PORT} (the address it listens on), {@code --pid-file FILE} (what its
 * {@code --pid-file} wrote) or {@code --pid PID}. Used as an exclusive picocli group.
 */
public final class ServerTarget {

    @Option(names = "--bind", paramLabel = "HOST:PORT", required = true,
            description = "the address the server listens on (its --bind; 0.0.0.0:PORT finds it by port)")
    String bind;

    @Option(names = "--pid-file", paramLabel = "FILE", required = true,
            description = "the file the server's --pid-file wrote")
    Path pidFile;

    @Option(names = "--pid", paramLabel = "PID", required = true, description = "the supervisor's pid (stats reads a worker's too, with --workers)")
    long pid;

    /** The pid to act on; with {@code --pid}, as given (stats reads a worker's too). */
    public long resolve() throws IOException {
        if (bind != null) {
            int colon = bind.lastIndexOf(':');
            int port = colon > 0 ? port(bind.substring(colon + 1)) : -1;
            if (port < 1) {
                throw new IOException("--bind wants HOST:PORT with a port 1..65535, got '" + bind + "'");
            }
            String host = bind.substring(0, colon);
            if (host.startsWith("[") && host.endsWith("]")) {
                host = host.substring(1, host.length() - 1);
            }
            try {
                return ServerFinder.byAddress(InetAddress.getByName(host), port);
            } catch (UnknownHostException e) {
                throw new IOException("--bind host not found: '" + host + "'");
            }
        }
        if (pidFile != null) {
            return ServerFinder.byPidFile(pidFile);
        }
        return pid;
    }

    /** How the target was named, for messages. */
    public String describe() {
        return bind != null ? "--bind " + bind : pidFile != null ? "--pid-file " + pidFile : "--pid " + pid;
    }

    private static int port(String s) {
        int p = s.matches("[0-9]{1,5}") ? Integer.parseInt(s) : -1;
        return p <= 65535 ? p : -1;
    }
}
