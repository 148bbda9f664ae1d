package m0.core.loop;

/**
 * Port: what the loop does with the hand-off channels beside the core's hand-offs, which go
 * through {@link m0.core.Channel}: the fountain's nudge (ADR 0031), and the end of the watch on
 * its own channel once a leaver's drain is over.
 */
public interface Channels {

    /**
     * Tells worker {@code target} to look at the listener now: a datagram with no connection in
     * it on that worker's channel. Best effort: a full or closed channel drops it, and the target
     * looks at its own deadline as before.
     */
    void nudge(int target);

    /** Whether a nudge arrived since the last call (the channel's receive swallows them); forgets it. */
    boolean nudged();

    /** The leaver's drain is over: its channel leaves the interest set (nothing reads it here again). */
    void stopWatching();
}
