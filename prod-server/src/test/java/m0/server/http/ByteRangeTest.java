package m0.server.http;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** A Range value over a 1000-byte file (RFC 9110 14.1.2): the slice, 416, or the whole file. */
class ByteRangeTest {

    private static void slice(String value, long first, long last) {
        ByteRange r = ByteRange.of(value, 1000);
        assertEquals(ByteRange.Kind.SLICE, r.kind, value);
        assertEquals(first, r.first, value + ": first");
        assertEquals(last, r.last, value + ": last");
        assertEquals(last - first + 1, r.count(), value + ": count");
    }

    @Test
    void oneRangeIsItsSliceClippedToTheFile() {
        slice("bytes=0-0", 0, 0);
        slice("bytes=0-499", 0, 499);
        slice("bytes=500-999", 500, 999);
        slice("bytes=500-", 500, 999);
        slice("bytes=999-", 999, 999);
        slice("bytes=990-5000", 990, 999); // a last past the end is the end
        slice("bytes=-1", 999, 999);
        slice("bytes=-100", 900, 999);
        slice("bytes=-1000", 0, 999);
        slice("bytes=-5000", 0, 999); // a suffix longer than the file is the whole file, as a slice
        slice("bytes=7-7", 7, 7);
        slice("bytes=007-0010", 7, 10); // leading zeros are digits
    }

    @Test
    void theUnitIsCaseInsensitiveAndSpacesAroundAListElementAreAllowed() {
        slice("Bytes=1-2", 1, 2);
        slice("BYTES=1-2", 1, 2);
        slice("bytes= 1-2 ", 1, 2);
        slice("bytes=1-2,", 1, 2); // empty list elements do not count
        slice("bytes=, 1-2", 1, 2);
    }

    @Test
    void hugeNumbersAreBeyondTheEndNotAnOverflow() {
        slice("bytes=0-99999999999999999999999", 0, 999);
        slice("bytes=-99999999999999999999999", 0, 999);
        slice("bytes=998-9223372036854775807", 998, 999);
        assertSame(ByteRange.UNSATISFIABLE, ByteRange.of("bytes=99999999999999999999999-", 1000));
        assertSame(ByteRange.UNSATISFIABLE, ByteRange.of("bytes=99999999999999999998-99999999999999999999", 1000));
        // both past a long: compared as numbers, not as two saturated longs that tie
        assertSame(ByteRange.WHOLE, ByteRange.of("bytes=99999999999999999999-99999999999999999998", 1000));
    }

    @ParameterizedTest
    @ValueSource(strings = {"bytes=1000-", "bytes=1000-2000", "bytes=5000-5001", "bytes=-0", "bytes=-000",
            "bytes=1000-,2000-3000", "bytes=-0,1000-"})
    void nothingSatisfiableIs416(String value) {
        assertSame(ByteRange.UNSATISFIABLE, ByteRange.of(value, 1000), value);
    }

    @ParameterizedTest
    @ValueSource(strings = {"bytes=5-4", "bytes=999-0", "bytes=-", "bytes=", "bytes=,", "bytes=a-b", "bytes=1-b",
            "bytes=+1-2", "bytes=1 - 2", "bytes=-1-2", "bytes=1-2-3", "bytes=0x10-20", "bytes=1-2,x", "bytes=1-2,5-4",
            "bytes 1-2", "bytes:1-2", "=1-2", "items=0-1", "bytesx=0-1", " bytes=0-1", "bytes=٣-٤", ""})
    void aMalformedValueOrAnotherUnitIsIgnored(String value) {
        assertSame(ByteRange.WHOLE, ByteRange.of(value, 1000), value);
    }

    @Test
    void severalRangesGetTheWholeFileAndAnEmptyFileIsAlwaysWhole() {
        assertSame(ByteRange.WHOLE, ByteRange.of("bytes=0-1,5-6", 1000), "no multipart: 200 with everything");
        assertSame(ByteRange.WHOLE, ByteRange.of("bytes=0-1,2000-", 1000), "one satisfiable of several: still whole");
        assertSame(ByteRange.WHOLE, ByteRange.of("bytes=2000-,0-1", 1000), "whichever comes first");
        assertSame(ByteRange.WHOLE, ByteRange.of("bytes=0-1", 0), "an empty file has no slice to name");
        assertSame(ByteRange.WHOLE, ByteRange.of("bytes=-1", 0));
        assertSame(ByteRange.WHOLE, ByteRange.of(null, 1000), "no Range");
    }

    @Test
    void aOneByteFileHasOneSatisfiableByte() {
        ByteRange r = ByteRange.of("bytes=0-", 1);
        assertEquals(0, r.first);
        assertEquals(0, r.last);
        assertSame(ByteRange.UNSATISFIABLE, ByteRange.of("bytes=1-", 1));
        assertEquals(0, ByteRange.of("bytes=-7", 1).first);
    }
}
