package m0.core.loop;

/**
 * Port: the listening socket, as one worker's loop sees it (in m0serve, the inherited listener
 * and its registration in the worker's epoll set; in the simulator, the modelled backlog).
 *
 * @param <C> the connection handle the loop passes on or admits
 */
public interface Listener<C> {

    /**
     * Takes one connection off the listener without blocking.
     *
     * @return the connection, or null when none is waiting (EAGAIN: a sibling took it first)
     * @throws RuntimeException the accept failed; {@link #outOfDescriptors} says whether for want
     *         of descriptors (the loop backs off) or for that one connection (it ends the batch)
     */
    C accept();

    /** True when {@code failure}, thrown by {@link #accept}, is EMFILE or ENFILE. */
    boolean outOfDescriptors(RuntimeException failure);

    /** A zero-timeout look: would {@link #accept} find a connection now? (fountain's look) */
    boolean readable();

    /**
     * Puts the listener into the loop's interest set ({@code in}) or takes it out, so that its
     * readiness wakes the loop or not. Called on a change only ({@link ListenerInterest}).
     */
    void listen(boolean in);

    /**
     * Whether the kernel holds a new connection back until its first bytes arrive (Linux's
     * TCP_DEFER_ACCEPT; ADR 0054, 0056) or queues it at the handshake. The socket is shared: a
     * sibling may set it too. Called only by a loop told to {@link WorkerLoop#deferOnChurn()}:
     * at its start, on a change of its wish, and once a {@link ListenerDeferral#REASK_NANOS}.
     */
    void deferAccept(boolean on);

    /** Leaving: this worker's copy of the listener is closed (out of the interest set already). */
    void close();
}
