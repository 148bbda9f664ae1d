package m0.server.share;

/**
 * The connection handle of accept sharing ({@code C} of the core's {@code Channel<C>}): an
 * accepted socket's descriptor, its peer's raw sockaddr, which travels in the hand-off's
 * payload so the receiver need not ask the kernel, and whether it is settled keep-alive (it has
 * begun a second request: a rebalance move of a keeping worker carries it, so the receiver
 * counts it settled at once, ADR 0059).
 */
public record Accepted(int fd, byte[] peer, boolean settled) {

    /**
     * What a channel returns for a hand-off that arrived without its descriptor (the receiver
     * was out of descriptors, or none was sent): the core's {@code Channel.lost} receipt.
     */
    public static final Accepted LOST = new Accepted(-1, new byte[0]);

    /** A fresh accept: not settled. */
    public Accepted(int fd, byte[] peer) {
        this(fd, peer, false);
    }
}
