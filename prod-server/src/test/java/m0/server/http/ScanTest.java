package m0.server.http;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Random;
import org.junit.jupiter.api.Test;

class ScanTest {
    /** The word-at-a-time LF search agrees with a plain loop at every offset, length and byte mix. */
    @Test
    void indexOfLfMatchesTheNaiveSearch() {
        Random rnd = new Random(42);
        byte[] alphabet = {'\n', '\r', 'a', 0, (byte) 0x0b, (byte) 0x8a, (byte) 0xff, (byte) 0x09, (byte) 0x0a};
        int checked = 0;
        for (int round = 0; round < 2000; round++) {
            byte[] b = new byte[rnd.nextInt(40)];
            for (int i = 0; i < b.length; i++) {
                b[i] = rnd.nextInt(4) == 0 ? alphabet[rnd.nextInt(alphabet.length)] : (byte) rnd.nextInt(256);
            }
            for (int from = 0; from <= b.length; from++) {
                for (int to = from; to <= b.length; to++) {
                    int expected = -1;
                    for (int i = from; i < to; i++) {
                        if (b[i] == '\n') {
                            expected = i;
                            break;
                        }
                    }
                    assertEquals(expected, HeadBytes.indexOfLf(b, from, to));
                    checked++;
                }
            }
        }
        assertEquals(true, checked > 100_000);
    }

    /** The word-at-a-time value check agrees with a plain byte check everywhere. */
    @Test
    void validValueMatchesTheNaiveCheck() {
        Random rnd = new Random(7);
        byte[] edges = {0x00, 0x09, 0x0a, 0x0d, 0x1f, 0x20, 0x21, 0x7e, 0x7f, (byte) 0x80, (byte) 0x9f, (byte) 0xff};
        int bad = 0;
        for (int round = 0; round < 3000; round++) {
            byte[] b = new byte[rnd.nextInt(30)];
            for (int i = 0; i < b.length; i++) {
                b[i] = rnd.nextInt(8) == 0 ? edges[rnd.nextInt(edges.length)] : (byte) (0x20 + rnd.nextInt(0x5f));
            }
            for (int from = 0; from <= b.length; from++) {
                for (int to = from; to <= b.length; to++) {
                    boolean expected = true;
                    for (int i = from; i < to; i++) {
                        int c = b[i] & 0xff;
                        if ((c < 0x20 && c != 0x09) || c == 0x7f) expected = false;
                    }
                    if (!expected) bad++;
                    assertEquals(expected, HeadBytes.validValue(b, from, to), "from " + from + " to " + to);
                }
            }
        }
        assertEquals(true, bad > 10_000, "both outcomes were exercised");
    }
}
