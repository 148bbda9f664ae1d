package m0.server.share;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

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
}
