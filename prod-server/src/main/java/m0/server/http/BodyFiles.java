package m0.server.http;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * How a session opens the file a {@link Response#file} answer names (the session does no I/O of
 * its own). A worker's opens it natively, so its loop can hand the descriptor to sendfile(2);
 * {@link #JAVA}, the default, through a {@link FileChannel}, read and copied (no descriptor).
 */
public interface BodyFiles {

    /**
     * The file at {@code path}, open for reading, its length taken now.
     *
     * @throws NoSuchFileException when it is missing or not a regular file (the answer is 404)
     * @throws java.nio.file.AccessDeniedException when it cannot be read (403)
     * @throws IOException for anything else (500)
     */
    Open open(Path path) throws IOException;

    /** An open file a response is sent from. The loop's alone. */
    interface Open {
        /** Its length when it was opened: the Content-Length promised. */
        long length();

        /** Its descriptor for sendfile(2), or -1 when it has none (then it is {@link #read}). */
        int fd();

        /** Up to {@code dst.remaining()} bytes at {@code position} into dst; 0 or -1 past its end. */
        int read(ByteBuffer dst, long position) throws IOException;

        /** Closes it (once; a second call does nothing). */
        void close();
    }

    /** Through a FileChannel: every byte read into the heap and copied (tests, and any loop without sendfile). */
    BodyFiles JAVA = path -> {
        if (!Files.isRegularFile(path)) {
            throw new NoSuchFileException(path.toString(), null, "not a regular file");
        }
        FileChannel ch = FileChannel.open(path, StandardOpenOption.READ);
        long length;
        try {
            length = ch.size();
        } catch (IOException e) {
            ch.close();
            throw e;
        }
        return new Open() {
            @Override
            public long length() {
                return length;
            }

            @Override
            public int fd() {
                return -1;
            }

            @Override
            public int read(ByteBuffer dst, long position) throws IOException {
                return ch.read(dst, position);
            }

            @Override
            public void close() {
                try {
                    ch.close();
                } catch (IOException e) {
                    // read only: nothing was promised by the close
                }
            }
        };
    };
}
