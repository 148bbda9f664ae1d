package m0.server.share;

/**
 * The connection handle of accept sharing ({@code C} of the core's {@code Channel<C>}): an
 * accepted socket's descriptor and its peer's raw sockaddr, which travels in the hand-off's
 * payload so the receiver need not ask the kernel.
 */
public record Accepted(int fd, byte[] peer) {
}
