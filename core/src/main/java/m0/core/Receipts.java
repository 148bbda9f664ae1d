package m0.core;

/**
 * What arrives on one worker's channel: each receipt taken (counted in its counts word) before
 * it is admitted, one with no connection in it counted and skipped, and at EAGAIN the heal of
 * the index's counts when one is asked for (ADR 0024).
 *
 * <p>Part of {@link AcceptShare}: not thread-safe, called from its worker's loop only.
 */
final class Receipts<C> {

    private final Channel<C> channel;
    private final Heal<C> heal;
    private final AcceptPublication<C> publication;
    private final int self;

    private long receivedTotal;
    private long lost;

    Receipts(Channel<C> channel, Heal<C> heal, AcceptPublication<C> publication, int self) {
        this.channel = channel;
        this.heal = heal;
        this.publication = publication;
        this.self = self;
    }

    /** The next connection off this worker's channel, taken; null at EAGAIN (sharing only). */
    C take() {
        for (;;) {
            C connection = channel.receive(self);
            // At EAGAIN, when asked: heal this index's counts (a connection that arrived while
            // the heal looked is taken like any other).
            if (connection == null && (connection = heal.atEagain()) == null) {
                return null;
            }
            publication.receipt();
            receivedTotal++;
            // A receipt with no connection in it (the kernel could not install the descriptor):
            // taken above and retired with the rest at the pass end, like any receipt; only
            // counted, nothing to admit or forward.
            if (channel.lost(connection)) {
                lost++;
                continue;
            }
            return connection;
        }
    }

    /** Connections this worker took off its channel. */
    long receivedCount() {
        return receivedTotal;
    }

    /** Receipts that carried no connection (see {@link Channel#lost}): taken and retired, counted. */
    long lostCount() {
        return lost;
    }
}
