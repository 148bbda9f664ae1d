package m0.sim;

import m0.core.loop.Channels;

/** One worker's channel port as its loop sees it: fountain's nudge and the watch of its own channel. */
final class WorkerChannels implements Channels {

    private final Worker w;

    WorkerChannels(Worker w) {
        this.w = w;
    }

    @Override
    public void nudge(int target) {
        w.sim.epoll.nudge(target);
    }

    @Override
    public boolean nudged() {
        boolean n = w.nudged;
        w.nudged = false;
        return n;
    }

    @Override
    public void stopWatching() {
        w.watchingChannel = false;
        w.sim.trace(w.sim.me(), "stops watching its channel");
    }
}
