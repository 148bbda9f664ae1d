package m0.server.http;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.AccessDeniedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.StandardOpenOption;

/**
 * A file answer given to an exchange ({@link Exchange#respond} on its thread): read and written
 * through the exchange's body, its length the file's at open (docs/adr/0071). Only an App's
 * answer the loop encodes goes by sendfile(2); this path copies.
 */
final class FileThroughPipe {

    private FileThroughPipe() {
    }

    static void respond(Exchange x, Response r) throws IOException {
        FileChannel ch;
        try {
            if (!Files.isRegularFile(r.file())) {
                throw new NoSuchFileException(r.file().toString());
            }
            ch = FileChannel.open(r.file(), StandardOpenOption.READ);
        } catch (NoSuchFileException e) {
            x.respond(Response.status(404));
            return;
        } catch (AccessDeniedException e) {
            x.respond(Response.status(403));
            return;
        }
        try (ch) {
            long length = ch.size();
            x.sendHead(r.status(), length, r.headersWithType());
            boolean bodyless = "HEAD".equals(x.request().method()) || r.bodyless();
            OutputStream body = x.body();
            byte[] b = new byte[PipedExchange.PIECE];
            ByteBuffer bb = ByteBuffer.wrap(b);
            for (long at = 0; !bodyless && at < length; ) {
                bb.clear().limit((int) Math.min(b.length, length - at));
                int n = ch.read(bb, at);
                if (n <= 0) {
                    throw new IOException(r.file() + " ended at " + at + " of " + length + " bytes");
                }
                body.write(b, 0, n);
                at += n;
            }
            x.finish();
        }
    }
}
