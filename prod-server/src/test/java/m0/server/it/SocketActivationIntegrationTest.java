package m0.server.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.DatagramPacket;
import java.net.DatagramSocket;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Socket activation through Debian's real {@code systemd-socket-activate}: it binds the port,
 * waits for the first connection, then execs m0serve with the listener on descriptor 3 and
 * LISTEN_PID/LISTEN_FDS/LISTEN_FDNAMES set. m0serve must serve on it (that first connection
 * included), hand it to its worker, and keep LISTEN_* from it; a datagram socket in its
 * place is a one-line error and exit 2.
 */
class SocketActivationIntegrationTest {

    private static final String ACTIVATE = "/usr/bin/systemd-socket-activate";

    @Test
    @Timeout(90)
    void servesOnTheListenerSystemdHandsIt() throws Exception {
        requireActivate();
        int port = freePort();
        // The activator execs m0serve only once a client knocks: this one, served by a worker.
        CompletableFuture<Http.Response> first = CompletableFuture.supplyAsync(() -> request(port, "/pid"));
        List<String> wrapper = List.of(ACTIVATE, "-l", "127.0.0.1:" + port, "--fdname=http");
        try (ServerProcess s = ServerProcess.start(wrapper, Map.of(), "--workers", "1")) {
            assertEquals(port, s.port, "m0serve reports the adopted listener's port: " + s.banner);
            Http.Response r = first.get(60, TimeUnit.SECONDS);
            assertEquals(200, r.status(), r.toString());
            s.awaitReady(60);
            Http.Response again = request(port, "/");
            assertEquals(200, again.status());
            for (ProcessHandle worker : s.descendants()) {
                String env = Files.readString(Path.of("/proc/" + worker.pid() + "/environ"));
                assertFalse(env.contains("LISTEN_FDS=") || env.contains("LISTEN_PID="), "a worker inherited LISTEN_*");
            }
        }
    }

    @Test
    @Timeout(60)
    void aDatagramSocketOnDescriptorThreeIsAOneLineErrorAndExitTwo() throws Exception {
        requireActivate();
        int port = freePort();
        List<String> cmd = new ArrayList<>(List.of(ACTIVATE, "-d", "-l", "127.0.0.1:" + port));
        cmd.addAll(ServerProcess.command("--bind", "127.0.0.1:0"));
        Path err = Files.createTempFile("m0serve-activate-", ".err");
        Process p = new ProcessBuilder(cmd).redirectError(err.toFile()).redirectOutput(ProcessBuilder.Redirect.DISCARD)
                .start();
        try (DatagramSocket knock = new DatagramSocket()) {
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(45);
            byte[] hello = {1};
            // The activator binds, then waits for a datagram before it execs m0serve.
            while (!p.waitFor(200, TimeUnit.MILLISECONDS) && System.nanoTime() - until < 0) {
                knock.send(new DatagramPacket(hello, 1, InetAddress.getLoopbackAddress(), port));
            }
            assertFalse(p.isAlive(), "m0serve did not exit");
            String stderr = Files.readString(err);
            assertEquals(2, p.exitValue(), stderr);
            List<String> ours = stderr.lines().filter(l -> l.startsWith("m0serve:") && !l.contains("class-data")).toList();
            assertEquals(1, ours.size(), stderr);
            assertTrue(ours.get(0).contains("not a listening TCP stream socket"), ours.get(0));
        } finally {
            ServerProcess.kill(p);
            Files.deleteIfExists(err);
        }
    }

    private static void requireActivate() {
        org.junit.jupiter.api.Assumptions.assumeTrue(Files.isExecutable(Path.of(ACTIVATE)) || "true".equals(System.getenv("CI")),
                ACTIVATE + " missing (package systemd)");
    }

    /** A port free a moment ago: the activator must bind it itself. */
    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }

    /** One GET, retried while the port is not bound yet, for up to 45 s. */
    private static Http.Response request(int port, String path) {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(45);
        for (;;) {
            try (Http h = new Http(port, 45_000)) {
                h.send(Http.get(path));
                return h.read();
            } catch (IOException e) {
                if (System.nanoTime() - until >= 0) {
                    throw new IllegalStateException("no answer on " + port, e);
                }
                try {
                    Thread.sleep(50); // the activator has not bound yet: retry, bounded
                } catch (InterruptedException ie) {
                    throw new IllegalStateException(ie);
                }
            }
        }
    }
}
