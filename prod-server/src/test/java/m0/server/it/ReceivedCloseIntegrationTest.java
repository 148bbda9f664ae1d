package m0.server.it;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import m0.server.stats.WorkerCounters;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A received connection's close must end the receiver's epoll registration even while its
 * sender still holds its own copy (docs/adr/0034). The sender closes that copy just after the
 * sendmsg; preempted between the two (4 workers on 2 cores: it happens), the socket outlives
 * the receiver's close, and a registration left in place reports the client's FIN,
 * level-triggered, at every wait: the receiver spins until the sender runs again.
 *
 * <p>{@code --dev-hold-sent-copy-ms} makes every sender hold its copy 1 s. Keep-alive
 * connections held on the worker the kernel gives new connections to make share hand the next
 * ones to the other; once one was handed off and answered, the client closes it and the
 * receiver's wake-ups over the next 200 ms (inside the hold) are counted. The negative control closes received connections as
 * fresh ones ({@code --dev-keep-received-registered on}): the same count must show the spin.
 */
@Timeout(120)
class ReceivedCloseIntegrationTest {

    private static final int READY_MS = 60_000;
    /** Long enough for the answer, the page poll and the close on a loaded 2-core machine. */
    private static final String HOLD_MS = "1000";
    /** The window counted, inside the hold. */
    private static final long WINDOW_MS = 200;
    /** An idle loop wakes a few times in 200 ms; a spinning one thousands of times. */
    private static final long SPIN = 500;
    private static final int ATTEMPTS = 40;

    @Test
    void aReceivedConnectionsCloseLeavesNoRegistrationBehind() throws Exception {
        long wakeups = receiverWakeupsAfterClose(false);
        assertTrue(wakeups < SPIN, "the receiver woke " + wakeups + " times in " + WINDOW_MS
                + " ms after its client closed: a registration outlived the close");
    }

    @Test
    void closedAsAFreshOneTheReceiverSpinsWhileItsSenderHoldsACopy() throws Exception {
        long wakeups = receiverWakeupsAfterClose(true);
        assertTrue(wakeups >= SPIN, "the negative control woke only " + wakeups + " times in "
                + WINDOW_MS + " ms: the check cannot see the spin");
    }

    private static long receiverWakeupsAfterClose(boolean keepRegistered) throws Exception {
        List<String> dev = new ArrayList<>(List.of("--dev-hold-sent-copy-ms", HOLD_MS));
        if (keepRegistered) {
            dev.addAll(List.of("--dev-keep-received-registered", "on"));
        }
        List<Socket> held = new ArrayList<>();
        try (ServerProcess s = ServerProcess.startWith(dev, "--workers", "2", "--accept-policy", "share",
                "--rebalance=off")) {
            PageWatch page = PageWatch.of(s);
            page.awaitReady(READY_MS);
            for (int k = 0; k < ATTEMPTS; k++) {
                long[] received = {page.read().worker(0).received(), page.read().worker(1).received()};
                try (Socket c = connect(s)) {
                    // The sender is parked inside the hand-off and publishes its sent count only
                    // at its pass end; the receiver publishes its received count at its own,
                    // which comes with the answer's.
                    int answered = s.workerPid(0) == pid(ask(c, true)) ? 0 : 1;
                    if (!receivedSince(page, answered, received[answered])) {
                        // Its acceptor kept it (the kernel wakes the worker it favours; share
                        // keeps a tie): a keep-alive connection held open makes that worker the
                        // heavier one, so that the next it accepts is handed off.
                        Socket heavier = connect(s);
                        held.add(heavier);
                        ask(heavier, false);
                        continue;
                    }
                    WorkerCounters receiver = WorkerCounters.attach(s.workerPid(answered)).orElseThrow();
                    long before = receiver.word(WorkerCounters.WAKEUPS);
                    c.close(); // the client's FIN, while the sender still holds its copy
                    Thread.sleep(WINDOW_MS); // the window observed, not a synchronisation
                    long woke = receiver.word(WorkerCounters.WAKEUPS) - before;
                    System.out.println("keepRegistered=" + keepRegistered + ": the receiver woke " + woke
                            + " times in the " + WINDOW_MS + " ms after its client closed (attempt " + (k + 1)
                            + ", " + held.size() + " held)");
                    return woke;
                }
            }
            throw new AssertionError("no connection handed off in " + ATTEMPTS + " attempts");
        } finally {
            for (Socket h : held) {
                h.close();
            }
        }
    }

    private static boolean receivedSince(PageWatch page, int worker, long before) throws InterruptedException {
        long deadline = System.nanoTime() + 100_000_000L;
        while (page.read().worker(worker).received() <= before) {
            if (System.nanoTime() - deadline >= 0) {
                return false;
            }
            Thread.sleep(1); // polling the page, bounded
        }
        return true;
    }

    /** /pid's body is "PID INDEX". */
    private static long pid(String body) {
        return Long.parseLong(body.trim().split(" ")[0]);
    }

    private static Socket connect(ServerProcess s) throws IOException {
        Socket c = new Socket();
        c.connect(new InetSocketAddress("127.0.0.1", s.port), 5_000);
        c.setSoTimeout(10_000);
        return c;
    }

    /** GET /pid on {@code c}; the body, read by its Content-Length (not to EOF: the FIN is ours to send). */
    private static String ask(Socket c, boolean close) throws IOException {
        OutputStream out = c.getOutputStream();
        out.write(("GET /pid HTTP/1.1\r\nHost: t\r\n" + (close ? "Connection: close\r\n" : "") + "\r\n")
                .getBytes(StandardCharsets.ISO_8859_1));
        out.flush();
        InputStream in = c.getInputStream();
        ByteArrayOutputStream head = new ByteArrayOutputStream();
        while (!head.toString(StandardCharsets.ISO_8859_1).endsWith("\r\n\r\n")) {
            int b = in.read();
            if (b < 0) {
                throw new IOException("EOF inside the head: " + head.toString(StandardCharsets.ISO_8859_1));
            }
            head.write(b);
        }
        int length = -1;
        for (String line : head.toString(StandardCharsets.ISO_8859_1).split("\r\n")) {
            if (line.toLowerCase().startsWith("content-length:")) {
                length = Integer.parseInt(line.substring(15).trim());
            }
        }
        if (length < 0) {
            throw new IOException("no Content-Length: " + head.toString(StandardCharsets.ISO_8859_1));
        }
        byte[] body = in.readNBytes(length);
        return new String(body, StandardCharsets.ISO_8859_1);
    }
}
