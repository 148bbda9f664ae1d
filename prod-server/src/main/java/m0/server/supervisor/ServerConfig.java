package m0.server.supervisor;

import java.net.InetAddress;

/**
 * The server's settings, as the command line gave them (validated).
 *
 * @param rebalance {@code --rebalance on}: workers move idle keep-alive connections to even the load
 * @param deferAcceptSeconds {@code --defer-accept}: the bound listener's TCP_DEFER_ACCEPT, 0 off (ADR 0054)
 */
public record ServerConfig(InetAddress host, int port, int workers, String app, int blockingThreads,
                           String acceptPolicy, int maxHeaderBytes, long idleTimeoutMillis,
                           long headerTimeoutMillis, long graceMillis,
                           long bodyTimeoutMillis, long maxBodyBytes, long maxConnections,
                           boolean rebalance, int deferAcceptSeconds) {
}
