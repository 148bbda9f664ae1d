package m0.server.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import m0.server.jnr.Processes;
import m0.server.tls.TestCertificates;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code --tls-ticket-key} (ADR 0073's addendum), on the real binary: two servers (two machines
 * behind one balancer) given the same key file open each other's tickets, and with different
 * files they do not. The operator's rotation (a new first file, the old key second, SIGHUP) keeps
 * old tickets resuming while new ones name the new key. A bad file is one line: exit 2 at start,
 * an abandoned reload with the running keys kept at SIGHUP.
 */
@Timeout(300)
class TlsTicketFileIntegrationTest {

    private static final int WAIT_SECONDS = 60;
    private static final SecureRandom RANDOM = new SecureRandom();
    private static TestCertificates rsa;
    private static SessionClient client;

    @TempDir
    Path dir;

    @BeforeAll
    static void certificate() throws Exception {
        rsa = TestCertificates.make("RSA");
        client = SessionClient.find();
    }

    @Test
    void twoServersWithTheSameKeyFileResumeEachOthersTickets() throws Exception {
        Path key = keyFile("shared.key");
        Files.setPosixFilePermissions(key, PosixFilePermissions.fromString("rw-r--r--"));
        try (ServerProcess a = server(key.toString()); ServerProcess b = server(key.toString())) {
            Conn fromA = connect(a, null);
            assertFalse(fromA.conn.reused());
            assertEquals(name(key), client.keyName(fromA.session), "the ticket names the file's key");
            Conn onB = connect(b, fromA.session);
            assertEquals(b.workerPid(0), onB.conn.pid());
            assertTrue(onB.conn.reused(), "a ticket sealed on one machine resumes on the other: " + onB.conn.output());
            Conn backOnA = connect(a, onB.session);
            assertTrue(backOnA.conn.reused(), "and the other way: " + backOnA.conn.output());
            for (ServerProcess s : List.of(a, b)) {
                String err = s.stderr();
                assertEquals(1, err.lines().filter(l -> l.equals("m0serve: --tls-ticket-key: " + key
                        + " is readable by every user, who could open this server's tickets; chmod o-r")).count(), err);
                assertFalse(err.contains(name(key)), "no key byte in a log line: " + err);
                assertTrue(err.contains("TLS by BoringSSL"), err);
            }
        }
    }

    /** Negative control: each machine its own file; a ticket resumes only where it was sealed. */
    @Test
    void twoServersWithDifferentKeyFilesDoNot() throws Exception {
        Path k1 = keyFile("one.key");
        Path k2 = keyFile("two.key");
        try (ServerProcess a = server(k1.toString()); ServerProcess b = server(k2.toString())) {
            Conn fromA = connect(a, null);
            Conn onB = connect(b, fromA.session);
            assertFalse(onB.conn.reused(), "another machine's key does not open the ticket: " + onB.conn.output());
            assertEquals(name(k2), client.keyName(onB.session), "B seals with its own file's key");
            assertTrue(connect(a, fromA.session).conn.reused(), "the ticket itself was good: it resumes where it was sealed");
            assertFalse(a.stderr().contains("readable by every user"), a.stderr());
        }
    }

    /**
     * The operator's rotation: a new key in the first file, the old one moved to the second, SIGHUP.
     * An old ticket still resumes and the ticket then issued names the new key. The negative
     * control rotates without keeping the old key: the old ticket no longer resumes.
     */
    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void aSighupReadsTheFilesAgainAndTheOldKeySecondStillOpensOldTickets(boolean keepOld) throws Exception {
        Path current = keyFile("current.key");
        Path previous = keyFile("previous.key");
        try (ServerProcess s = server(current + "," + previous)) {
            Conn first = connect(s, null);
            String oldName = name(current);
            assertEquals(oldName, client.keyName(first.session));

            byte[] old = Files.readAllBytes(current);
            if (keepOld) {
                Files.write(previous, old);
            } else {
                Files.write(previous, random());
            }
            Files.write(current, random());
            String newName = name(current);
            assertTrue(Processes.kill((int) s.pid(), 1 /* SIGHUP */));
            ServerLog.await("the reload begun", () -> ServerLog.of(s).contains("m0serve: SIGHUP: reloading 1 worker(s)"), s, WAIT_SECONDS);

            Conn again = connect(s, first.session);
            assertEquals(keepOld, again.conn.reused(), "the ticket sealed with the old key resumes only while a file keeps it: "
                    + again.conn.output());
            assertEquals(newName, client.keyName(again.session), "the ticket issued now names the new first key");
            assertFalse(ServerLog.of(s).contains("abandoned"), ServerLog.of(s));
        }
    }

    @Test
    void aBadFileAtStartIsOneLineAndExit2() throws Exception {
        Path good = keyFile("good.key");
        Path nginx256 = dir.resolve("nginx.key");
        Files.write(nginx256, Arrays.copyOf(random(), 80));
        Path missing = dir.resolve("missing.key");
        assertStartRefused(good + "," + nginx256, "m0serve: --tls-ticket-key: " + nginx256 + " is 80 bytes, nginx's AES-256 "
                + "format; m0serve's BoringSSL seals tickets with AES-128: make a 48-byte key with 'openssl rand 48 > "
                + nginx256 + "' (see --help)");
        assertStartRefused(missing.toString(), "m0serve: --tls-ticket-key: " + missing + ": no such file (see --help)");
    }

