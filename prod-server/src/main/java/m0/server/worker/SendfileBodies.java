package m0.server.worker;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.AccessDeniedException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import m0.server.http.BodyFiles;
import m0.server.jnr.Fds;
import m0.server.jnr.FileSends;
import m0.server.jnr.NativeException;

/**
 * A worker's files for its file answers: opened natively, so {@link AnswerWrites} can hand the
 * descriptor to sendfile(2); read through {@link FileSends#read} on TLS (docs/adr/0071). One per
 * loop, as its {@link FileSends}.
 */
final class SendfileBodies implements BodyFiles {

    private final FileSends files;

    SendfileBodies(FileSends files) {
        this.files = files;
    }

    @Override
    public Open open(Path path) throws IOException {
        String name = path.toAbsolutePath().toString();
        int fd = files.open(name);
        if (fd == -FileSends.ENOENT || fd == -FileSends.ENOTDIR || fd == -FileSends.ELOOP || fd == -FileSends.ENAMETOOLONG) {
            throw new NoSuchFileException(name);
        }
        if (fd == -FileSends.EACCES) {
            throw new AccessDeniedException(name);
        }
        if (fd < 0) {
            throw new IOException(new NativeException("open(" + name + ")", -fd).getMessage());
        }
        return new Opened(fd, files.openedSize());
    }

    private final class Opened implements Open {
        private int fd;
        private final long length;

        Opened(int fd, long length) {
            this.fd = fd;
            this.length = length;
        }

        @Override
        public long length() {
            return length;
        }

        @Override
        public int fd() {
            return fd;
        }

        @Override
        public int read(ByteBuffer dst, long position) throws IOException {
            try {
                return files.read(fd, dst, position);
            } catch (NativeException e) {
                throw new IOException(e.getMessage(), e);
            }
        }

        @Override
        public void close() {
            if (fd >= 0) {
                Fds.close(fd);
                fd = -1;
            }
        }
    }
}
