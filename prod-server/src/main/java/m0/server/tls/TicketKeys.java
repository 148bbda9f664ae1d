package m0.server.tls;

import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;

/**
 * The server's session-ticket keys (ADR 0073): made by the supervisor, the same in every worker,
 * so a client's ticket resumes on whichever worker its next connection lands. Each key is 48
 * random bytes: a 16-byte name (which key sealed a ticket), a 16-byte HMAC key and a 16-byte AES
 * key (BoringSSL's ticket format, netty's {@code OpenSslSessionTicketKey}). The first is the
 * current one, which seals new tickets; the others still open the tickets they sealed, as nginx
 * keeps its previous keys. A rotation makes a new set; a set handed on (to the engine, or replaced
 * by its rotation) is {@link #erase}d, so the heap keeps no key bytes past their use.
 */
public final class TicketKeys {

    public static final int KEY_BYTES = 48;
    public static final int PART_BYTES = 16;
    /** The current key and the previous ones kept for decryption. */
    public static final int KEPT = 3;
    /** At most this many in a set: the operator's files ({@code --tls-ticket-key}) may name more than {@link #KEPT}. */
    public static final int MAX = 8;

    private final List<byte[]> keys;

    private TicketKeys(List<byte[]> keys) {
        if (keys.isEmpty() || keys.size() > MAX) {
            throw new IllegalArgumentException("1 to " + MAX + " ticket keys, not " + keys.size());
        }
        for (byte[] k : keys) {
            if (k.length != KEY_BYTES) {
                throw new IllegalArgumentException("a ticket key is " + KEY_BYTES + " bytes, not " + k.length);
            }
        }
        this.keys = List.copyOf(keys.stream().map(byte[]::clone).toList());
    }

    /** A first set: one fresh key. */
    public static TicketKeys fresh(SecureRandom random) {
        return new TicketKeys(List.of(newKey(random)));
    }

    /** The keys as read back, current first. */
    public static TicketKeys of(List<byte[]> keys) {
        return new TicketKeys(keys);
    }

    /**
     * A set holding copies of {@code keys}, current first; the arrays given are zeroed, also when
     * they are refused, so the caller's scratch (a file's bytes, a page read) keeps no key.
     */
    public static TicketKeys taking(List<byte[]> keys) {
        try {
            return new TicketKeys(keys);
        } finally {
            keys.forEach(k -> java.util.Arrays.fill(k, (byte) 0));
        }
    }

    /** Zeroes this set's keys for good: it has been handed on and is not read again. */
    public void erase() {
        keys.forEach(k -> java.util.Arrays.fill(k, (byte) 0));
    }

    /** A new current key; the old current and the newest previous ones are kept, {@link #KEPT} in all. */
    public TicketKeys rotated(SecureRandom random) {
        List<byte[]> next = new ArrayList<>();
        next.add(newKey(random));
        for (int i = 0; i < keys.size() && next.size() < KEPT; i++) {
            next.add(keys.get(i));
        }
        return new TicketKeys(next);
    }

    public int size() {
        return keys.size();
    }

    /** Key {@code i} (0: the current one), a copy. */
    public byte[] key(int i) {
        return keys.get(i).clone();
    }

    /** Bytes {@code part * 16 .. part * 16 + 15} of key {@code i}: 0 name, 1 HMAC key, 2 AES key. */
    public byte[] part(int i, int part) {
        return java.util.Arrays.copyOfRange(keys.get(i), part * PART_BYTES, (part + 1) * PART_BYTES);
    }

    private static byte[] newKey(SecureRandom random) {
        byte[] k = new byte[KEY_BYTES];
        random.nextBytes(k);
        return k;
    }
}
