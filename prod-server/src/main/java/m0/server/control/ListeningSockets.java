package m0.server.control;

import java.io.IOException;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * The TCP listening sockets the kernel shows in {@code /proc/net/tcp} and {@code tcp6} (this
 * process's network namespace), by the address they listen on; a socket is named by its inode,
 * which {@code /proc/<pid>/fd} links show as {@code socket:[inode]}.
 *
 * <p>An address matches a listener when the ports are equal and the hosts are, or either is the
 * wildcard: {@code --bind 127.0.0.1:8080} finds a server bound to {@code 0.0.0.0:8080}, and
 * {@code 0.0.0.0:8080} finds whichever server listens on port 8080.
 */
final class ListeningSockets {

    /** {@code st} of a listening socket (TCP_LISTEN). */
    private static final String LISTEN = "0A";

    private ListeningSockets() {
    }

    /** The inodes of the sockets listening where {@code host:port} would reach, v4 and v6. */
    static Set<Long> matching(InetAddress host, int port) throws IOException {
        Set<Long> inodes = new LinkedHashSet<>();
        for (String table : new String[] {"/proc/net/tcp", "/proc/net/tcp6"}) {
            try {
                inodes.addAll(matching(Files.readString(Path.of(table)), host, port));
            } catch (NoSuchFileException e) {
                // no IPv6 in this kernel: tcp6 is absent
            }
        }
        return inodes;
    }

    /** The same over one table's text ({@code /proc/net/tcp} or {@code tcp6}, header included). */
    static Set<Long> matching(String table, InetAddress host, int port) {
        Set<Long> inodes = new LinkedHashSet<>();
        for (String line : table.split("\n")) {
            String[] f = line.trim().split("\\s+");
            // sl local rem st tx:rx tr:when retrnsmt uid timeout inode ...
            if (f.length < 10 || !f[0].endsWith(":") || !LISTEN.equals(f[3])) {
                continue; // the header, or a socket that does not listen
            }
            int colon = f[1].indexOf(':');
            if (colon < 0) {
                continue;
            }
            int listeningPort = Integer.parseInt(f[1].substring(colon + 1), 16);
            InetAddress listeningHost = address(f[1].substring(0, colon));
            if (listeningPort == port && listeningHost != null && reaches(host, listeningHost)) {
                inodes.add(Long.parseLong(f[9]));
            }
        }
        return inodes;
    }

    /** Whether a connection to {@code asked} could land on a socket bound to {@code bound}. */
    static boolean reaches(InetAddress asked, InetAddress bound) {
        if (asked.isAnyLocalAddress() || bound.isAnyLocalAddress()) {
            return true;
        }
        return Arrays.equals(v4OrSelf(asked), v4OrSelf(bound));
    }

    /** An IPv4-mapped IPv6 address as its IPv4 bytes ({@code ::ffff:127.0.0.1} is 127.0.0.1). */
    private static byte[] v4OrSelf(InetAddress a) {
        byte[] b = a.getAddress();
        if (b.length == 16) {
            boolean mapped = b[10] == (byte) 0xff && b[11] == (byte) 0xff;
            for (int i = 0; i < 10 && mapped; i++) {
                mapped = b[i] == 0;
            }
            if (mapped) {
                return Arrays.copyOfRange(b, 12, 16);
            }
        }
        return b;
    }

    /**
     * The kernel prints an address as 32-bit words in the machine's byte order, each as 8 hex
     * digits: one word for IPv4, four for IPv6.
     */
    static InetAddress address(String hex) {
        if (hex.length() != 8 && hex.length() != 32) {
            return null;
        }
        byte[] bytes = new byte[hex.length() / 2];
        boolean little = ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN;
        for (int w = 0; w < bytes.length / 4; w++) {
            int word = Integer.parseUnsignedInt(hex.substring(8 * w, 8 * w + 8), 16);
            for (int k = 0; k < 4; k++) {
                int shift = little ? 8 * k : 8 * (3 - k);
                bytes[4 * w + k] = (byte) (word >>> shift);
            }
        }
        try {
            return InetAddress.getByAddress(bytes);
        } catch (UnknownHostException e) {
            return null; // not reached: the length is 4 or 16
        }
    }
}
