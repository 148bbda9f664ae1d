package m0.server.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import m0.server.stats.WorkerCounters;
import m0.server.tls.TestCertificates;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * File answers on the real binary (ADR 0071): the bytes (sha-256), the Content-Length, the access
 * log's bytes, the keep-alive connection reused after a file, a slow reader, a file cut short or
 * removed while it is sent, sendfile seen in the worker's counters, and TLS (read and wrapped).
 */
@Timeout(180)
class FileAnswersIntegrationTest {

    private static final int MIB = 1 << 20;

    @TempDir
    Path dir;

    private Path files;
    private Path log;

    private ServerProcess start(String... more) throws Exception {
        files = Files.createDirectories(dir.resolve("files"));
        log = dir.resolve("access.log");
        List<String> args = new java.util.ArrayList<>(List.of("--workers", "1", "--app", FilesApp.class.getName(),
                "--access-log", log.toString()));
        args.addAll(List.of(more));
        ServerProcess s = ServerProcess.start(Map.of("M0_TEST_FILES", files.toString()), args.toArray(String[]::new));
        assertNotNull(s.awaitReady(60));
        return s;
    }

    private Path file(String name, int length) throws IOException {
        byte[] b = new byte[length];
        new Random(length).nextBytes(b);
        return Files.write(files.resolve(name), b);
    }

    @Test
    void filesOfOneMibAndFourKibOnOneKeptConnectionBySendfileWithTheirBytesLogged() throws Exception {
        try (ServerProcess s = start()) {
            Path big = file("big.bin", MIB);
            Path small = file("small.bin", 4096);
            try (Socket c = new Socket(InetAddress.getLoopbackAddress(), s.port)) {
                c.setSoTimeout(20_000);
                for (Path f : List.of(big, small, big)) {
                    Answer a = ask(c, "/files/" + f.getFileName(), Integer.MAX_VALUE);
                    assertTrue(a.head.startsWith("HTTP/1.1 200 "), a.head);
                    assertTrue(a.head.contains("Content-Length: " + Files.size(f) + "\r\n"), a.head);
                    assertEquals(sha(Files.readAllBytes(f)), sha(a.body), f + ": the bytes");
                }
                Answer missing = ask(c, "/files/none.bin", Integer.MAX_VALUE);
                assertTrue(missing.head.startsWith("HTTP/1.1 404 "), "and the same connection answers on: " + missing.head);
            }
            List<String> lines = awaitLines(log, 4);
            assertTrue(lines.get(0).contains("\"GET /files/big.bin HTTP/1.1\" 200 " + MIB + " "), lines.get(0));
            assertTrue(lines.get(1).contains("\"GET /files/small.bin HTTP/1.1\" 200 4096 "), lines.get(1));
            assertTrue(lines.get(2).contains("\"GET /files/big.bin HTTP/1.1\" 200 " + MIB + " "), lines.get(2));
            assertTrue(lines.get(3).contains("\"GET /files/none.bin HTTP/1.1\" 404 "), lines.get(3));
            assertTrue(lines.stream().noneMatch(l -> l.endsWith(" cut")), lines.toString());
            assertEquals(2L * MIB + 4096, awaitSendfileBytes(s, 2L * MIB + 4096), "every file byte went by sendfile(2)");
        }
    }

    @Test
    void aSlowReaderGetsEveryByteAndAFileCutShortOrRemovedWhileSentIsHandled() throws Exception {
        try (ServerProcess s = start()) {
            Path slow = file("slow.bin", 16 * MIB); // past what loopback's send buffer takes at once (megabytes)
            try (Socket c = new Socket()) {
                c.setReceiveBufferSize(16 * 1024); // before connect: a small window, so the socket fills
                c.connect(new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), s.port));
                c.setSoTimeout(20_000);
                Answer a = ask(c, "/files/slow.bin", 4096); // reads 4 KiB at a time, pausing: bounded, ~1.3 s
                assertEquals(sha(Files.readAllBytes(slow)), sha(a.body), "a slow reader gets every byte");
            }
            awaitSendfileBytes(s, 16L * MIB);
            long slowCalls = sendfiles(s)[0];
            assertTrue(slowCalls >= 2, "the socket filled and sendfile went again on EPOLLOUT: " + slowCalls + " calls");

