package m0.server.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import m0.server.jnr.Clocks;
import m0.server.jnr.Processes;
import m0.server.jnr.UnixDatagram;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The real binary under a stand-in for systemd's notify socket (an abstract AF_UNIX datagram
 * socket this test binds): READY=1 with MAINPID when "ready" is printed; SIGHUP gives
 * RELOADING=1 with MONOTONIC_USEC, then READY=1 when the reload is done; SIGTERM gives
 * STOPPING=1; in that order. Workers do not inherit NOTIFY_SOCKET.
 */
class SystemdNotifyIntegrationTest {

    private static final int SIGHUP = 1;
    private static final Pattern MONOTONIC = Pattern.compile("MONOTONIC_USEC=(\\d+)");

    @Test
    @Timeout(90)
    void readyThenReloadingAndReadyOnSighupThenStoppingOnSigterm() throws Exception {
        String name = "@m0serve-notify-test-" + ProcessHandle.current().pid() + "-" + System.nanoTime();
        List<String> seen = new ArrayList<>();
        try (UnixDatagram systemd = UnixDatagram.bound(name);
             ServerProcess s = ServerProcess.start(Map.of("NOTIFY_SOCKET", name), "--workers", "1")) {
            String ready = await(systemd, "READY=1", seen);
            assertTrue(ready.contains("MAINPID=" + s.pid()), ready);
            assertTrue(ready.contains("STATUS=1 worker(s) live"), ready);
            assertNotNull(s.awaitReady(5), "ready printed with READY=1");
            for (ProcessHandle worker : s.descendants()) {
                String env = new String(Files.readAllBytes(Path.of("/proc/" + worker.pid() + "/environ")));
                assertFalse(env.contains("NOTIFY_SOCKET="), "a worker inherited NOTIFY_SOCKET");
            }

            long before = Clocks.monotonicMicros();
            assertTrue(Processes.kill((int) s.pid(), SIGHUP));
            String reloading = await(systemd, "RELOADING=1", seen);
            Matcher m = MONOTONIC.matcher(reloading);
            assertTrue(m.find(), reloading);
            long at = Long.parseLong(m.group(1));
            assertTrue(at >= before && at <= Clocks.monotonicMicros(), "MONOTONIC_USEC " + at + " not on CLOCK_MONOTONIC");
            await(systemd, "READY=1", seen);

            assertTrue(Processes.kill((int) s.pid(), Processes.SIGTERM));
            await(systemd, "STOPPING=1", seen);
            assertTrue(s.process.waitFor(30, TimeUnit.SECONDS), "stopped");
            assertEquals(0, s.process.exitValue());
        }
        System.out.println("notify messages: " + seen);
    }

    /**
     * The next message that is more than a STATUS= line; it must hold {@code expected}: a
     * lifecycle message out of order fails here.
     */
    private static String await(UnixDatagram socket, String expected, List<String> seen) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() - until < 0) {
            String msg = socket.receive();
            if (msg == null) {
                Thread.sleep(10); // polling a non-blocking socket, bounded by the deadline
                continue;
            }
            seen.add(msg.replace('\n', ' '));
            if (msg.startsWith("STATUS=")) {
                continue;
            }
            assertTrue(msg.contains(expected), "expected " + expected + " next, got: " + msg + "; so far " + seen);
            return msg;
        }
        throw new AssertionError("no " + expected + " within 60 s; got " + seen);
    }
}
