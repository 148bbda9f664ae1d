package m0.server.it;

import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Waiting, bounded, on what a server does or writes to its stderr (its log); a failure carries the log. */
final class ServerLog {

    private ServerLog() {
    }

    /** The server's stderr so far, or "" if it cannot be read (for failure messages). */
    static String of(ServerProcess s) {
        try {
            return s.stderr();
        } catch (IOException e) {
            return "";
        }
    }

    /** Polls {@code condition} for at most {@code seconds}; fails with the server's log. */
    static void await(String what, BooleanSupplier condition, ServerProcess s, long seconds) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline >= 0) {
                throw new AssertionError("not " + what + " after " + seconds + " s:\n" + of(s));
            }
            Thread.sleep(20); // polling a condition, bounded by the deadline
        }
    }

    /** The first group of the first stderr line matching {@code p}, polled for at most {@code seconds}. */
    static String awaitGroup(ServerProcess s, Pattern p, long seconds) throws Exception {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        do {
            Matcher m = p.matcher(s.stderr());
            if (m.find()) {
                return m.group(1);
            }
            Thread.sleep(20); // polling the server's log, bounded by the deadline
        } while (System.nanoTime() - until < 0);
        fail("no line matching " + p + " in: " + s.stderr());
        return null;
    }
}
