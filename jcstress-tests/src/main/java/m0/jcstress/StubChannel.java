package m0.jcstress;

import m0.core.Channel;

/**
 * A channel with no queue of its own, so that the only shared memory a test touches is the
 * page. A connection is a Boolean that says how its send goes: TRUE is queued, FALSE is
 * refused (the channel full). {@link #receive} hands out what {@link #ready} says is queued;
 * only a state's constructor uses it.
 */
final class StubChannel implements Channel<Boolean> {

    /** Connections queued for the receiver; touched by the state's constructor only. */
    int ready;

    @Override
    public boolean send(int target, Boolean connection) {
        return connection;
    }

    @Override
    public Boolean receive(int index) {
        if (ready == 0) {
            return null;
        }
        ready--;
        return Boolean.TRUE;
    }
}
