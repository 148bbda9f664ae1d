package m0.server.control;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;

/**
 * {@code --pid-file}: the supervisor's pid in decimal and a newline, as nginx and gunicorn write
 * theirs. Written whole (a temporary file renamed over it), so a reader never sees half of it;
 * removed at the stop only while it still names this process, so a server that started later
 * with the same file keeps its own.
 */
public final class PidFile {

    private final Path file;
    private final long pid;

    private PidFile(Path file, long pid) {
        this.file = file;
        this.pid = pid;
    }

    /** Writes {@code pid} to {@code file}, replacing what was there. */
    public static PidFile write(Path file, long pid) throws IOException {
        Path absolute = file.toAbsolutePath();
        Path dir = absolute.getParent();
        Path temporary = Files.createTempFile(dir, "." + absolute.getFileName(), ".tmp");
        try {
            Files.writeString(temporary, pid + "\n", StandardCharsets.US_ASCII);
            Files.move(temporary, absolute, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } finally {
            Files.deleteIfExists(temporary);
        }
        return new PidFile(absolute, pid);
    }

    /** The pid {@code file} names. */
    public static long read(Path file) throws IOException {
        String text;
        try {
            text = Files.readString(file, StandardCharsets.US_ASCII).trim();
        } catch (NoSuchFileException e) {
            throw new IOException("no pid file " + file + " (is the server running, with --pid-file?)");
        }
        if (!text.matches("[1-9][0-9]{0,9}")) {
            throw new IOException("pid file " + file + " holds no pid: '" + text + "'");
        }
        return Long.parseLong(text);
    }

    /** Removes the file if it still names this process; a failure is said in the returned line, else null. */
    public String removeIfOurs() {
        try {
            if (Files.exists(file) && read(file) == pid) {
                Files.delete(file);
            }
            return null;
        } catch (IOException e) {
            return "pid file " + file + " not removed: " + e.getMessage();
        }
    }

    public Path path() {
        return file;
    }
}
