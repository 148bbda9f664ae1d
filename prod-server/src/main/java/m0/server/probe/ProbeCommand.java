package m0.server.probe;

import java.net.InetSocketAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import m0.server.stats.PassWatch;
import m0.server.stats.SupervisorPage;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code m0serve probe}: the spread probe from the command line. Prints one line per round
 * and exits 1 when a round's spread is worse than {@code --max-ratio}.
 */
@Command(name = "probe", mixinStandardHelpOptions = true,
        description = "Open N keep-alive connections, ask /pid on each while all are open, count per worker.")
public final class ProbeCommand implements Callable<Integer> {

    @Option(names = "--target", defaultValue = "127.0.0.1:8080", description = "host:port (default ${DEFAULT-VALUE})")
    String target;

    @Option(names = "--connections", defaultValue = "32", description = "connections per round (default ${DEFAULT-VALUE})")
    int connections;

    @Option(names = "--workers", defaultValue = "2", description = "workers the server runs (default ${DEFAULT-VALUE})")
    int workers;

    @Option(names = "--shape", split = ",", defaultValue = "burst",
            description = "burst, ramp, bursts8, asking (a burst whose connections ask as they open); "
                    + "comma-separated for several (default ${DEFAULT-VALUE})")
    List<String> shapes;

    @Option(names = "--rounds", defaultValue = "3", description = "rounds per shape (default ${DEFAULT-VALUE})")
    int rounds;

    @Option(names = "--max-ratio", description = "exit 1 when largest/smallest share exceeds this in any round")
    Double maxRatio;

    @Option(names = "--pause-ms", defaultValue = "200",
            description = "pause between rounds, so the workers have published the last round's closes (default ${DEFAULT-VALUE})")
    int pauseMillis;

    @Option(names = "--warmup", defaultValue = "0",
            description = "unreported rounds of the first shape before the measured ones (JIT; default ${DEFAULT-VALUE})")
    int warmup;

    @Option(names = "--by-pid",
            description = "count by the pid that starts the /pid body, not m0serve's index (nginx, uvicorn)")
    boolean byPid;

    @Option(names = "--pids", split = ",",
            description = "with --by-pid: the workers' pids in index order (default: first seen, first index)")
    List<Long> pids = new ArrayList<>();

    @Option(names = "--watch-pid",
            description = "an m0serve supervisor's pid: sample its page during each round and print each "
                    + "worker's longest stamped pass in ms (* past 2 ms: picks skip it)")
    Long watchPid;

    @Option(names = "--settle-ms", defaultValue = "0",
            description = "ask /pid on the round's connections, wait MS ms with all still open, ask again on "
                    + "the same connections and report that spread (rebalance moves idle connections; "
                    + "the first is printed as 'landed'; default ${DEFAULT-VALUE}: ask once)")
    int settleMillis;

    @Option(names = "--timeout-ms", defaultValue = "5000", description = "per-connection timeout (default ${DEFAULT-VALUE})")
    int timeoutMillis;

    @Override
    public Integer call() throws Exception {
        int colon = target.lastIndexOf(':');
        if (colon <= 0) {
            throw new picocli.CommandLine.ParameterException(
                    new picocli.CommandLine(this), "--target must be host:port: " + target);
        }
        InetSocketAddress address = new InetSocketAddress(target.substring(0, colon),
                Integer.parseInt(target.substring(colon + 1)));
        SpreadProbe probe = new SpreadProbe(address, timeoutMillis,
                byPid ? SpreadProbe.Key.PID : SpreadProbe.Key.INDEX, pids);
        List<Spread> results = new ArrayList<>();
        SupervisorPage watched = watchPid == null ? null : SupervisorPage.open(watchPid, workers);
        for (int round = 0; round < warmup; round++) {
            Shape shape = Shape.valueOf(shapes.get(0).trim().toUpperCase(java.util.Locale.ROOT));
            System.out.println("warm-up " + probe.round(shape, connections, workers));
            Thread.sleep(pauseMillis);
        }
        for (String name : shapes) {
            Shape shape = Shape.valueOf(name.trim().toUpperCase(java.util.Locale.ROOT));
            for (int round = 0; round < rounds; round++) {
                if (!results.isEmpty()) {
                    Thread.sleep(pauseMillis); // a client's think time, not synchronisation of ours
                }
                Spread spread;
                if (settleMillis > 0) {
                    try (SpreadProbe.Held held = probe.open(shape, connections)) {
                        Spread landed = held.landedSpread(workers);
                        Thread.sleep(settleMillis); // the settle time being measured, not synchronisation
                        spread = held.spread(workers);
                        System.out.println(spread + "  landed " + landed.counts());
                    }
                } else if (watched == null) {
                    spread = probe.round(shape, connections, workers);
                    System.out.println(spread);
                } else {
                    PassWatch passes = new PassWatch(watched, workers);
                    try {
                        spread = probe.round(shape, connections, workers);
                    } finally {
                        passes.close();
                    }
                    System.out.println(spread + "  longest pass ms: " + passes.longestPasses());
                }
                results.add(spread);
            }
        }
        if (byPid) {
            System.out.println("pids by index: " + probe.pids());
        }
        if (maxRatio != null) {
            for (Spread spread : results) {
                if (spread.ratio() > maxRatio) {
                    System.out.printf("spread %s is worse than --max-ratio %.2f%n", spread.counts(), maxRatio);
                    return 1;
                }
            }
        }
        return 0;
    }
}
