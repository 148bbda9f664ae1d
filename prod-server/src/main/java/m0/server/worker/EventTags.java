package m0.server.worker;

/**
 * What an epoll event's data says it is: a connection's descriptor (below {@link #TAG}), or one
 * of the worker's own registrations.
 */
final class EventTags {

    static final long TAG = 1L << 40;
    static final long LISTENER = TAG | 1;
    static final long CHANNEL = TAG | 2;
    /** The eventfd the blocking pool's answers and the signal handlers share. */
    static final long WAKE = TAG | 3;
    /** The supervisor's pidfd: readable when it dies. */
    static final long PARENT = TAG | 4;

    private EventTags() {
    }

    static boolean connection(long data) {
        return data < TAG;
    }
}
