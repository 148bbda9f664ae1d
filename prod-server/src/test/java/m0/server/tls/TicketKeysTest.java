package m0.server.tls;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.security.SecureRandom;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Ticket keys leave no heap copy behind once handed on: the arrays a set is made from, and a set erased. */
class TicketKeysTest {

    private static final byte[] ZERO = new byte[TicketKeys.KEY_BYTES];
    private final SecureRandom random = new SecureRandom();

    private byte[] key() {
        byte[] k = new byte[TicketKeys.KEY_BYTES];
        random.nextBytes(k);
        k[0] |= 1; // never all zero by chance
        return k;
    }

    @Test
    void takingZeroesTheArraysItWasGivenAndKeepsItsOwnCopies() {
        byte[] a = key();
        byte[] b = key();
        byte[] aWas = a.clone();
        byte[] bWas = b.clone();
        TicketKeys set = TicketKeys.taking(List.of(a, b));
        assertArrayEquals(ZERO, a, "the reader's scratch keeps no key byte");
        assertArrayEquals(ZERO, b);
        assertArrayEquals(aWas, set.key(0));
        assertArrayEquals(bWas, set.key(1));
    }

    @Test
    void takingZeroesTheArraysEvenWhenItRefusesThem() {
        byte[] good = key();
        byte[] shorter = new byte[TicketKeys.KEY_BYTES - 1];
        random.nextBytes(shorter);
        shorter[0] |= 1;
        assertThrows(IllegalArgumentException.class, () -> TicketKeys.taking(List.of(good, shorter)));
        assertArrayEquals(ZERO, good);
        assertArrayEquals(new byte[TicketKeys.KEY_BYTES - 1], shorter);
    }

    @Test
    void anErasedSetHoldsNoKeyByte() {
        TicketKeys set = TicketKeys.fresh(random).rotated(random).rotated(random);
        set.erase();
        for (int i = 0; i < set.size(); i++) {
            assertArrayEquals(ZERO, set.key(i), "key " + i);
        }
    }
}
