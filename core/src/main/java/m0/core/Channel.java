package m0.core;

/**
 * Port: the per-worker hand-off channels (in m0serve, one non-blocking AF_UNIX datagram
 * socketpair per worker; in the simulator, a bounded queue).
 *
 * <p>{@code C} is the connection handle. It carries its peer address: the server's channel
 * writes it into the datagram's payload beside the descriptor, so the receiver need not ask
 * the kernel for it.
 *
 * <p>Neither operation ever blocks. Channel {@code i} outlives worker {@code i}: its read end
 * is held by the supervisor and the siblings too, so what is queued survives a death and is
 * read by a replacement or by the supervisor's give-up drain.
 */
public interface Channel<C> {

    /**
     * Queues {@code connection} on worker {@code target}'s channel without blocking.
     *
     * @return true: sent, the channel now holds the connection and the caller must forget it;
     *         false: refused (the channel is full, or gone), the caller still owns it
     * @throws RuntimeException a failed send: as a refusal, the caller still owns the connection
     *         (the core takes its raise back). An {@link Error} means the process is going away:
     *         the core writes nothing more (the checkers kill an actor this way).
     */
    boolean send(int target, C connection);

    /**
     * Takes the next connection queued on worker {@code index}'s channel without blocking.
     * A worker receives on its own index; the supervisor's give-up drain on a dead one's.
     *
     * @return the connection, or null when nothing is queued (EAGAIN)
     */
    C receive(int index);

    /**
     * True when {@code received}, which {@link #receive} just returned, is a receipt with no
     * connection in it: a datagram whose descriptor the kernel could not install (control data
     * truncated: the receiver was out of descriptors; the kernel closed the connection) or that
     * carried none. It was raised against the receiver all the same, so the core takes and
     * retires it like any receipt and counts it as lost: {@code pending - taken} never drifts.
     * A channel that never loses one keeps the default.
     */
    default boolean lost(C received) {
        return false;
    }
}
