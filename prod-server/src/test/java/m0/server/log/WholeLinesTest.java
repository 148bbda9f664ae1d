package m0.server.log;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedOutputStream;
import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Each line leaves in one write, so lines of processes that share a stream cannot interleave. */
class WholeLinesTest {

    /** What reaches the descriptor: one entry a write. */
    private static final class Writes extends OutputStream {
        final List<String> writes = new ArrayList<>();

        @Override
        public void write(int b) {
            writes.add(String.valueOf((char) b));
        }

        @Override
        public void write(byte[] b, int off, int len) {
            writes.add(new String(b, off, len, StandardCharsets.UTF_8));
        }
    }

    private static void logLines(PrintStream p) {
        p.printf("m0serve worker %d: warmed up in %.1f ms (%s)%n", 1, 312.4, "answers written with write(2); ".repeat(8));
        p.println("m0serve: ready: " + "x".repeat(600));
    }

    @Test
    void aLongLineLeavesInOneWrite() {
        Writes fd = new Writes();
        logLines(WholeLines.over(fd, StandardCharsets.UTF_8));
        assertEquals(2, fd.writes.size(), fd.writes.toString());
        assertTrue(fd.writes.get(0).startsWith("m0serve worker 1: warmed up in 312.4 ms (")
                && fd.writes.get(0).endsWith(")" + System.lineSeparator()), fd.writes.get(0));
        assertEquals("m0serve: ready: " + "x".repeat(600) + System.lineSeparator(), fd.writes.get(1));
    }

    @Test
    void theJdksOwnStreamWritesItInPieces() {
        Writes fd = new Writes(); // as System.err is made: a 128-byte buffer, autoflush
        logLines(new PrintStream(new BufferedOutputStream(fd, 128), true, StandardCharsets.UTF_8));
        assertTrue(fd.writes.size() > 4, "pieces: " + fd.writes.size());
        ByteArrayOutputStream joined = new ByteArrayOutputStream();
        fd.writes.forEach(w -> joined.writeBytes(w.getBytes(StandardCharsets.UTF_8)));
        assertTrue(joined.toString(StandardCharsets.UTF_8).contains("x".repeat(600)));
    }
}
