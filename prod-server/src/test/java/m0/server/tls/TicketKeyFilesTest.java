package m0.server.tls;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code --tls-ticket-key}'s files (ADR 0073's addendum): 48 bytes each, nginx's order, one line per problem. */
class TicketKeyFilesTest {

    @TempDir
    Path dir;

    /** 48 bytes whose value is their index plus {@code base}: each part is recognisable. */
    private Path file(String name, int base, int length) throws Exception {
        byte[] b = new byte[length];
        for (int i = 0; i < length; i++) {
            b[i] = (byte) (base + i);
        }
        Path p = dir.resolve(name);
        Files.write(p, b);
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rw-------"));
        return p;
    }

    private static byte[] range(int base, int from, int to) {
        byte[] b = new byte[to - from];
        for (int i = from; i < to; i++) {
            b[i - from] = (byte) (base + i);
        }
        return b;
    }

    @Test
    void aFileIsReadAsNginxReadsIt_nameThenAesThenHmac() throws Exception {
        Path a = file("a.key", 0, 48);
        TicketKeys keys = TicketKeyFiles.parse(a.toString()).load();
        assertEquals(1, keys.size());
        assertArrayEquals(range(0, 0, 16), keys.part(0, 0), "the name: bytes 0-15");
        assertArrayEquals(range(0, 32, 48), keys.part(0, 1), "the HMAC key: bytes 32-47, as nginx reads a 48-byte file");
        assertArrayEquals(range(0, 16, 32), keys.part(0, 2), "the AES key: bytes 16-31");
    }

    @Test
    void theFirstFileIsTheCurrentKeyAndTheOthersFollowInOrder() throws Exception {
        Path a = file("a.key", 0, 48);
        Path b = file("b.key", 100, 48);
        Path c = file("c.key", 200, 48);
        TicketKeys keys = TicketKeyFiles.parse(b + " , " + a + "," + c).load();
        assertEquals(3, keys.size());
        assertArrayEquals(range(100, 0, 16), keys.part(0, 0));
        assertArrayEquals(range(0, 0, 16), keys.part(1, 0));
        assertArrayEquals(range(200, 0, 16), keys.part(2, 0));
    }

    @Test
    void moreFilesThanARotationKeepsLoadUpToTheMax() throws Exception {
        String[] names = new String[TicketKeys.MAX];
        for (int i = 0; i < names.length; i++) {
            names[i] = file("k" + i, i * 10, 48).toString();
        }
        assertEquals(TicketKeys.MAX, TicketKeyFiles.parse(String.join(",", names)).load().size());
        TlsSetupException e = assertThrows(TlsSetupException.class,
                () -> TicketKeyFiles.parse(String.join(",", names) + "," + names[0]));
        assertEquals("--tls-ticket-key: at most " + TicketKeys.MAX + " files, not " + (TicketKeys.MAX + 1), e.getMessage());
    }

    @Test
    void anNginxAes256FileIsRefusedWithTheOpensslLine() throws Exception {
        Path p = file("n.key", 0, 80);
        TlsSetupException e = assertThrows(TlsSetupException.class, () -> TicketKeyFiles.parse(p.toString()).load());
        assertEquals("--tls-ticket-key: " + p + " is 80 bytes, nginx's AES-256 format; m0serve's BoringSSL seals "
                + "tickets with AES-128: make a 48-byte key with 'openssl rand 48 > " + p + "'", e.getMessage());
    }

    @Test
    void aFileOfAnotherLengthIsRefusedAndNamed() throws Exception {
        Path good = file("good.key", 0, 48);
        for (int length : new int[] {0, 47, 49, 81, 4096}) {
            Path p = file("bad" + length, 0, length);
            TlsSetupException e = assertThrows(TlsSetupException.class,
                    () -> TicketKeyFiles.parse(good + "," + p).load(), "length " + length);
            String said = length > 80 ? "more than 80" : Integer.toString(length);
            assertEquals("--tls-ticket-key: " + p + " must be 48 bytes, not " + said + " (make one with 'openssl rand 48 > "
                    + p + "')", e.getMessage());
        }
    }

    @Test
    void aMissingOrUnreadableFileIsOneLineThatNamesIt() throws Exception {
        Path missing = dir.resolve("missing.key");
        TlsSetupException e = assertThrows(TlsSetupException.class, () -> TicketKeyFiles.parse(missing.toString()).load());
        assertEquals("--tls-ticket-key: " + missing + ": no such file", e.getMessage());
        TlsSetupException d = assertThrows(TlsSetupException.class, () -> TicketKeyFiles.parse(dir.toString()).load());
        assertTrue(d.getMessage().startsWith("--tls-ticket-key: cannot read " + dir + ": "), d.getMessage());
        assertFalse(d.getMessage().contains("\n"), d.getMessage());
    }

    @Test
    void anEmptyEntryIsRefused() {
        TlsSetupException e = assertThrows(TlsSetupException.class, () -> TicketKeyFiles.parse("a.key,,b.key"));
        assertEquals("--tls-ticket-key: an empty file name in 'a.key,,b.key'", e.getMessage());
    }

    @Test
    void noProblemLineShowsAKeyByte() throws Exception {
        byte[] secret = new byte[47];
        Arrays.fill(secret, (byte) 'K');
        Path p = dir.resolve("secret.key");
        Files.write(p, secret);
        TlsSetupException e = assertThrows(TlsSetupException.class, () -> TicketKeyFiles.parse(p.toString()).load());
        assertFalse(e.getMessage().contains("KKKK"), e.getMessage());
        assertFalse(e.getMessage().contains(HexFormat.of().formatHex(secret, 0, 4)), e.getMessage());
    }

    @Test
    void aWorldReadableFileIsWarnedOfAndAPrivateOneIsNot() throws Exception {
        Path a = file("a.key", 0, 48);
        Path b = file("b.key", 50, 48);
        TicketKeyFiles files = TicketKeyFiles.parse(a + "," + b);
        assertNull(files.warning(), "rw------- is not warned of");
        Files.setPosixFilePermissions(b, PosixFilePermissions.fromString("rw-r-----"));
        assertNull(files.warning(), "a group may be meant to read it (nginx does not check at all)");
        Files.setPosixFilePermissions(b, PosixFilePermissions.fromString("rw-r--r--"));
        assertEquals("--tls-ticket-key: " + b + " is readable by every user, who could open this server's tickets; "
                + "chmod o-r", files.warning());
        assertEquals(2, files.load().size(), "a warning, not a refusal");
        assertEquals(List.of(a.toString(), b.toString()), files.paths());
    }
}
