package m0.server.launch;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a worker JVM is told on its command line: its index, the descriptor numbers it
 * inherited (see docs/adr/0005-worker-descriptors.md) and the server's settings, as
 * {@code key=value} arguments. The supervisor writes it, the worker parses it; nobody types it.
 *
 * <p>Descriptors: 3 the listener, 4 the page's memfd, 5 this worker's channel receive end,
 * 6.. 6+lines-1 every index's channel send end (index order). {@code lines} is the page's line
 * count: every index the supervisor may ever place a worker at, running or not (docs/adr/0006).
 * {@code cpus}: the CPUs the workers are pinned to, the worker of rank r among the wanted ones
 * on {@code cpus[r]}, or none when they run free (docs/adr/0058).
 */
public record WorkerSpec(int index, int lines, int supervisorPid, int listenFd, int pageFd, int receiveFd,
                         int[] sendFds, String app, int blockingThreads, String acceptPolicy,
                         int maxHeaderBytes, long idleTimeoutMillis, long headerTimeoutMillis, long graceMillis,
                         long bodyTimeoutMillis, long maxBodyBytes, long maxConnections,
                         boolean rebalance, boolean deferOnChurn, int[] cpus) {

    /**
     * The worker JVM's main class, by name: the supervisor starts it without loading the
     * worker's classes ({@code WorkerSpecTest} holds the name to the class).
     */
    public static final String MAIN_CLASS = "m0.server.worker.Worker";

    public static final int LISTEN_FD = 3;
    public static final int PAGE_FD = 4;
    public static final int RECEIVE_FD = 5;
    public static final int FIRST_SEND_FD = 6;

    /** The child's descriptor numbers, in {@code inherit} order: listener, page, receive end, send ends. */
    public static int descriptorCount(int lines) {
        return 3 + lines;
    }

    public List<String> toArgs() {
        Map<String, String> m = new LinkedHashMap<>();
        m.put("index", Integer.toString(index));
        m.put("lines", Integer.toString(lines));
        m.put("supervisor", Integer.toString(supervisorPid));
        m.put("listen-fd", Integer.toString(listenFd));
        m.put("page-fd", Integer.toString(pageFd));
        m.put("receive-fd", Integer.toString(receiveFd));
        m.put("send-fds", joined(sendFds));
        m.put("app", app);
        m.put("blocking-threads", Integer.toString(blockingThreads));
        m.put("accept-policy", acceptPolicy);
        m.put("max-header-bytes", Integer.toString(maxHeaderBytes));
        m.put("idle-timeout-ms", Long.toString(idleTimeoutMillis));
        m.put("header-timeout-ms", Long.toString(headerTimeoutMillis));
        m.put("grace-ms", Long.toString(graceMillis));
        m.put("body-timeout-ms", Long.toString(bodyTimeoutMillis));
        m.put("max-body-bytes", Long.toString(maxBodyBytes));
        m.put("max-connections", Long.toString(maxConnections));
        m.put("rebalance", rebalance ? "on" : "off");
        m.put("defer-on-churn", deferOnChurn ? "on" : "off");
        m.put("cpus", joined(cpus));
        List<String> args = new ArrayList<>();
        m.forEach((k, v) -> args.add(k + "=" + v));
        return args;
    }

    public static WorkerSpec parse(String[] args) {
        Map<String, String> m = new LinkedHashMap<>();
        for (String a : args) {
            int eq = a.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("worker argument not key=value: " + a);
            }
            m.put(a.substring(0, eq), a.substring(eq + 1));
        }
        int[] sends = numbers(get(m, "send-fds"));
        return new WorkerSpec(num(m, "index"), num(m, "lines"), num(m, "supervisor"), num(m, "listen-fd"),
                num(m, "page-fd"), num(m, "receive-fd"), sends, get(m, "app"), num(m, "blocking-threads"),
                get(m, "accept-policy"), num(m, "max-header-bytes"), Long.parseLong(get(m, "idle-timeout-ms")),
                Long.parseLong(get(m, "header-timeout-ms")), Long.parseLong(get(m, "grace-ms")),
                Long.parseLong(get(m, "body-timeout-ms")), Long.parseLong(get(m, "max-body-bytes")),
                Long.parseLong(get(m, "max-connections")), !"off".equals(m.get("rebalance")),
                "on".equals(m.get("defer-on-churn")), numbers(m.getOrDefault("cpus", "")));
    }

    private static String joined(int[] numbers) {
        StringBuilder b = new StringBuilder();
        for (int n : numbers) {
            b.append(b.length() == 0 ? "" : ",").append(n);
        }
        return b.toString();
    }

    private static int[] numbers(String joined) {
        return joined.isEmpty() ? new int[0] : Arrays.stream(joined.split(",")).mapToInt(Integer::parseInt).toArray();
    }

    private static String get(Map<String, String> m, String key) {
        String v = m.get(key);
        if (v == null) {
            throw new IllegalArgumentException("worker argument missing: " + key);
        }
        return v;
    }

    private static int num(Map<String, String> m, String key) {
        return Integer.parseInt(get(m, key));
    }
}
