package m0.server.supervisor;

import java.net.InetAddress;
import m0.server.settings.ServerSettings;
import m0.server.settings.Values;

/**
 * The server's settings as the supervisor reads them: the listener's address, resolved, and
 * every value (checked) with where it came from; the workers are told theirs from
 * {@link #values()} (the launch contract, {@link Values#toLaunchArgs}).
 */
public final class ServerConfig {

    /** {@code --defer-accept auto}: the share workers defer while every one keeps (ADR 0056). */
    public static final int DEFER_ON_CHURN = -1;

    private final InetAddress host;
    private final int port;
    private final Values values;

    public ServerConfig(InetAddress host, int port, Values values) {
        this.host = host;
        this.port = port;
        this.values = values;
    }

    public InetAddress host() {
        return host;
    }

    public int port() {
        return port;
    }

    public Values values() {
        return values;
    }

    public int workers() {
        return values.integer(ServerSettings.WORKERS);
    }

    public String app() {
        return values.text(ServerSettings.APP);
    }

    /** {@code --blocking-threads}: each worker's pool for blocking handlers. */
    public int blockingThreads() {
        return values.integer(ServerSettings.BLOCKING_THREADS);
    }

    public String acceptPolicy() {
        return values.text(ServerSettings.ACCEPT_POLICY);
    }

    public long drainDelayMillis() {
        return values.number(ServerSettings.DRAIN_DELAY_MS);
    }

    public long graceMillis() {
        return values.number(ServerSettings.GRACE_MS);
    }

    /** {@code --defer-accept}: 0..60 seconds, or {@link #DEFER_ON_CHURN} for auto. */
    public int deferAcceptSeconds() {
        return (int) values.number(ServerSettings.DEFER_ACCEPT, DEFER_ON_CHURN);
    }

    /** {@code --cpu-affinity}: whether workers are pinned, one per CPU (ADR 0058). */
    public CpuPlacement.Mode cpuAffinity() {
        return CpuPlacement.Mode.named(values.text(ServerSettings.CPU_AFFINITY));
    }
}
