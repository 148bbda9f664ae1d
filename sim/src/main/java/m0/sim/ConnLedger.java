package m0.sim;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import m0.core.PageLayout;

/**
 * Every connection's life in the simulated kernel: clients that connect (or held from the
 * start), the listener's accept, a worker's serve, the closes a leaver or a give-up makes, and
 * what a process's exit does to what it holds. Each close is judged by its oracle here.
 */
final class ConnLedger {

    private final Sim sim;

    ConnLedger(Sim sim) {
        this.sim = sim;
    }

    /** Clients that connected before the run: queued in the backlog. */
    List<Conn> clients(int n) {
        List<Conn> out = new ArrayList<>();
        for (int k = 0; k < n; k++) {
            Conn c = newConn();
            c.tls = sim.tlsClients;
            c.inBacklog = true;
            c.arrivedAt = sim.now;
            sim.backlog.add(c);
            out.add(c);
        }
        return out;
    }

    private Conn newConn() {
        Conn c = new Conn(sim.conns.size() + 1);
        sim.conns.add(c);
        return c;
    }

    /** See {@link Sim#holds}. */
    List<Conn> holds(Worker w, int n) {
        int[] unknown = new int[n];
        Arrays.fill(unknown, -1);
        return holdsPaired(w, unknown);
    }

    /** See {@link Sim#holdsTls}. */
    List<Conn> holdsTls(Worker w, int n) {
        List<Conn> out = holds(w, n);
        out.forEach(c -> {
            c.tls = true;
            c.handshakeBegun = true;
        });
        return out;
    }

    /** See {@link Sim#holdsUnsettled}. */
    List<Conn> holdsUnsettled(Worker w, int n) {
        List<Conn> out = holds(w, n);
        out.forEach(c -> c.unsettled = true);
        sim.initialSettled[w.index] -= n;
        w.share.publishSettled(w.settled());
        return out;
    }

    /** See {@link Sim#holdsPaired}. */
    List<Conn> holdsPaired(Worker w, int... affinities) {
        List<Conn> out = new ArrayList<>();
        long mark = 0;
        for (int a : affinities) {
            Conn c = newConn();
            c.served = true;
            c.servedBy = w.index;
            c.holder = w.actor;
            c.affinity = a;
            if (a >= 0) {
                mark |= PageLayout.affineBit(a);
                sim.initialPaired[w.index][a]++;
            }
            w.actor.held.add(c);
            out.add(c);
        }
        sim.initialLoad[w.index] += affinities.length;
        sim.initialSettled[w.index] += affinities.length;
        if (mark != 0) {
            w.share.publishAffinities(mark);
        }
        w.share.publishSettled(w.settled());
        w.share.passEnd(w.open()); // published as at a pass end: the core's own add, its own record of it
        return out;
    }

    /** A client connects: queued in the listener's backlog. */
    Conn connect() {
        Actor me = sim.me();
        if (sim.scheduling()) {
            sim.point(me, 0, Footprint.bit(Footprint.LISTENER));
        }
        Conn c = newConn();
        c.tls = sim.tlsClients;
        c.inBacklog = true;
        c.arrivedAt = sim.now;
        sim.backlog.addLast(c);
        sim.trace(me, "connect " + c);
        sim.listener.onConnect(me);
        return c;
    }

    Conn accept() {
        Actor me = sim.me();
        if (sim.scheduling()) {
            sim.point(me, sim.listener.acceptReads(me), Footprint.bit(Footprint.LISTENER));
        }
        Conn c = sim.backlog.pollFirst();
        if (c != null) {
            c.inBacklog = false;
            c.holder = me;
            me.held.add(c);
            if (me.worker != null) {
                me.deciding = c;
            }
            c.acceptedAt = sim.now;
            sim.listener.onAccept(me, c);
        }
        sim.trace(me, "listener.accept() -> " + (c == null ? "EAGAIN" : c));
        return c;
    }

