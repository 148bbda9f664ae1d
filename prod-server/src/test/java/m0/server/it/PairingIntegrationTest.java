package m0.server.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicIntegerArray;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * ADR 0057 on the real binary: two clients, each a thread pinned to its own CPU, whose
 * connections share lands crossed (each worker holds half of each client's) end paired (each
 * worker holds one client's), the loads 8/8 throughout, every request answered once. The
 * connections open client after client, so share's exact landing crosses them for certain:
 * {@code --dev-pair-at 0}, no affinity read, is the arm that shows the test can fail.
 */
class PairingIntegrationTest {

    private static final int PER_CLIENT = 8;
    /**
     * A connection's affinity is read at its 256th request; a swap is two moves 2 ms apart, four
     * make a few tens of ms. A generous bound on the wait for the pairing, not a latency: the
     * requests it takes come slower on a loaded machine.
     */
    private static final long PAIR_WITHIN_MS = 30_000;
    /** Rounds (one request on each connection) the clients go on asking once paired: nothing may move meanwhile. */
    private static final int STABLE_ROUNDS = 256;
    /** Rounds the negative arm's clients ask before the split is read: twice what the pairing needs to read affinities. */
    private static final int CONTROL_ROUNDS = 512;
    /** The bound on asking a number of rounds (a stuck client, not a slow one, fails it). */
    private static final long ROUNDS_WITHIN_MS = 60_000;
    private static final String IDLE_MS = "120000";

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void twoClientsOnTwoCpusEndEachWithOneWorker() throws Exception {
        try (ServerProcess s = ServerProcess.start("--workers", "2", "--idle-timeout-ms", IDLE_MS)) {
            assertNotNull(s.awaitReady(30), "ready line");
            Clients c = Clients.open(s.port);
            try {
                long start = System.nanoTime();
                String split = c.askUntilPaired(PAIR_WITHIN_MS);
                long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                System.out.println("paired in " + ms + " ms: " + split + " (landed " + Clients.describe(c.landed) + ")");
                assertTrue(Clients.crossed(c.landed), "landed crossed, as share lands them: " + Clients.describe(c.landed));
                assertTrue(Clients.paired(c.latest()), "paired within " + PAIR_WITHIN_MS + " ms: " + split);
                long moves = moves(s.pid());
                c.askRounds(STABLE_ROUNDS);
                String stats = RebalanceIntegrationTest.stats(s.pid());
                assertTrue(Clients.paired(c.latest()), "still paired " + STABLE_ROUNDS + " rounds later: "
                        + Clients.describe(c.latest()));
                assertEquals(moves, moves(s.pid()), "no move once paired: " + stats);
                assertTrue(moves <= 2 * PER_CLIENT, "at most a swap (two moves) per connection crossed: " + stats);
            } finally {
                c.close();
            }
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void withoutAffinitiesTheyStayCrossed() throws Exception {
        try (ServerProcess s = ServerProcess.startWith(List.of("--dev-pair-at", "0"), "--workers", "2", "--idle-timeout-ms", IDLE_MS)) {
            assertNotNull(s.awaitReady(30), "ready line");
            Clients c = Clients.open(s.port);
            try {
                c.askRounds(CONTROL_ROUNDS);
                assertTrue(Clients.crossed(c.latest()), "nothing swaps them: " + Clients.describe(c.latest()));
                assertEquals(Map.of(0, PER_CLIENT, 1, PER_CLIENT), c.perWorker());
                assertEquals(0, moves(s.pid()), RebalanceIntegrationTest.stats(s.pid()));
            } finally {
                c.close();
            }
        }
    }

    /** Both workers' rebalance moves so far, swaps' included (the stats' "rebalanced" line). */
    private static long moves(long pid) {
        String stats = RebalanceIntegrationTest.stats(pid);
        return RebalanceIntegrationTest.rebalanced(stats, 0) + RebalanceIntegrationTest.rebalanced(stats, 1);
    }

    /**
     * Client A on CPU 0, then client B on CPU 1, each holding {@link #PER_CLIENT} keep-alive
     * connections and asking {@code /pid} on each in turn from its pinned thread: the worker
     * index each connection's latest answer named.
     */
    private static final class Clients {
        final List<List<Http>> conns = List.of(new ArrayList<>(), new ArrayList<>());
        final AtomicIntegerArray[] worker = {
            new AtomicIntegerArray(PER_CLIENT), new AtomicIntegerArray(PER_CLIENT)};
        final long[] answered = new long[2]; // each client's own count, read after its thread ends
        int[][] landed;
        private final int port;

        private Clients(int port) {
            this.port = port;
        }

        static Clients open(int port) throws Exception {
            Clients c = new Clients(port);
            for (int client = 0; client < 2; client++) {
                int k = client;
                c.onPinnedThread(k, () -> {
                    for (int i = 0; i < PER_CLIENT; i++) {
                        c.conns.get(k).add(new Http(c.port));
                    }
                    c.askEach(k);
                });
            }
            c.landed = c.latest();
            return c;
        }

        /** Both clients ask on their connections, each on its pinned thread, until paired or {@code ms} is out. */
        String askUntilPaired(long ms) throws Exception {
            ask(ms, true);
            return describe(latest());
        }

        /**
         * Both clients ask {@code rounds} more rounds (a request on each of their connections):
         * a window measured in the worker's passes, not in time, so a loaded machine cannot
         * shrink it.
         */
        void askRounds(int rounds) throws Exception {
            long[] target = {answered[0] + (long) rounds * PER_CLIENT, answered[1] + (long) rounds * PER_CLIENT};
            ask(ROUNDS_WITHIN_MS, false, target);
            for (int k = 0; k < 2; k++) {
                assertTrue(answered[k] >= target[k], "client " + k + " asked " + rounds + " rounds within "
                        + ROUNDS_WITHIN_MS + " ms: " + answered[k] + " of " + target[k] + " answers");
            }
        }

        private void ask(long ms, boolean untilPaired) throws Exception {
            ask(ms, untilPaired, new long[] {Long.MAX_VALUE, Long.MAX_VALUE});
        }

        /** Both clients ask until paired (if asked), each has {@code target} answers, or {@code ms} is out. */
        private void ask(long ms, boolean untilPaired, long[] target) throws Exception {
            long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ms);
            AtomicBoolean stop = new AtomicBoolean();
            List<Thread> threads = new ArrayList<>();
            java.util.concurrent.atomic.AtomicReferenceArray<Throwable> failed =
                    new java.util.concurrent.atomic.AtomicReferenceArray<>(2);
            for (int k = 0; k < 2; k++) {
                int client = k;
                Thread t = new Thread(() -> {
                    try {
                        pin(client);
                        while (!stop.get() && System.nanoTime() - end < 0 && answered[client] < target[client]) {
                            askEach(client);
                        }
                    } catch (Throwable e) {
                        failed.set(client, e);
                    }
                }, "client-" + k);
                t.start();
                threads.add(t);
            }
            // Until the time is out, the pairing (when asked for), both clients done, or one failed.
            while (System.nanoTime() - end < 0 && !(untilPaired && paired(latest()))
                    && threads.stream().anyMatch(Thread::isAlive) && failed.get(0) == null && failed.get(1) == null) {
                Thread.sleep(5); // the test's own poll of what the clients saw, not a synchronisation
            }
            stop.set(true);
            for (Thread t : threads) {
                t.join(20_000);
                if (t.isAlive()) {
                    throw new AssertionError(t.getName() + " is stuck");
                }
            }
            for (int k = 0; k < 2; k++) {
                Throwable e = failed.get(k);
                if (e != null) {
                    throw new AssertionError(e);
                }
            }
        }

        /** One request on each of client k's connections; every one is answered. */
        private void askEach(int k) throws Exception {
            List<Http> mine = conns.get(k);
            for (int i = 0; i < mine.size(); i++) {
                Http h = mine.get(i);
                h.send(Http.get("/pid"));
                Http.Response r = h.read();
                assertNotNull(r, "client " + k + " connection " + i + ": EOF after " + answered[k] + " answers");
                assertEquals(200, r.status());
                worker[k].set(i, Integer.parseInt(r.body().trim().split(" ")[1]));
                answered[k]++;
            }
        }

        /**
         * Runs {@code body} on a fresh thread pinned to CPU {@code cpu} (taskset on its own tid),
         * and waits. The suite's machines have two CPUs or more; fewer fails here, by name.
         */
        private void onPinnedThread(int cpu, ThrowingRunnable body) throws Exception {
            Throwable[] failed = new Throwable[1];
            Thread t = new Thread(() -> {
                try {
                    pin(cpu);
                    body.run();
                } catch (Throwable e) {
                    failed[0] = e;
                }
            }, "client-" + cpu);
            t.start();
            t.join(20_000);
            if (t.isAlive()) {
                throw new AssertionError("client " + cpu + " is stuck");
            }
            if (failed[0] instanceof Exception e) {
                throw e;
            }
            if (failed[0] != null) {
                throw new AssertionError(failed[0]);
            }
        }

        private static void pin(int cpu) throws Exception {
            String tid = Files.readSymbolicLink(Path.of("/proc/thread-self")).getFileName().toString();
            Process p = new ProcessBuilder("taskset", "-p", "-c", Integer.toString(cpu), tid)
                    .redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes());
            assertTrue(p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0, "taskset: " + out);
        }

        int[][] latest() {
            int[][] w = new int[2][PER_CLIENT];
            for (int k = 0; k < 2; k++) {
                for (int i = 0; i < PER_CLIENT; i++) {
                    w[k][i] = worker[k].get(i);
                }
            }
            return w;
        }

        Map<Integer, Integer> perWorker() {
            Map<Integer, Integer> n = new TreeMap<>();
            for (int[] client : latest()) {
                for (int w : client) {
                    n.merge(w, 1, Integer::sum);
                }
            }
            return n;
        }

        /** Each client's connections all on one worker, and the two clients on different ones. */
        static boolean paired(int[][] w) {
            return allOn(w[0], w[0][0]) && allOn(w[1], w[1][0]) && w[0][0] != w[1][0];
        }

        /** Each client has connections on both workers. */
        static boolean crossed(int[][] w) {
            return !allOn(w[0], w[0][0]) && !allOn(w[1], w[1][0]);
        }

        private static boolean allOn(int[] w, int worker) {
            for (int x : w) {
                if (x != worker) {
                    return false;
                }
            }
            return true;
        }

        static String describe(int[][] w) {
            int[][] n = new int[2][2];
            for (int k = 0; k < 2; k++) {
                for (int x : w[k]) {
                    n[x][k]++;
                }
            }
            return "w0 A" + n[0][0] + "/B" + n[0][1] + ", w1 A" + n[1][0] + "/B" + n[1][1];
        }

        void close() throws Exception {
            for (List<Http> mine : conns) {
                for (Http h : mine) {
                    h.close();
                }
            }
        }
    }

    @FunctionalInterface
    private interface ThrowingRunnable {
        void run() throws Exception;
    }
}
