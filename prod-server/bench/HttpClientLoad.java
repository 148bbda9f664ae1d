import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.Arrays;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A Java client pool as an application would hold one: N user threads sharing ONE
 * {@code java.net.http.HttpClient} (HTTP/1.1, its own keep-alive pool), each sending GET after
 * GET for a fixed time. Prints one line: requests, errors, req/s, p50 and p99 in ms.
 *
 * <pre>
 *   java prod-server/bench/HttpClientLoad.java URL USERS SECONDS [WARMUP_SECONDS=0]
 * </pre>
 *
 * The warm-up runs the same loop first and is not counted: the pool's connections open at its
 * start (so the server's split is decided then, as with wrk), while the JIT and the client's
 * class loading, which wrk does not pay, stay out of the measured window.
 *
 * Single-file and JDK-only so the bench needs no build. Latencies are exact, not histogrammed:
 * every sample is kept (a closed loop against a 5 ms handler makes at most a few thousand per
 * second, so a {@code long[]} per user is small) and the percentiles are read from the sorted
 * whole. Closed loop, like wrk: no coordinated-omission correction, so the two compare.
 */
public final class HttpClientLoad {

    /** One user's record: its latencies in nanoseconds, in arrival order, and its failures. */
    private static final class Samples {
        long[] nanos = new long[4096];
        int count;
        long errors;

        void add(long latency) {
            if (count == nanos.length) {
                nanos = Arrays.copyOf(nanos, count * 2);
            }
            nanos[count++] = latency;
        }
    }

    public static void main(String[] args) throws Exception {
        if (args.length < 3 || args.length > 4) {
            System.err.println("usage: java HttpClientLoad.java URL USERS SECONDS [WARMUP_SECONDS]");
            System.exit(2);
        }
        URI uri = URI.create(args[0]);
        int users = Integer.parseInt(args[1]);
        long seconds = Long.parseLong(args[2]);
        long warmupSeconds = args.length > 3 ? Long.parseLong(args[3]) : 0;

        HttpClient client = HttpClient.newBuilder()
                .version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5))
                .build();
        // Bounded: no request may outlive the run by more than this, so the run ends.
        HttpRequest request = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10)).GET().build();

        Samples[] samples = new Samples[users];
        Thread[] threads = new Thread[users];
        CountDownLatch go = new CountDownLatch(1);
        long[] window = new long[2]; // measured window's start, deadline (nanoTime), written before go opens
        for (int u = 0; u < users; u++) {
            Samples mine = samples[u] = new Samples();
            threads[u] = new Thread(() -> {
                try {
                    go.await();
                } catch (InterruptedException e) {
                    return;
                }
                while (System.nanoTime() - window[1] < 0) {
                    long sent = System.nanoTime();
                    try {
                        HttpResponse<Void> response = client.send(request, HttpResponse.BodyHandlers.discarding());
                        boolean counted = sent - window[0] >= 0;
                        if (response.statusCode() != 200) {
                            mine.errors += counted ? 1 : 0;
                        } else if (counted) {
                            mine.add(System.nanoTime() - sent);
                        }
                    } catch (java.io.IOException e) {
                        mine.errors++; // counted even in the warm-up: a failure is never noise
                    } catch (InterruptedException e) {
                        return;
                    }
                }
            }, "user-" + u);
            threads[u].start();
        }
        window[0] = System.nanoTime() + TimeUnit.SECONDS.toNanos(warmupSeconds);
        window[1] = window[0] + TimeUnit.SECONDS.toNanos(seconds);
        go.countDown(); // happens-before every user's first read of window
        for (Thread t : threads) {
            t.join(TimeUnit.SECONDS.toMillis(warmupSeconds + seconds + 15)); // request timeout 10 s + slack
        }
        double elapsed = (System.nanoTime() - window[0]) / 1e9;

        int total = Arrays.stream(samples).mapToInt(s -> s.count).sum();
        long errors = Arrays.stream(samples).mapToLong(s -> s.errors).sum();
        long[] all = new long[total];
        int at = 0;
        for (Samples s : samples) {
            System.arraycopy(s.nanos, 0, all, at, s.count);
            at += s.count;
        }
        Arrays.sort(all);
        System.out.printf("requests %d errors %d seconds %.2f req/s %.2f p50_ms %.2f p99_ms %.2f%n",
                total, errors, elapsed, total / elapsed, percentileMillis(all, 0.50), percentileMillis(all, 0.99));
        System.exit(0); // the client's selector thread is not a daemon on every JDK
    }

    /** Nearest-rank percentile of sorted nanos, in ms; 0 for no samples. */
    private static double percentileMillis(long[] sorted, double q) {
        if (sorted.length == 0) {
            return 0;
        }
        int rank = (int) Math.ceil(q * sorted.length);
        return sorted[Math.max(0, rank - 1)] / 1e6;
    }
}
