package m0.server.supervisor;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;

import java.util.concurrent.TimeUnit;
import m0.server.tls.TicketKeys;
import org.junit.jupiter.api.Test;

/** A rotation publishes the new set and zeroes the one it replaced (the new set holds its own copies). */
class TicketRotationTest {

    @Test
    void aRotationZeroesTheSetItReplacedAndKeepsItsKeyInTheNewOne() {
        TicketRotation r = TicketRotation.start(1000, 0);
        TicketKeys before = r.keys();
        byte[] current = before.key(0);
        r.step(TimeUnit.SECONDS.toNanos(2)); // the period is over
        assertEquals(1, r.rotations());
        assertNotSame(before, r.keys());
        assertArrayEquals(new byte[TicketKeys.KEY_BYTES], before.key(0), "the replaced set keeps no key byte");
        assertArrayEquals(current, r.keys().key(1), "its key still opens its tickets, from the new set");
    }
}