            Path shrinks = file("shrinks.bin", 32 * MIB);
            Path removed = file("removed.bin", 4 * MIB);
            byte[] removedBytes = Files.readAllBytes(removed);
            try (Socket c = new Socket()) {
                c.setReceiveBufferSize(16 * 1024);
                c.connect(new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), s.port));
                c.setSoTimeout(20_000);
                send(c, "/files/shrinks.bin");
                InputStream in = c.getInputStream();
                String head = readHead(in);
                assertTrue(head.contains("Content-Length: " + 32 * MIB), head);
                byte[] first = in.readNBytes(64 * 1024);
                assertEquals(64 * 1024, first.length);
                try (FileChannel ch = FileChannel.open(shrinks, StandardOpenOption.WRITE)) {
                    ch.truncate(16 * MIB); // far past what the sockets can hold: the server meets the new end
                }
                long got = first.length + in.transferTo(java.io.OutputStream.nullOutputStream());
                assertEquals(16L * MIB, got, "what the file had, then the close");
            }
            try (Socket c = new Socket()) {
                c.setReceiveBufferSize(16 * 1024);
                c.connect(new java.net.InetSocketAddress(InetAddress.getLoopbackAddress(), s.port));
                c.setSoTimeout(20_000);
                send(c, "/files/removed.bin");
                InputStream in = c.getInputStream();
                readHead(in);
                byte[] first = in.readNBytes(64 * 1024);
                Files.delete(removed); // the open descriptor keeps the file: it is sent whole
                byte[] rest = in.readNBytes(4 * MIB - first.length);
                ByteArrayOutputStream all = new ByteArrayOutputStream();
                all.write(first);
                all.write(rest);
                assertEquals(sha(removedBytes), sha(all.toByteArray()), "a removed file is sent whole");
            }
            List<String> lines = awaitLines(log, 3);
            assertTrue(lines.get(0).contains("\"GET /files/slow.bin HTTP/1.1\" 200 " + 16 * MIB + " ")
                    && !lines.get(0).endsWith(" cut"), lines.get(0));
            assertTrue(lines.get(1).contains("\"GET /files/shrinks.bin HTTP/1.1\" 200 " + 16 * MIB + " ")
                    && lines.get(1).endsWith(" cut"), "the bytes sent, marked cut: " + lines.get(1));
            assertTrue(lines.get(2).contains("\"GET /files/removed.bin HTTP/1.1\" 200 " + 4 * MIB + " ")
                    && !lines.get(2).endsWith(" cut"), lines.get(2));
            assertTrue(s.stderr().isEmpty() || !s.stderr().contains("Exception"), s.stderr());
        }
    }

    @Test
    void aRangeIs206WithItsSliceBySendfileFromItsOffsetAnd416AndAStaleIfRangeGetsTheWholeFile() throws Exception {
        try (ServerProcess s = start()) {
            byte[] all = Files.readAllBytes(file("range.bin", MIB));
            try (Socket c = new Socket(InetAddress.getLoopbackAddress(), s.port)) {
                c.setSoTimeout(20_000);
                Answer mid = ask(c, "/files/range.bin", "Range: bytes=1000-525287");
                assertTrue(mid.head.startsWith("HTTP/1.1 206 ") && mid.head.contains("Content-Range: bytes 1000-525287/" + MIB + "\r\n")
                        && mid.head.contains("Accept-Ranges: bytes\r\n"), mid.head);
                assertEquals(sha(java.util.Arrays.copyOfRange(all, 1000, 525_288)), sha(mid.body), "the slice's bytes");
                Answer end = ask(c, "/files/range.bin", "Range: bytes=-4096");
                assertTrue(end.head.contains("Content-Range: bytes " + (MIB - 4096) + "-" + (MIB - 1) + "/" + MIB), end.head);
                assertEquals(sha(java.util.Arrays.copyOfRange(all, MIB - 4096, MIB)), sha(end.body));
                Answer past = ask(c, "/files/range.bin", "Range: bytes=" + MIB + "-");
                assertTrue(past.head.startsWith("HTTP/1.1 416 ") && past.head.contains("Content-Range: bytes */" + MIB + "\r\n"), past.head);
                Answer stale = ask(c, "/files/range.bin", "Range: bytes=0-9", "If-Range: \"an-old-version\"");
                assertTrue(stale.head.startsWith("HTTP/1.1 200 "), stale.head);
                assertEquals(sha(all), sha(stale.body), "a stale If-Range: the whole file");
            }
            List<String> lines = awaitLines(log, 4);
            assertTrue(lines.get(0).contains("\"GET /files/range.bin HTTP/1.1\" 206 524288 "), lines.get(0));
            assertTrue(lines.get(1).contains("\"GET /files/range.bin HTTP/1.1\" 206 4096 "), lines.get(1));
            assertTrue(lines.get(2).contains("\"GET /files/range.bin HTTP/1.1\" 416 "), lines.get(2));
            assertTrue(lines.get(3).contains("\"GET /files/range.bin HTTP/1.1\" 200 " + MIB + " "), lines.get(3));
            long want = 524_288L + 4096 + MIB;
            assertEquals(want, awaitSendfileBytes(s, want), "the slices went by sendfile(2), only their bytes");
            assertTrue(sendfiles(s)[0] >= 3, "a sendfile call per file answer at least: " + sendfiles(s)[0]);
        }
    }

    @Test
    void onTlsAFileIsReadAndWrappedNotSentByFile() throws Exception {
        TestCertificates rsa = TestCertificates.make("RSA");
        try (ServerProcess s = start("--tls-cert", rsa.cert.toString(), "--tls-key", rsa.key.toString())) {
            Path big = file("tls.bin", MIB);
            HttpClient client = HttpClient.newBuilder().sslContext(rsa.clientContext())
                    .version(HttpClient.Version.HTTP_1_1).connectTimeout(Duration.ofSeconds(10)).build();
            HttpResponse<byte[]> r = client.send(HttpRequest.newBuilder(URI.create("https://localhost:" + s.port + "/files/tls.bin"))
                    .timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofByteArray());
            assertEquals(200, r.statusCode());
            assertEquals(sha(Files.readAllBytes(big)), sha(r.body()));
            List<String> lines = awaitLines(log, 1);
            assertTrue(lines.get(0).contains("\"GET /files/tls.bin HTTP/1.1\" 200 " + MIB + " "), lines.get(0));
            HttpResponse<byte[]> part = client.send(HttpRequest.newBuilder(URI.create("https://localhost:" + s.port + "/files/tls.bin"))
                    .header("Range", "bytes=70000-").timeout(Duration.ofSeconds(30)).build(), HttpResponse.BodyHandlers.ofByteArray());
            assertEquals(206, part.statusCode());
            assertEquals(sha(java.util.Arrays.copyOfRange(Files.readAllBytes(big), 70_000, MIB)), sha(part.body()),
                    "a slice read from its offset and wrapped");
            assertTrue(awaitLines(log, 2).get(1).contains(" 206 " + (MIB - 70_000) + " "), awaitLines(log, 2).get(1));
            assertEquals(0, sendfiles(s)[1], "no sendfile on TLS: the bytes must be encrypted here");
        }
    }

    // ---- helpers

    private record Answer(String head, byte[] body) {
    }

    private static void send(Socket c, String path, String... headers) throws IOException {
        String more = headers.length == 0 ? "" : String.join("\r\n", headers) + "\r\n";
        c.getOutputStream().write(("GET " + path + " HTTP/1.1\r\nHost: t\r\n" + more + "\r\n").getBytes(StandardCharsets.US_ASCII));
    }

    /** One answer to a request with these headers, its body read by its Content-Length. */
    private static Answer ask(Socket c, String path, String... headers) throws IOException {
        send(c, path, headers);
        InputStream in = c.getInputStream();
        String head = readHead(in);
        int cl = head.indexOf("Content-Length: ");
        int length = Integer.parseInt(head.substring(cl + 16, head.indexOf("\r\n", cl)));
        byte[] body = in.readNBytes(length);
        assertEquals(length, body.length, "closed in the body");
        return new Answer(head, body);
    }

    /** One answer on a kept connection; the body read {@code step} bytes at a time (a pause every 64 reads when small). */
    private static Answer ask(Socket c, String path, int step) throws Exception {
        send(c, path);
        InputStream in = c.getInputStream();
        String head = readHead(in);
        int cl = head.indexOf("Content-Length: ");
        int length = Integer.parseInt(head.substring(cl + 16, head.indexOf("\r\n", cl)));
        ByteArrayOutputStream body = new ByteArrayOutputStream();
        byte[] b = new byte[Math.min(step, 64 * 1024)];
        for (int reads = 0; body.size() < length; reads++) {
            int n = in.read(b, 0, Math.min(b.length, length - body.size()));
            assertTrue(n > 0, "closed after " + body.size() + " of " + length);
            body.write(b, 0, n);
            if (step < 64 * 1024 && reads % 64 == 63) {
                Thread.sleep(20); // the slow reader's pace (not a synchronisation)
            }
        }
        return new Answer(head, body.toByteArray());
    }

    private static String readHead(InputStream in) throws IOException {
        StringBuilder sb = new StringBuilder();
        while (!sb.toString().endsWith("\r\n\r\n")) {
            int ch = in.read();
            assertTrue(ch >= 0, "closed in the head: " + sb);
            sb.append((char) ch);
        }
        return sb.toString();
    }

    private static String sha(byte[] b) throws Exception {
        return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(b));
    }

    /** The live workers' SENDFILES and SENDFILE_BYTES, summed. */
    private static long[] sendfiles(ServerProcess s) {
        long[] sum = new long[2];
        for (WorkerCounters c : WorkerCounters.ofLiveWorkers(s.pid()).values()) {
            sum[0] += c.word(WorkerCounters.SENDFILES);
            sum[1] += c.word(WorkerCounters.SENDFILE_BYTES);
        }
        return sum;
    }

    /** SENDFILE_BYTES once it reaches {@code want} (published at the worker's pass end), bounded. */
    private static long awaitSendfileBytes(ServerProcess s, long want) throws Exception {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        long got;
        while ((got = sendfiles(s)[1]) < want && System.nanoTime() - until < 0) {
            Thread.sleep(20); // polling a counter the worker publishes, bounded
        }
        return got;
    }

    private static List<String> awaitLines(Path log, int n) throws Exception {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        List<String> lines;
        while ((lines = Files.exists(log) ? Files.readAllLines(log) : List.of()).size() < n) {
            assertTrue(System.nanoTime() - until < 0, "access log: " + lines);
            Thread.sleep(10); // polling a file a process writes, bounded
        }
        return lines;
    }
}
