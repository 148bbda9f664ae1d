package m0.server.share;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Optional;
import m0.core.ByteBufferPage;
import m0.core.Page;

/**
 * Finds a memfd another process holds, by the name it was created with: how an observer
 * ({@code m0serve stats}) reaches a running supervisor's page and start-up record without a
 * file on disk. {@code /proc/PID/fd/N} of a memfd links to {@code /memfd:NAME (deleted)}, and
 * opening that path maps the same memory.
 */
public final class Memfds {

    private Memfds() {
    }

    /**
     * @return the {@code /proc/PID/fd/N} path of {@code pid}'s first memfd named {@code name}
     * @throws IOException when the process's descriptors cannot be listed (gone, not ours)
     */
    public static Optional<Path> find(long pid, String name) throws IOException {
        Path fds = Path.of("/proc/" + pid + "/fd");
        try (DirectoryStream<Path> dir = Files.newDirectoryStream(fds)) {
            for (Path p : dir) {
                try {
                    if (Files.readSymbolicLink(p).toString().startsWith("/memfd:" + name)) {
                        return Optional.of(p);
                    }
                } catch (IOException e) {
                    // closed meanwhile
                }
            }
        }
        return Optional.empty();
    }

    /**
     * {@code words} 64-bit words of {@code file} (a {@code /proc/PID/fd/N} memfd link) as a
     * page: read-write grows the file to fit, read-only is an observer's view.
     */
    public static Page map(Path file, int words, boolean write) {
        try (FileChannel ch = write ? FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)
                : FileChannel.open(file, StandardOpenOption.READ)) {
            MappedByteBuffer b = ch.map(write ? FileChannel.MapMode.READ_WRITE : FileChannel.MapMode.READ_ONLY,
                    0, 8L * words);
            return new ByteBufferPage(b, 0, words);
        } catch (IOException e) {
            throw new UncheckedIOException("mapping " + file, e);
        }
    }

    /**
     * {@code words} 64-bit words of a memfd as a buffer, for a writer's counters and their
     * readers: read-write empties the file and grows it to fit, zeroed (a memfd starts empty);
     * read-only refuses a file shorter than that (another binary's layout).
     */
    public static MappedByteBuffer mapWords(Path file, int words, boolean write) {
        try (FileChannel ch = write ? FileChannel.open(file, StandardOpenOption.READ, StandardOpenOption.WRITE)
                : FileChannel.open(file, StandardOpenOption.READ)) {
            if (write) {
                ch.truncate(0).write(java.nio.ByteBuffer.allocate(8 * words));
            } else if (ch.size() < 8L * words) {
                throw new IOException("only " + ch.size() + " bytes");
            }
            return ch.map(write ? FileChannel.MapMode.READ_WRITE : FileChannel.MapMode.READ_ONLY, 0, 8L * words);
        } catch (IOException e) {
            throw new UncheckedIOException("mapping " + file, e);
        }
    }

    /**
     * Read-only, the first {@code words} words of {@code file} or as many as it has: an observer
     * of a worker from an older build, whose file has fewer words, still reads those.
     */
    public static MappedByteBuffer mapWordsAtMost(Path file, int words) {
        try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
            long bytes = Math.min(8L * words, ch.size() / 8 * 8);
            return ch.map(FileChannel.MapMode.READ_ONLY, 0, bytes);
        } catch (IOException e) {
            throw new UncheckedIOException("mapping " + file, e);
        }
    }
}
