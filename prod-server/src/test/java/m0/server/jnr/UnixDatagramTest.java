package m0.server.jnr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** sd_notify's transport: abstract ({@code @name}) and path AF_UNIX datagram addresses. */
class UnixDatagramTest {

    @Test
    void anAbstractAddressReceivesWhatIsSentToIt() {
        String name = "@m0-unix-datagram-test-" + System.nanoTime();
        try (UnixDatagram in = UnixDatagram.bound(name); UnixDatagram out = UnixDatagram.to(name)) {
            assertNull(in.receive());
            out.send("READY=1\nSTATUS=x");
            assertEquals("READY=1\nSTATUS=x", in.receive());
        }
    }

    @Test
    void aPathAddressReceivesWhatIsSentToIt() throws Exception {
        Path dir = Files.createTempDirectory("m0-notify");
        Path sock = dir.resolve("notify");
        try (UnixDatagram in = UnixDatagram.bound(sock.toString()); UnixDatagram out = UnixDatagram.to(sock.toString())) {
            out.send("STOPPING=1");
            assertEquals("STOPPING=1", in.receive());
        } finally {
            Files.deleteIfExists(sock);
            Files.delete(dir);
        }
    }

    @Test
    void nobodyListeningIsAnErrnoNotACrash() {
        try (UnixDatagram out = UnixDatagram.to("@m0-nobody-" + System.nanoTime())) {
            NativeException e = assertThrows(NativeException.class, () -> out.send("READY=1"));
            assertEquals(Native.ECONNREFUSED, e.errno());
        }
    }

    @Test
    void anAddressTooLongForSunPathIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> UnixDatagram.to("/" + "x".repeat(200)));
    }
}
