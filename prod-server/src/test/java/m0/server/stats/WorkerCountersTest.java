package m0.server.stats;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.file.Path;
import m0.server.jnr.Fds;
import m0.server.share.Memfds;
import org.junit.jupiter.api.Test;

/** An observer of a worker's counters, including one from an older build whose file has fewer words. */
class WorkerCountersTest {

    /** The only test here that creates one: this JVM then holds exactly one m0-worker memfd. */
    @Test
    void aWorkerFromAnOlderBuildShowsTheWordsItHasAndNoneItLacks() {
        int fd = Fds.memfd(WorkerCounters.NAME);
        try {
            // The build before the answers' words: nine of them.
            MappedByteBuffer older = Memfds.mapWords(Path.of("/proc/self/fd/" + fd), WorkerCounters.PICKED_AGAIN + 1, true);
            older.order(ByteOrder.nativeOrder()); // as the worker writes its words
            older.putLong(8 * WorkerCounters.ACCEPTED, 42);
            older.putLong(8 * WorkerCounters.PICKED_AGAIN, 7);

            WorkerCounters c = WorkerCounters.attach(ProcessHandle.current().pid()).orElseThrow(
                    () -> new AssertionError("a worker with fewer words must still be read"));

            assertEquals(42, c.word(WorkerCounters.ACCEPTED));
            assertEquals(7, c.word(WorkerCounters.PICKED_AGAIN));
            assertTrue(c.has(WorkerCounters.PICKED_AGAIN));
            assertFalse(c.has(WorkerCounters.RING_SENDS), "a word its build does not count");
            assertFalse(c.has(WorkerCounters.WRITES));
            assertEquals(0, c.word(WorkerCounters.WRITES), "read as 0, as a worker without counters is");
        } finally {
            Fds.close(fd);
        }
    }
}