    /** Accept failed with EMFILE (the world's fault): a step on the listener, nothing taken. */
    void acceptFails(Worker w) {
        Actor me = sim.me();
        sim.point(me, Footprint.bit(Footprint.LISTENER), 0);
        sim.trace(me, "listener.accept() -> EMFILE");
    }

    void serve(Worker w, Conn c) {
        Actor me = sim.me();
        c.served = true;
        c.servedBy = w.index;
        if (c.holder != me) {
            throw new IllegalStateException(me + " serves " + c + " held by " + c.holder);
        }
        c.handshakeBegun |= c.tls; // the serving worker reads its ClientHello (ADR 0069)
        sim.trace(me, "serve " + c + (c.tls ? " (TLS handshake)" : ""));
    }

    /** A connection admitted in the pass a stop began in: its request was never read. */
    void unserve(Worker w, Conn c) {
        if (c.holder == w.actor && c.served) {
            c.served = false;
            c.servedBy = -1;
            sim.trace(sim.me(), c + " admitted in the stop's pass: not read");
        }
    }

    /**
     * A leaver closes one of its connections that no live sibling took: a served one (idle
     * keep-alive) is judged by CONN, one it admitted and never read by B25-idle.
     */
    void closeAtLeave(Worker w, Conn c) {
        if (c.handshakeBegun) {
            Actor me = sim.me();
            release(me, c);
            c.eof = "closed gracefully by leaver " + me + " (its TLS session lives there, ADR 0069)";
            sim.trace(me, "close " + c + " (leaving: TLS, close_notify)");
            return;
        }
        if (!c.served) {
            closeIdle(c);
            return;
        }
        Actor me = leaverClosePoint();
        release(me, c);
        c.eof = "closed by leaver " + me + " (no live sibling took it)";
        sim.trace(me, "close " + c + " (leaving, no live sibling took it)");
        if (w.share.policy().movesConnections()) {
            Oracles.checkLeaveClose(sim, me, c); // fountain's never move: a leaver closes them (ADR 0038)
        }
    }

    /** A leaver's close, judged against every sibling's state and life: a step that reads them. */
    private Actor leaverClosePoint() {
        Actor me = sim.me();
        long reads = 0;
        for (int j = 0; j < sim.workers; j++) {
            reads |= Footprint.bit(Footprint.state(j));
        }
        for (Actor a : sim.actors) {
            if (a.worker != null) {
                reads |= Footprint.bit(Footprint.proc(a.id));
            }
        }
        sim.point(me, reads, 0);
        return me;
    }

    /** A leaver closes a connection as idle: the B25-idle oracle judges it. */
    void closeIdle(Conn c) {
        Actor me = leaverClosePoint();
        release(me, c);
        c.eof = "closed as idle by leaver " + me;
        sim.trace(me, "close " + c + " (idle, never served)");
        Oracles.checkIdleClose(sim, me, c);
    }

    /** The give-up drain closes a connection no live worker would take. */
    void closeByGiveUp(Conn c) {
        Actor me = sim.me();
        release(me, c);
        c.eof = "closed by give-up (no live worker)";
        sim.trace(me, "close " + c + " (give-up: no live worker)");
        Oracles.checkGiveUpClose(sim, c);
    }

    void release(Actor me, Conn c) {
        me.held.remove(c);
        c.holder = null;
        if (me.deciding == c) {
            me.deciding = null;
        }
    }

    /** A process exits normally: it closes what it holds. */
    void exit(Actor a) {
        if (sim.rebalanceOracle && a.worker != null && !a.worker.left) {
            // The rebalance worlds end while their workers still serve: the loop's last wake
            // is the run's end, not the process's, and it keeps what it holds (a kill still can).
            sim.trace(a, "last wake (still serving " + a.held.size() + ")");
            return;
        }
        for (Conn c : a.held) {
            if (!c.served) {
                c.eof = "closed unserved at exit of " + a;
                Oracles.unservedAtExit(sim, a, c);
            }
            c.holder = null;
        }
        a.held.clear();
        if (a.worker != null) {
            a.worker.exited = true;
        }
        sim.trace(a, "exit");
    }
}
