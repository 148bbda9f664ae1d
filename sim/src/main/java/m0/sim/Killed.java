package m0.sim;

/** Unwinds an actor's thread through the core's frames: its process was killed, or the run ended. */
final class Killed extends Error {

    private static final long serialVersionUID = 1L;

    Killed() {
        super(null, null, false, false);
    }
}