    /**
     * A file that does not load at SIGHUP (an 80-byte nginx file in its place): one line, the reload
     * abandoned, the old worker serving on with the running keys, so an old ticket still resumes
     * and new tickets still name the old key.
     */
    @Test
    void aBadFileAtSighupAbandonsTheReloadAndKeepsTheRunningKeys() throws Exception {
        Path current = keyFile("current.key");
        try (ServerProcess s = server(current.toString())) {
            long worker = s.workerPid(0);
            Conn first = connect(s, null);
            String oldName = name(current);
            Files.write(current, Arrays.copyOf(random(), 80));
            assertTrue(Processes.kill((int) s.pid(), 1 /* SIGHUP */));
            String abandoned = "keeping the running workers; reload abandoned";
            ServerLog.await("the reload abandoned", () -> ServerLog.of(s).contains(abandoned), s, WAIT_SECONDS);
            List<String> said = ServerLog.of(s).lines().filter(l -> l.contains(current.toString())).toList();
            assertEquals(List.of("m0serve: SIGHUP: --tls-ticket-key: " + current + " is 80 bytes, nginx's AES-256 format; "
                    + "m0serve's BoringSSL seals tickets with AES-128: make a 48-byte key with 'openssl rand 48 > " + current
                    + "'; keeping the running ticket keys; " + abandoned), said);
            Conn again = connect(s, first.session);
            assertEquals(worker, again.conn.pid(), "the old worker serves on");
            assertTrue(again.conn.reused(), "the running keys still open the ticket: " + again.conn.output());
            assertEquals(oldName, client.keyName(again.session), "and still seal new ones");
            assertEquals(List.of(worker), s.descendants().stream().map(ProcessHandle::pid).toList());
        }
    }

    /**
     * BoringSSL forced off: the JDK's engine has no ticket-key API, so the operator's files cannot
     * apply. The worker serves (a line, not an exit) and says the flag is not applied. Negative
     * control: the same fallback without --tls-ticket-key does not mention it.
     */
    @ParameterizedTest
    @ValueSource(booleans = {true, false})
    void aTicketKeyTheJdksEngineCannotApplyIsSaidAndTheServerServes(boolean ticketKey) throws Exception {
        Path key = keyFile("jdk.key");
        List<String> args = new java.util.ArrayList<>(List.of("--workers", "1", "--tls-cert", rsa.cert.toString(),
                "--tls-key", rsa.key.toString(), "--dev-native-fallbacks", "boringssl"));
        if (ticketKey) {
            args.addAll(List.of("--tls-ticket-key", key.toString()));
        }
        try (ServerProcess s = ServerProcess.start(args.toArray(String[]::new))) {
            assertNotNull(s.awaitReady(90), "ready: a line, not an exit");
            assertFalse(connect(s, null).conn.reused(), "served over TLS");
            List<String> said = s.stderr().lines().filter(l -> l.contains("TLS on the JDK's SSLEngine")).toList();
            assertEquals(1, said.size(), s.stderr());
            assertEquals(ticketKey, said.get(0).endsWith(
                    "; --tls-ticket-key is not applied: the JDK's engine has no ticket-key API"), said.get(0));
        }
    }

    // ---- helpers

    private record Conn(SessionClient.Conn conn, Path session) {
    }

    private Conn connect(ServerProcess s, Path in) throws Exception {
        Path out = Files.createTempFile(dir, "session-", ".pem");
        return new Conn(client.connect(s.port, in, out), out);
    }

    private static ServerProcess server(String keys) throws Exception {
        ServerProcess s = ServerProcess.start("--workers", "1", "--tls-cert", rsa.cert.toString(), "--tls-key",
                rsa.key.toString(), "--tls-ticket-key", keys);
        try {
            assertNotNull(s.awaitReady(90), "ready");
            return s;
        } catch (RuntimeException | Error e) {
            s.close();
            throw e;
        }
    }

    private static byte[] random() {
        byte[] b = new byte[48];
        RANDOM.nextBytes(b);
        return b;
    }

    private Path keyFile(String name) throws Exception {
        Path p = dir.resolve(name);
        Files.write(p, random());
        Files.setPosixFilePermissions(p, PosixFilePermissions.fromString("rw-------"));
        return p;
    }

    /** The key name a file gives its tickets: its first 16 bytes, hex. */
    private static String name(Path key) throws Exception {
        return HexFormat.of().formatHex(Files.readAllBytes(key), 0, 16);
    }

    private void assertStartRefused(String keys, String line) throws Exception {
        Process p = new ProcessBuilder(ServerProcess.command("--bind", "127.0.0.1:0", "--tls-cert", rsa.cert.toString(),
                "--tls-key", rsa.key.toString(), "--tls-ticket-key", keys)).redirectErrorStream(true).start();
        try {
            assertTrue(p.waitFor(WAIT_SECONDS, TimeUnit.SECONDS));
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertEquals(2, p.exitValue(), out);
            assertEquals(line, out.strip(), "one line, nothing listens");
        } finally {
            ServerProcess.kill(p);
        }
    }
}
