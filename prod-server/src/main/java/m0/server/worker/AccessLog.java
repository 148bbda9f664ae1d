package m0.server.worker;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;
import m0.server.http.Request;
import m0.server.log.RateLimitedLog;

/**
 * One worker's access log: the combined log format plus the request's time in microseconds and
 * the worker's index, e.g.
 * <pre>127.0.0.1 - - [01/Dec/2026:07:02:51 +0000] "GET / HTTP/1.1" 200 13 "-" "curl/8.1" 41 0</pre>
 * and a last field {@code cut} on the line of an answer that ended short of its head's promise
 * (docs/adr/0061). The byte count is the body's as nginx's {@code $body_bytes_sent}.
 * Lines gather in a buffer that goes out in one write(2) at the end of the loop's pass (or when
 * full, and at exit); every worker appends to the same file with O_APPEND, so each batch lands
 * whole. {@link #requestReopen} (SIGUSR1, logrotate's convention) makes the next flush reopen
 * the path, so a renamed file stops growing. Only the loop thread calls the rest.
 */
final class AccessLog {

    static final int BUFFER_BYTES = 64 * 1024;
    /** The last field of a line whose answer was cut: the client saw its status and bytes, then the close. */
    static final String CUT = "cut";
    /** A request line or header longer than this is cut in the log: a line stays well under the buffer. */
    static final int FIELD_MAX = 2048;
    private static final DateTimeFormatter DATE =
            DateTimeFormatter.ofPattern("dd/MMM/yyyy:HH:mm:ss Z", Locale.ROOT).withZone(ZoneOffset.UTC);
    private static final byte[] HEX = "0123456789abcdef".getBytes(StandardCharsets.ISO_8859_1);

    private final String path;
    private final byte[] index;
    private final byte[] buffer = new byte[BUFFER_BYTES];
    private final RateLimitedLog failures;
    private int length;
    private FileChannel channel;
    private volatile boolean reopen;
    /** The date field of the current second, formatted once per second. */
    private long dateSecond = -1;
    private byte[] date;

    /** @param path a file, or "-" for standard output */
    AccessLog(String path, int workerIndex, RateLimitedLog failures) throws IOException {
        this.path = path;
        this.index = Integer.toString(workerIndex).getBytes(StandardCharsets.ISO_8859_1);
        this.failures = failures;
        this.channel = open(path);
    }

    private static FileChannel open(String path) throws IOException {
        if ("-".equals(path)) {
            return new FileOutputStream(FileDescriptor.out).getChannel();
        }
        return FileChannel.open(Path.of(path), StandardOpenOption.CREATE, StandardOpenOption.WRITE,
                StandardOpenOption.APPEND);
    }

    /** From the signal thread: reopen at the next flush. */
    void requestReopen() {
        reopen = true;
    }

    /** One line; {@code request} null for an error answer to bytes that were no request. */
    void log(String peer, Request request, int status, long bodyBytes, long micros, long epochMillis) {
        log(peer, request, status, bodyBytes, micros, epochMillis, false);
    }

    /** The same; {@code cut}: the answer ended short of its head's promise, marked by a last field {@value #CUT}. */
    void log(String peer, Request request, int status, long bodyBytes, long micros, long epochMillis, boolean cut) {
        if (length > BUFFER_BYTES - 5 * FIELD_MAX - 256) { // five client fields at most FIELD_MAX each
            flush();
        }
        ascii(peer);
        ascii(" - - [");
        long second = epochMillis / 1000;
        if (second != dateSecond) {
            dateSecond = second;
            date = DATE.format(Instant.ofEpochSecond(second)).getBytes(StandardCharsets.ISO_8859_1);
        }
        bytes(date);
        ascii("] \"");
        if (request == null) {
            ascii("-");
        } else {
            escaped(request.method());
            buffer[length++] = ' ';
            escaped(request.target());
            buffer[length++] = ' ';
            escaped(request.version());
        }
        ascii("\" ");
        ascii(Integer.toString(status));
        ascii(" ");
        ascii(Long.toString(bodyBytes));
        ascii(" \"");
        escaped(request == null ? null : request.header("Referer"));
        ascii("\" \"");
        escaped(request == null ? null : request.header("User-Agent"));
        ascii("\" ");
        ascii(Long.toString(micros));
        ascii(" ");
        bytes(index);
        if (cut) {
            ascii(" " + CUT);
        }
        buffer[length++] = '\n';
    }

    private void ascii(String s) {
        for (int i = 0; i < s.length(); i++) {
            buffer[length++] = (byte) s.charAt(i);
        }
    }

    private void bytes(byte[] b) {
        System.arraycopy(b, 0, buffer, length, b.length);
        length += b.length;
    }

    /** A client's text: '"', '\' and non-printable bytes as \xHH (as nginx does), cut at FIELD_MAX; null: "-". */
    private void escaped(String s) {
        if (s == null) {
            buffer[length++] = '-';
            return;
        }
        int end = Math.min(s.length(), FIELD_MAX / 4); // at most 4 bytes per char written
        for (int i = 0; i < end; i++) {
            char c = s.charAt(i);
            if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\') {
                int b = c & 0xff; // the parser's strings are ISO-8859-1: one char per byte
                buffer[length++] = '\\';
                buffer[length++] = 'x';
                buffer[length++] = HEX[b >>> 4];
                buffer[length++] = HEX[b & 15];
            } else {
                buffer[length++] = (byte) c;
            }
        }
    }

    /** The loop's pass is over (or the buffer is full, or we exit): one write for the batch. */
    void flush() {
        if (reopen) {
            reopen = false;
            reopen();
        }
        if (length == 0) {
            return;
        }
        ByteBuffer b = ByteBuffer.wrap(buffer, 0, length);
        length = 0;
        try {
            while (b.hasRemaining()) {
                channel.write(b);
            }
        } catch (IOException e) {
            failures.log("access log " + path + ": " + e + "; lines dropped");
        }
    }

    private void reopen() {
        if ("-".equals(path)) {
            return;
        }
        try {
            FileChannel fresh = open(path);
            FileChannel old = channel;
            channel = fresh;
            flushTo(old);
            old.close();
        } catch (IOException e) {
            failures.log("access log " + path + ": cannot reopen: " + e + "; still writing the old file");
        }
    }

    /** What was logged before the reopen belongs to the old file. */
    private void flushTo(FileChannel old) throws IOException {
        ByteBuffer b = ByteBuffer.wrap(buffer, 0, length);
        length = 0;
        while (b.hasRemaining()) {
            old.write(b);
        }
    }

    void close() {
        flush();
        if (!"-".equals(path)) {
            try {
                channel.close();
            } catch (IOException e) {
                // exiting: the last batch is already written
            }
        }
    }
}
