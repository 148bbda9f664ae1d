package m0.server.stats;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** The per-worker request counters: buckets, classes, and what a reader sees only after publish. */
class RequestStatsTest {

    @Test
    void aDurationFallsInTheFirstBucketItDoesNotExceed() {
        assertEquals(0, RequestStats.bucket(0));
        assertEquals(0, RequestStats.bucket(100));
        assertEquals(1, RequestStats.bucket(101));
        assertEquals(RequestStats.BOUNDS_MICROS.length - 1, RequestStats.bucket(10_000_000));
        assertEquals(RequestStats.BOUNDS_MICROS.length, RequestStats.bucket(10_000_001));
    }

    /** The only test here that creates one: this JVM then holds exactly one m0-requests memfd. */
    @Test
    void aReaderInAnotherMappingSeesTheCountsOnlyOncePublished() {
        RequestStats w = RequestStats.create();
        w.responded(200, 50);
        w.responded(404, 300);
        w.responded(503, 20_000_000);
        w.responded(99, 1); // a status below 100 counts as 1xx, not as an index out of range
        w.bytesIn(10);
        w.bytesOut(20);
        // Found the way the supervisor finds a worker's: by name under /proc/<pid>/fd.
        RequestStats r = RequestStats.attach(ProcessHandle.current().pid()).orElseThrow();
        assertEquals(0, r.requests(2), "counted in the loop's own fields until the pass ends");
        w.publish();
        assertEquals(1, r.requests(1));
        assertEquals(1, r.requests(2));
        assertEquals(1, r.requests(4));
        assertEquals(1, r.requests(5));
        assertEquals(10, r.word(RequestStats.BYTES_IN));
        assertEquals(20, r.word(RequestStats.BYTES_OUT));
        assertEquals(50 + 300 + 20_000_000 + 1, r.word(RequestStats.DURATION_SUM_MICROS));
        assertEquals(2, r.word(RequestStats.FIRST_BUCKET)); // 50 and 1 µs
        assertEquals(1, r.word(RequestStats.FIRST_BUCKET + RequestStats.BUCKETS - 1)); // +Inf
    }
}
