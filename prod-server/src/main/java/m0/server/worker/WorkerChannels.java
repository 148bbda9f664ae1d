package m0.server.worker;

import m0.core.loop.Channels;
import m0.server.jnr.Epoll;
import m0.server.share.SocketChannels;

/**
 * The core loop's {@link Channels} port: fountain's nudge over the worker's own datagram
 * channels ({@link SocketChannels#nudge}), and the end of the watch on its receive end.
 */
final class WorkerChannels implements Channels {

    private final SocketChannels channels;
    private final Epoll epoll;
    private final int receiveFd;

    WorkerChannels(SocketChannels channels, Epoll epoll, int receiveFd) {
        this.channels = channels;
        this.epoll = epoll;
        this.receiveFd = receiveFd;
    }

    @Override
    public void nudge(int target) {
        channels.nudge(target);
    }

    @Override
    public boolean nudged() {
        return channels.takeNudge();
    }

    @Override
    public void stopWatching() {
        epoll.delete(receiveFd);
    }
}
