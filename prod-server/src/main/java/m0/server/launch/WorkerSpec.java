package m0.server.launch;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import m0.server.settings.Catalog;
import m0.server.settings.ServerSettings;
import m0.server.settings.SettingsReader;
import m0.server.settings.Values;

/**
 * What a worker JVM is told on its command line, as {@code key=value} arguments: its index, the
 * descriptor numbers it inherited (see docs/adr/0005-worker-descriptors.md), what the launch
 * itself decides, and every setting the workers read ({@link Values#toLaunchArgs}: the same
 * declarations as the command line, docs/adr/0065). The supervisor writes it, the worker parses
 * it; nobody types it.
 *
 * <p>Descriptors: 3 the listener, 4 the page's memfd, 5 this worker's channel receive end,
 * 6.. 6+lines-1 every index's channel send end (index order). {@code lines} is the page's line
 * count: every index the supervisor may ever place a worker at, running or not (docs/adr/0006).
 * {@code cpus}: the CPUs the workers are pinned to, the worker of rank r among the wanted ones
 * on {@code cpus[r]}, or none when they run free (docs/adr/0058). {@code metrics}: whether it
 * counts requests for the supervisor's metrics; {@code mainArgs}: the arguments after
 * {@code --} for {@code --main}'s main, one {@code main-arg=} each, in order.
 */
public record WorkerSpec(int index, int lines, int supervisorPid, int listenFd, int pageFd, int receiveFd,
                         int[] sendFds, int[] cpus, boolean metrics, List<String> mainArgs, Values settings) {

    /**
     * The worker JVM's main class, by name: the supervisor starts it without loading the
     * worker's classes ({@code WorkerSpecTest} holds the name to the class).
     */
    public static final String MAIN_CLASS = "m0.server.worker.Worker";

    public static final int LISTEN_FD = 3;
    public static final int PAGE_FD = 4;
    public static final int RECEIVE_FD = 5;
    public static final int FIRST_SEND_FD = 6;

    private static final String MAIN_ARG = "main-arg";
    /** The launch's own keys; every other key is a setting. */
    private static final List<String> LAUNCH_KEYS = List.of("index", "lines", "supervisor", "listen-fd", "page-fd",
            "receive-fd", "send-fds", "cpus", "metrics");

    public WorkerSpec {
        mainArgs = List.copyOf(mainArgs);
    }

    /** The child's descriptor numbers, in {@code inherit} order: listener, page, receive end, send ends. */
    public static int descriptorCount(int lines) {
        return 3 + lines;
    }

    public List<String> toArgs() {
        List<String> args = new ArrayList<>();
        args.add("index=" + index);
        args.add("lines=" + lines);
        args.add("supervisor=" + supervisorPid);
        args.add("listen-fd=" + listenFd);
        args.add("page-fd=" + pageFd);
        args.add("receive-fd=" + receiveFd);
        args.add("send-fds=" + joined(sendFds));
        args.add("cpus=" + joined(cpus));
        args.add("metrics=" + metrics);
        for (String a : mainArgs) {
            args.add(MAIN_ARG + "=" + a); // any text, '=' and spaces included
        }
        args.addAll(settings.toLaunchArgs());
        return args;
    }

    public static WorkerSpec parse(String[] args) {
        return parse(args, Catalog.STANDARD);
    }

    /** {@code args} as {@link #toArgs} wrote them; a setting's value is checked against {@code catalog}. */
    public static WorkerSpec parse(String[] args, Catalog catalog) {
        Map<String, String> launch = new HashMap<>();
        Map<String, String> settings = new HashMap<>();
        List<String> mainArgs = new ArrayList<>();
        for (String a : args) {
            int eq = a.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("worker argument not key=value: " + a);
            }
            String key = a.substring(0, eq);
            String value = a.substring(eq + 1);
            if (key.equals(MAIN_ARG)) {
                mainArgs.add(value);
            } else if (LAUNCH_KEYS.contains(key)) {
                launch.put(key, value);
            } else if (catalog.named(key) != null) {
                settings.put(key, value);
            } else {
                throw new IllegalArgumentException("worker argument not known: " + key);
            }
        }
        return new WorkerSpec(num(launch, "index"), num(launch, "lines"), num(launch, "supervisor"),
                num(launch, "listen-fd"), num(launch, "page-fd"), num(launch, "receive-fd"),
                numbers(get(launch, "send-fds")), numbers(launch.getOrDefault("cpus", "")),
                Boolean.parseBoolean(launch.get("metrics")), mainArgs, SettingsReader.readLaunch(catalog, settings));
    }

    public String app() {
        return settings.text(ServerSettings.APP);
    }

    public int blockingThreads() {
        return settings.integer(ServerSettings.BLOCKING_THREADS);
    }

    public String acceptPolicy() {
        return settings.text(ServerSettings.ACCEPT_POLICY);
    }

    public int maxHeaderBytes() {
        return settings.integer(ServerSettings.MAX_HEADER_BYTES);
    }

    public long idleTimeoutMillis() {
        return settings.number(ServerSettings.IDLE_TIMEOUT_MS);
    }

    public long headerTimeoutMillis() {
        return settings.number(ServerSettings.HEADER_TIMEOUT_MS);
    }

    public long graceMillis() {
        return settings.number(ServerSettings.GRACE_MS);
    }

    public long bodyTimeoutMillis() {
        return settings.number(ServerSettings.BODY_TIMEOUT_MS);
    }

    public long maxBodyBytes() {
        return settings.number(ServerSettings.MAX_BODY_BYTES);
    }

    public long maxConnections() {
        return settings.number(ServerSettings.MAX_CONNECTIONS);
    }

    public boolean rebalance() {
        return settings.on(ServerSettings.REBALANCE);
    }

    /** {@code --defer-accept auto}: this worker sets TCP_DEFER_ACCEPT while every worker keeps (ADR 0056). */
    public boolean deferOnChurn() {
        return "auto".equals(settings.text(ServerSettings.DEFER_ACCEPT));
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
