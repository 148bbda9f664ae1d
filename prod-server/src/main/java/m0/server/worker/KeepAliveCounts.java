package m0.server.worker;

/**
 * The shape of a worker's load as its connections show it (ADR 0041, 0059): one-request
 * connections closed at their request's ask, second requests, and the keep-alive connections
 * held now that are settled. Counted by {@link ConnectionAdmission}, {@link ConnectionTraffic}
 * and {@link ConnectionCloser}; the loop thread's.
 */
final class KeepAliveCounts {

    /** Connections closed at their one request's ask, and second requests: the load's shape (ADR 0041). */
    private long shortCloses;
    private long reuses;
    /**
     * Held connections that are reused keep-alive ({@link Connection#reused}): up at the second
     * request or a settled admission, down at the close or hand-off of one (ADR 0059).
     */
    private long settled;

    /** {@code c} came settled (a keeping sibling's move, ADR 0059), and counts so at once. */
    void arrivedSettled(Connection c) {
        c.reused = true; // reused where it came from: not a reuse again here (ADR 0041 counts it once)
        settled++;
    }

    /** {@code c} read its second request, if it has not been counted so yet. */
    void readRequest(Connection c) {
        if (!c.reused && c.session.requests() > 1) {
            c.reused = true;
            reuses++; // keep-alive: this connection's second request (ADR 0041)
            settled++; // and settled from here on (ADR 0059)
        }
    }

    /** {@code c} is no longer held here: closed or handed off. */
    void left(Connection c) {
        if (c.reused) {
            settled--;
        }
    }

    /** {@code c} is closed: its one request asked for it, or not (then it is not counted). */
    void closed(Connection c) {
        left(c);
        if (!c.reused && c.session.closeAsked()) {
            // Its one request asked for the close: churn (ADR 0041). A keep-alive connection its
            // client hung up after one request went idle keep-alive first: it is not counted.
            shortCloses++;
        }
    }

    long settled() {
        return settled;
    }

    long shortCloses() {
        return shortCloses;
    }

    long reuses() {
        return reuses;
    }
}
