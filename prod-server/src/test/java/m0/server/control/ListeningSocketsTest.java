package m0.server.control;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.ByteOrder;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/** The kernel's listening-socket tables, read as {@code --bind} asks (docs/adr/0067). */
class ListeningSocketsTest {

    private static final String TCP = """
              sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
               0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 111 1 0 100 0 0 10 0
               1: 0100007F:1F90 0100007F:A72E 01 00000000:00000000 00:00000000 00000000  1000        0 222 1 0
               2: 00000000:1F91 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 333 1 0 100 0 0 10 0
               3: 0200007F:1F92 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 444 1 0 100 0 0 10 0
            """;

    private static final String TCP6 = """
              sl  local_address                         remote_address                        st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode
               0: 00000000000000000000000000000000:1F93 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 555 1 0
               1: 00000000000000000000000001000000:1F94 00000000000000000000000000000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 666 1 0
            """;

    private static InetAddress ip(String s) throws IOException {
        return InetAddress.getByName(s);
    }

    @Test
    void aListenerIsFoundByItsAddressOrTheWildcardAndAConnectionIsNot() throws IOException {
        Assumptions.assumeTrue(ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN, "the sample is x86's");
        assertEquals(Set.of(111L), ListeningSockets.matching(TCP, ip("127.0.0.1"), 8080),
                "the listener, not the established connection on the same port");
        assertEquals(Set.of(111L), ListeningSockets.matching(TCP, ip("0.0.0.0"), 8080), "by port alone");
        assertEquals(Set.of(), ListeningSockets.matching(TCP, ip("127.0.0.2"), 8080), "another host");
        assertEquals(Set.of(333L), ListeningSockets.matching(TCP, ip("127.0.0.1"), 8081), "bound to 0.0.0.0");
        assertEquals(Set.of(444L), ListeningSockets.matching(TCP, ip("127.0.0.2"), 8082));
        assertEquals(Set.of(), ListeningSockets.matching(TCP, ip("127.0.0.1"), 8082));
        assertEquals(Set.of(555L), ListeningSockets.matching(TCP6, ip("127.0.0.1"), 8083), "[::] takes v4 too");
        assertEquals(Set.of(666L), ListeningSockets.matching(TCP6, ip("::1"), 8084));
        assertEquals(Set.of(), ListeningSockets.matching(TCP6, ip("127.0.0.1"), 8084), "::1 is not 127.0.0.1");
    }

    /** On this kernel, in this byte order: a socket this JVM listens on is found, by an inode this JVM holds. */
    @Test
    void aSocketThisProcessListensOnIsFoundInTheKernelsTable() throws IOException {
        try (ServerSocket socket = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Set<Long> inodes = ListeningSockets.matching(InetAddress.getLoopbackAddress(), socket.getLocalPort());
            assertEquals(1, inodes.size(), inodes.toString());
            assertTrue(ownSocketInodes().contains(inodes.iterator().next()), "an inode of ours: " + inodes);
            // It listens, but holds no m0 page: found, and named as no m0serve.
            IOException e = assertThrows(IOException.class,
                    () -> ServerFinder.byAddress(InetAddress.getLoopbackAddress(), socket.getLocalPort()));
            assertTrue(e.getMessage().contains("is no m0serve"), e.getMessage());
        }
    }

    @Test
    void aPortNobodyListensOnIsSaidSo() throws IOException {
        int port;
        try (ServerSocket closed = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            port = closed.getLocalPort();
        }
        IOException e = assertThrows(IOException.class,
                () -> ServerFinder.byAddress(InetAddress.getLoopbackAddress(), port));
        assertEquals("nothing listens on 127.0.0.1:" + port, e.getMessage());
    }

    private static Set<Long> ownSocketInodes() throws IOException {
        Set<Long> inodes = new HashSet<>();
        try (DirectoryStream<Path> fds = Files.newDirectoryStream(Path.of("/proc/self/fd"))) {
            for (Path fd : fds) {
                try {
                    String link = Files.readSymbolicLink(fd).toString();
                    if (link.startsWith("socket:[")) {
                        inodes.add(Long.parseLong(link.substring(8, link.length() - 1)));
                    }
                } catch (IOException e) {
                    // the directory stream's own descriptor, gone
                }
            }
        }
        return inodes;
    }
}
