package m0.server.it;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** {@code openssl s_client} asking {@code /pid} once, offering a saved session and saving its own. */
final class SessionClient {

    private static final Pattern PID_BODY = Pattern.compile("(?m)^(\\d+) (\\d+)$");
    private static final Pattern TICKET_FIRST_LINE = Pattern.compile("TLS session ticket:\\s*\\n\\s*0000 - ([0-9a-f -]+?)\\s{2}");

    private final Path openssl;

    private SessionClient(Path openssl) {
        this.openssl = openssl;
    }

    /** openssl on PATH; the test is aborted without it (failed under CI). */
    static SessionClient find() {
        return new SessionClient(Tools.onPath("openssl"));
    }

    /** What one connection saw: whether it resumed, and the worker's index and pid. */
    record Conn(boolean reused, int worker, long pid, String output) {
    }

    /** One connection to {@code port}: offers {@code in}'s session if given, saves its own to {@code out}. */
    Conn connect(int port, Path in, Path out) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(openssl.toString(), "s_client", "-connect", "127.0.0.1:" + port,
                "-servername", "localhost", "-alpn", "http/1.1", "-ign_eof", "-sess_out", out.toString()));
        if (in != null) {
            cmd.add("-sess_in");
            cmd.add(in.toString());
        }
        File stdout = Files.createTempFile("m0-s_client-", ".out").toFile();
        Process p = new ProcessBuilder(cmd).redirectOutput(stdout).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        try {
            try (OutputStream o = p.getOutputStream()) {
                o.write("GET /pid HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n"
                        .getBytes(StandardCharsets.US_ASCII));
            }
            assertTrue(p.waitFor(30, TimeUnit.SECONDS), "s_client exits by itself");
            String text = Files.readString(stdout.toPath(), StandardCharsets.UTF_8);
            Matcher m = PID_BODY.matcher(text);
            assertTrue(m.find(), "no /pid answer: " + text);
            boolean reused = text.contains("\nReused, ");
            assertTrue(reused || text.contains("\nNew, "), text);
            return new Conn(reused, Integer.parseInt(m.group(2)), Long.parseLong(m.group(1)), text);
        } finally {
            ServerProcess.kill(p);
            Files.deleteIfExists(stdout.toPath());
        }
    }

    /** The key name a saved session's ticket starts with (its first 16 bytes), as hex. */
    String keyName(Path session) throws Exception {
        Process p = new ProcessBuilder(openssl.toString(), "sess_id", "-in", session.toString(), "-noout", "-text")
                .redirectErrorStream(true).start();
        try {
            String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.waitFor(30, TimeUnit.SECONDS));
            Matcher m = TICKET_FIRST_LINE.matcher(text);
            assertTrue(m.find(), "no ticket in the session: " + text);
            return m.group(1).replace(" ", "").replace("-", "");
        } finally {
            ServerProcess.kill(p);
        }
    }
}
