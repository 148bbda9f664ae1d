package m0.server.supervisor;

import java.net.InetAddress;

/**
 * The server's settings, as the command line gave them (validated).
 *
 * @param rebalance {@code --rebalance on}: workers move idle keep-alive connections to even the load
 * @param deferAcceptSeconds {@code --defer-accept}: the bound listener's TCP_DEFER_ACCEPT, 0 off (ADR 0054),
 *        or {@link #DEFER_ON_CHURN} (auto, the default): the workers set it, on an adopted socket too,
 *        while every worker's arrivals close short (ADR 0056)
 * @param cpuAffinity {@code --cpu-affinity}: whether workers are pinned, one per CPU (ADR 0058)
 */
public record ServerConfig(InetAddress host, int port, int workers, String app, int blockingThreads,
                           String acceptPolicy, int maxHeaderBytes, long idleTimeoutMillis,
                           long headerTimeoutMillis, long graceMillis,
                           long bodyTimeoutMillis, long maxBodyBytes, long maxConnections,
                           boolean rebalance, int deferAcceptSeconds,
                           CpuPlacement.Mode cpuAffinity) {

    /** {@code --defer-accept auto}: the share workers defer while every one keeps (ADR 0056). */
    public static final int DEFER_ON_CHURN = -1;
}
