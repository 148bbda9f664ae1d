package m0.core;

/**
 * The seam where a worker decides who serves a connection it accepted. A policy only picks;
 * the hand-off, its handshake and its accounting stay in {@link AcceptShare}, so a policy
 * cannot break them.
 *
 * <p>A policy instance belongs to one worker and is called from that worker's loop only.
 */
public interface AcceptPolicy {

    /** The policy's name, as {@code --accept-policy} spells it. */
    String name();

    /**
     * False for the bare accept race: then every entry point of {@link AcceptShare} is one
     * boolean check and nothing else runs.
     */
    boolean shares();

    /**
     * Who should serve the connection {@code self} just accepted.
     *
     * @param siblings the page's view of every worker
     * @param self     the accepting worker's index
     * @param open     the accepting worker's live open connection count, this one excluded
     * @return {@code self}, or the index of a live sibling
     */
    int pick(Siblings siblings, int self, long open);

    /** The bare race: always self. */
    static AcceptPolicy race() {
        return RacePolicy.INSTANCE;
    }

    /** Least loaded: {@code active + pending}, ties to self, equal siblings in turn. */
    static AcceptPolicy share() {
        return new SharePolicy();
    }

    /**
     * The policy a server runs when {@code --accept-policy} names none: share, whatever the
     * worker count. A server started with one worker may be grown by SIGTTIN, and its workers
     * must share then; with one live worker share's pick reads the spare lines and keeps the
     * connection, and the keep-alive path never calls pick at all.
     */
    static String defaultName() {
        return "share";
    }

    /** The policy {@code --accept-policy} names. */
    static AcceptPolicy named(String name) {
        switch (name) {
            case "share":
                return share();
            case "race":
                return race();
            default:
                throw new IllegalArgumentException("unknown accept policy '" + name + "' (share, race)");
        }
    }
}
