package m0.sim;

import m0.core.Channel;
import m0.core.Clock;
import m0.core.Page;

/**
 * The simulated ports handed to the protocol: every access is a scheduling point. A mutant
 * in test code gets the same ports the real core gets.
 */
public final class Ports {

    public final Page page;
    public final Channel<Conn> channel;
    public final Clock clock;
    public final int workers;
    /**
     * Whether the workers this world makes rebalance idle connections ({@code --rebalance on}).
     * Off but in the rebalance worlds and random mode: a worker holding two connections looks
     * every 25 ms, and a world about a hand-off's ordering would explore those looks too, against
     * every step of its supervisor that shares their instant.
     */
    public boolean rebalance;
    private final Sim sim;

    Ports(Sim sim, Page page, Channel<Conn> channel, Clock clock, int workers) {
        this.sim = sim;
        this.page = page;
        this.channel = channel;
        this.clock = clock;
        this.workers = workers;
    }

    /** A leaver closes a connection it admitted as idle (what the historical leaver did). */
    public void closeIdle(Conn connection) {
        sim.ledger.closeIdle(connection);
    }
}
