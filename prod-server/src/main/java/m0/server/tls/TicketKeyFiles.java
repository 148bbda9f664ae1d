package m0.server.tls;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * {@code --tls-ticket-key}: session-ticket keys the operator makes, one per file, as nginx's
 * {@code ssl_session_ticket_key} (ADR 0073's addendum). Several machines behind one balancer
 * given the same files open each other's tickets. The first file's key seals new tickets, and
 * every file's key opens the tickets it sealed. The operator rotates by changing the files and
 * sending SIGHUP.
 *
 * <p>A file is 48 random bytes ({@code openssl rand 48 > FILE}), read as nginx reads its 48-byte
 * files: a 16-byte name, then the AES key, then the HMAC key. BoringSSL seals tickets with
 * AES-128 and a 16-byte HMAC key (netty-tcnative's callback), so nginx's 80-byte AES-256 format
 * is refused: a key cut to fit would be a weaker key than the operator made. A problem is one
 * line that names the file and never shows a key byte.
 */
public final class TicketKeyFiles {

    /** A file's size: name, AES key, HMAC key, 16 bytes each. */
    public static final int FILE_BYTES = 48;
    /** nginx's other size: a name, a 32-byte HMAC key and an AES-256 key. */
    static final int NGINX_AES256_BYTES = 80;

    private final List<String> paths;

    private TicketKeyFiles(List<String> paths) {
        this.paths = List.copyOf(paths);
    }

    /** {@code FILE[,FILE...]}; a blank entry or more than {@link TicketKeys#MAX} files is refused. */
    public static TicketKeyFiles parse(String list) throws TlsSetupException {
        List<String> paths = new ArrayList<>();
        for (String p : list.split(",", -1)) {
            String path = p.strip();
            if (path.isEmpty()) {
                throw new TlsSetupException("--tls-ticket-key: an empty file name in '" + list + "'");
            }
            paths.add(path);
        }
        if (paths.size() > TicketKeys.MAX) {
            throw new TlsSetupException("--tls-ticket-key: at most " + TicketKeys.MAX + " files, not " + paths.size());
        }
        return new TicketKeyFiles(paths);
    }

    public List<String> paths() {
        return paths;
    }

    /** Every file's key, the first file's first; or the first file's problem. */
    public TicketKeys load() throws TlsSetupException {
        List<byte[]> keys = new ArrayList<>(paths.size());
        try {
            for (String path : paths) {
                keys.add(key(path, read(path)));
            }
            return TicketKeys.of(keys);
        } finally {
            keys.forEach(k -> Arrays.fill(k, (byte) 0)); // TicketKeys holds its own copies
        }
    }

    /** One line when a file is readable by every user (nginx does not check; a key's holder can forge sessions), or null. */
    public String warning() {
        List<String> open = new ArrayList<>();
        for (String path : paths) {
            try {
                if (Files.getPosixFilePermissions(Path.of(path)).contains(PosixFilePermission.OTHERS_READ)) {
                    open.add(path);
                }
            } catch (IOException | UnsupportedOperationException e) {
                // load() says what is wrong with a file it cannot read
            }
        }
        return open.isEmpty() ? null : "--tls-ticket-key: " + String.join(", ", open) + (open.size() == 1 ? " is" : " are")
                + " readable by every user, who could open this server's tickets; chmod o-r";
    }

    /** The file's bytes, at most one more than the longest size it may have. */
    private static byte[] read(String path) throws TlsSetupException {
        try (InputStream in = Files.newInputStream(Path.of(path))) {
            return in.readNBytes(NGINX_AES256_BYTES + 1);
        } catch (NoSuchFileException e) {
            throw new TlsSetupException("--tls-ticket-key: " + path + ": no such file");
        } catch (IOException | RuntimeException e) {
            throw new TlsSetupException("--tls-ticket-key: cannot read " + path + ": " + e);
        }
    }

    /** A file's 48 bytes (name, AES, HMAC: nginx's order) as a {@link TicketKeys} key (name, HMAC, AES). */
    static byte[] key(String path, byte[] file) throws TlsSetupException {
        try {
            if (file.length == NGINX_AES256_BYTES) {
                throw new TlsSetupException("--tls-ticket-key: " + path + " is 80 bytes, nginx's AES-256 format; "
                        + "m0serve's BoringSSL seals tickets with AES-128: make a 48-byte key with 'openssl rand 48 > "
                        + path + "'");
            }
            if (file.length != FILE_BYTES) {
                throw new TlsSetupException("--tls-ticket-key: " + path + " must be " + FILE_BYTES + " bytes, not "
                        + (file.length > NGINX_AES256_BYTES ? "more than " + NGINX_AES256_BYTES : file.length)
                        + " (make one with 'openssl rand 48 > " + path + "')");
            }
            int p = TicketKeys.PART_BYTES;
            byte[] k = new byte[TicketKeys.KEY_BYTES];
            System.arraycopy(file, 0, k, 0, p); // name
            System.arraycopy(file, 2 * p, k, p, p); // HMAC key
            System.arraycopy(file, p, k, 2 * p, p); // AES key
            return k;
        } finally {
            Arrays.fill(file, (byte) 0);
        }
    }
}
