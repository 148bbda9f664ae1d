package m0.server.share;

/**
 * The connection handle of accept sharing ({@code C} of the core's {@code Channel<C>}): an
 * accepted socket's descriptor and its peer's raw sockaddr, which travels in the hand-off's
 * payload so the receiver need not ask the kernel.
 */
public record Accepted(int fd, byte[] peer) {

    /**
     * What a channel returns for a hand-off that arrived without its descriptor (the receiver
     * was out of descriptors, or none was sent): the core's {@code Channel.lost} receipt.
     */
    public static final Accepted LOST = new Accepted(-1, new byte[0]);
}
