package m0.server.http;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * If-Range with a date (RFC 9110 13.1.5): the date must equal Last-Modified exactly, and it is a
 * strong validator only when Last-Modified is at least one second before the answer's Date;
 * otherwise the whole file answers.
 */
class FileSliceIfRangeTest {

    private static final String MODIFIED = "Sun, 06 Nov 1994 08:49:37 GMT";
    /** {@link #MODIFIED} in milliseconds since the epoch. */
    private static final long MODIFIED_MILLIS = 784111777_000L;

    private static Response file(String... headers) {
        return Response.file(200, "video/mp4", Path.of("/unused"), headers);
    }

    @Test
    void aDateEqualToLastModifiedHoldsOnceTheDateIsASecondLater() {
        Response r = file("Last-Modified", MODIFIED);
        assertTrue(FileSlice.ifRangeHolds(MODIFIED, r, MODIFIED_MILLIS + 1000), "Date one second later: strong");
        assertTrue(FileSlice.ifRangeHolds(MODIFIED, r, MODIFIED_MILLIS + 86_400_000L), "a day later: strong");
    }

    @Test
    void aDateEqualToLastModifiedInTheDatesOwnSecondOrLaterIsNotStrong() {
        Response r = file("Last-Modified", MODIFIED);
        assertFalse(FileSlice.ifRangeHolds(MODIFIED, r, MODIFIED_MILLIS), "the same second: weak");
        assertFalse(FileSlice.ifRangeHolds(MODIFIED, r, MODIFIED_MILLIS + 999), "still the same second: weak");
        assertFalse(FileSlice.ifRangeHolds(MODIFIED, r, MODIFIED_MILLIS - 5000), "Last-Modified after Date: weak");
    }

    @Test
    void aLastModifiedThatIsNoHttpDateIsNeverStrong() {
        String odd = "last tuesday";
        assertFalse(FileSlice.ifRangeHolds(odd, file("Last-Modified", odd), System.currentTimeMillis()));
    }

    @Test
    void entityTagsAreUntouchedByTheClock() {
        Response r = file("ETag", "\"v1\"", "Last-Modified", MODIFIED);
        assertTrue(FileSlice.ifRangeHolds("\"v1\"", r, MODIFIED_MILLIS)); // an ETag's match is strong at any time
        assertFalse(FileSlice.ifRangeHolds("W/\"v1\"", r, MODIFIED_MILLIS + 1000));
        assertTrue(FileSlice.ifRangeHolds(null, r, MODIFIED_MILLIS), "no If-Range: the range is served");
    }
}
