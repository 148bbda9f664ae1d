package m0.server.it;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** GETs on a connection that stays open, answers read by their Content-Length. */
final class KeepAliveAsk {

    private static final Pattern CONTENT_LENGTH = Pattern.compile("(?i)content-length: *(\\d+)");

    private KeepAliveAsk() {
    }

    /** The body of the answer to {@code GET path} (any status), stripped; the connection is left open. */
    static String body(Socket s, String path) throws IOException {
        send(s, path);
        InputStream in = s.getInputStream();
        return bodyAfter(head(in), in);
    }

    /** Writes {@code GET path} for Host localhost. */
    static void send(Socket s, String path) throws IOException {
        OutputStream out = s.getOutputStream();
        out.write(("GET " + path + " HTTP/1.1\r\nHost: localhost\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        out.flush();
    }

    /** An answer's head, through its blank line. */
    static String head(InputStream in) throws IOException {
        StringBuilder head = new StringBuilder();
        while (!head.toString().endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("EOF in the head: " + head);
            }
            head.append((char) b);
        }
        return head.toString();
    }

    /** The body {@code head}'s Content-Length announces, read from {@code in}, stripped. */
    static String bodyAfter(String head, InputStream in) throws IOException {
        Matcher m = CONTENT_LENGTH.matcher(head);
        assertTrue(m.find(), head);
        return new String(in.readNBytes(Integer.parseInt(m.group(1))), StandardCharsets.US_ASCII).strip();
    }
}
