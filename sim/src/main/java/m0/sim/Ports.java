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
        sim.closeIdle(connection);
    }
}
