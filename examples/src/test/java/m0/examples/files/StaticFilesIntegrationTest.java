package m0.examples.files;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The example on the real m0serve: a directory's file served whole on a kept connection, a
 * request that climbs out of it ({@code ../}, sent raw: an HTTP client would tidy it away) is 400,
 * and a Range, an If-Range and an If-None-Match as players and download managers send them.
 */
class StaticFilesIntegrationTest {

    private static final Pattern LISTENING = Pattern.compile("listening on http://127\\.0\\.0\\.1:(\\d+)/");

    @TempDir
    Path dir;

    @Test
    @Timeout(90)
    void servesTheDirectoryAndRefusesToClimbOutOfIt() throws Exception {
        Path www = Files.createDirectories(dir.resolve("www"));
        byte[] content = new byte[300_000];
        new Random(3).nextBytes(content);
        Files.write(www.resolve("big.bin"), content);
        Files.writeString(dir.resolve("secret.txt"), "outside the root");
        List<String> cmd = new ArrayList<>(List.of(System.getProperty("m0.test.java", "java"),
                "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xmx64m", "-cp", System.getProperty("java.class.path"),
                "m0.server.cli.M0serve", "--bind", "127.0.0.1:0", "--workers", "1", "--app", StaticFilesApp.class.getName()));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectError(dir.resolve("err").toFile());
        pb.environment().put("M0_STATIC_ROOT", www.toString());
        pb.environment().put("M0_WORKER_JAVA_OPTS", "-XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xmx128m -XX:-UsePerfData");
        Process p = pb.start();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            CompletableFuture<Integer> port = CompletableFuture.supplyAsync(() -> {
                int found = -1;
                try {
                    for (String line; (line = out.readLine()) != null; ) {
                        Matcher m = LISTENING.matcher(line);
                        if (m.find()) {
                            found = Integer.parseInt(m.group(1));
                        }
                        if (line.contains("m0serve: ready:")) {
                            return found;
                        }
                    }
                } catch (java.io.IOException e) {
                    // exited: reported below with its stderr
                }
                return -1;
            });
            int at = port.get(60, TimeUnit.SECONDS);
            assertTrue(at > 0, "not ready; stderr: " + Files.readString(dir.resolve("err")));
            try (Socket c = new Socket(InetAddress.getLoopbackAddress(), at)) {
                c.setSoTimeout(20_000);
                String[] head = new String[1];
                byte[] body = ask(c, "/big.bin", head);
                assertTrue(head[0].startsWith("HTTP/1.1 200 ") && head[0].contains("Content-Length: 300000"), head[0]);
                assertArrayEquals(content, body);
                for (String climb : List.of("/../secret.txt", "/%2e%2e/secret.txt", "/x/../../secret.txt")) {
                    byte[] refused = ask(c, climb, head);
                    assertTrue(head[0].startsWith("HTTP/1.1 400 "), climb + ": " + head[0]);
                    assertFalse(new String(refused, StandardCharsets.ISO_8859_1).contains("outside the root"));
                }
                rangesAndConditions(c, p.pid(), content);
            }
        } finally {
            List<ProcessHandle> all = new ArrayList<>(p.descendants().toList());
            all.add(p.toHandle());
            all.forEach(ProcessHandle::destroyForcibly);
            for (ProcessHandle h : all) {
                h.onExit().get(10, TimeUnit.SECONDS);
            }
        }
    }

    /**
     * What a video player or a resuming download does: a slice validated by the ETag (206, by
     * sendfile from its offset: the worker's counter grows by the slice), the whole file when the
     * ETag is stale, 416 past the end, and 304 for a copy it holds.
     */
    private static void rangesAndConditions(Socket c, long supervisor, byte[] content) throws Exception {
        String[] head = new String[1];
        ask(c, "/big.bin", head);
        String etag = field(head[0], "ETag");
        assertTrue(head[0].contains("\r\nAccept-Ranges: bytes\r\n") && field(head[0], "Last-Modified") != null
                && etag != null, head[0]);
        long before = sendfileBytes(supervisor, 0);
        byte[] slice = ask(c, "/big.bin", head, "Range: bytes=100000-100999", "If-Range: " + etag);
        assertTrue(head[0].startsWith("HTTP/1.1 206 ") && head[0].contains("\r\nContent-Range: bytes 100000-100999/300000\r\n"), head[0]);
        assertArrayEquals(java.util.Arrays.copyOfRange(content, 100_000, 101_000), slice, "the file's slice");
        assertEquals(before + 1000, sendfileBytes(supervisor, before + 1000), "the slice went by sendfile(2)");
        assertArrayEquals(content, ask(c, "/big.bin", head, "Range: bytes=0-9", "If-Range: \"stale\""));
        assertTrue(head[0].startsWith("HTTP/1.1 200 "), "a changed file starts over: " + head[0]);
        ask(c, "/big.bin", head, "Range: bytes=300000-");
        assertTrue(head[0].startsWith("HTTP/1.1 416 ") && head[0].contains("\r\nContent-Range: bytes */300000\r\n"), head[0]);
        assertEquals(0, ask(c, "/big.bin", head, "If-None-Match: " + etag).length);
        assertTrue(head[0].startsWith("HTTP/1.1 304 ") && etag.equals(field(head[0], "ETag")), head[0]);
    }

    private static String field(String head, String name) {
        int at = head.indexOf("\r\n" + name + ": ");
        return at < 0 ? null : head.substring(at + name.length() + 4, head.indexOf("\r\n", at + 2));
    }

    /** The workers' SENDFILE_BYTES once it reaches {@code want} (published at a pass's end), bounded. */
    private static long sendfileBytes(long supervisor, long want) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (true) {
            long sum = 0;
            for (m0.server.stats.WorkerCounters w : m0.server.stats.WorkerCounters.ofLiveWorkers(supervisor).values()) {
                sum += w.word(m0.server.stats.WorkerCounters.SENDFILE_BYTES);
            }
            if (sum >= want || System.nanoTime() - until > 0) return sum;
            Thread.sleep(20); // polling a counter the worker publishes, bounded
        }
    }

    /** One request on a kept connection: its head into head[0], its body (Content-Length) returned. */
    private static byte[] ask(Socket c, String target, String[] head, String... headers) throws Exception {
        String more = headers.length == 0 ? "" : String.join("\r\n", headers) + "\r\n";
        c.getOutputStream().write(("GET " + target + " HTTP/1.1\r\nHost: t\r\n" + more + "\r\n").getBytes(StandardCharsets.US_ASCII));
        InputStream in = c.getInputStream();
        StringBuilder sb = new StringBuilder();
        while (!sb.toString().endsWith("\r\n\r\n")) {
            int ch = in.read();
            assertTrue(ch >= 0, "closed in the head: " + sb);
            sb.append((char) ch);
        }
        head[0] = sb.toString();
        int cl = head[0].indexOf("Content-Length: ");
        int length = cl < 0 ? 0 : Integer.parseInt(head[0].substring(cl + 16, head[0].indexOf("\r\n", cl)));
        byte[] body = in.readNBytes(length);
        assertEquals(length, body.length);
        return body;
    }
}
