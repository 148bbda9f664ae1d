package m0.sim;

import m0.core.Channel;

/**
 * The per-worker datagram channels as the core sees them: bounded queues that outlive their
 * workers (the supervisor keeps every read end), each send and receive a scheduling point.
 */
final class ScheduledChannel implements Channel<Conn> {

    private final Sim sim;

    ScheduledChannel(Sim sim) {
        this.sim = sim;
    }

    @Override
    public boolean send(int target, Conn c) {
        Actor me = sim.me();
        if (me.worker != null && me.worker.stallBeforeSend > 0) {
            long d = me.worker.stallBeforeSend;
            me.worker.stallBeforeSend = 0;
            sim.trace(me, "stalls " + Sim.ms(d) + " before sendmsg");
            sim.sleep(d);
        }
        if (sim.scheduling()) {
            sim.point(me, 0, Footprint.bit(Footprint.acct(target)));
        }
        if (c.holder != me) {
            throw new IllegalStateException(me + " sends " + c + " held by " + c.holder);
        }
        if (sim.channels[target].size() >= sim.channelCapacity) {
            sim.trace(me, "channel.send(w" + target + ", " + c + ") -> refused (full)");
            return false;
        }
        Oracles.onSend(sim, me, target, c);
        sim.ledger.release(me, c);
        sim.channels[target].addLast(c);
        c.channel = target;
        c.sentStep = sim.step;
        me.balance[target]--;
        sim.trace(me, "channel.send(w" + target + ", " + c + ") -> sent");
        Worker w = sim.current[target];
        if (w != null && w.watchingChannel) {
            sim.epoll.wake(me, w); // the datagram makes its channel readable
        }
        return true;
    }

    @Override
    public Conn receive(int index) {
        Actor me = sim.me();
        if (sim.scheduling()) {
            sim.point(me, 0, Footprint.bit(Footprint.acct(index)));
        }
        Conn c = sim.channels[index].pollFirst();
        if (c == null && sim.nudgePending[index]) {
            // A nudge is no hand-off: the receive swallows it (m0serve's SocketChannels) and
            // remembers it for its worker's loop, which looks at the listener at once.
            sim.nudgePending[index] = false;
            if (me.worker != null && me.worker.index == index) {
                me.worker.nudged = true;
            }
            sim.trace(me, "channel.receive(w" + index + ") -> a nudge");
        }
        if (c != null) {
            c.channel = -1;
            c.holder = me;
            c.inCore = true; // the core's until it hands it to the loop's admit (or on)
            me.held.add(c);
            me.balance[index]++;
            Oracles.onReceive(sim, me, index, c);
        }
        sim.trace(me, "channel.receive(w" + index + ") -> " + (c == null ? "EAGAIN" : c));
        return c;
    }
}
