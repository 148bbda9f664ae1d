package m0.sim;

import java.util.ArrayList;
import java.util.List;
import java.util.function.BooleanSupplier;
import java.util.function.Predicate;
import m0.core.PageLayout;
import m0.core.loop.Connections;

/**
 * The connections one worker holds, as its loop sees them: its actor's {@code held} list (plus
 * the unmodelled load). Served at admission: m0serve reads the request at the next pass, which
 * the world leaves out. But the pass in which a stop begins runs its stop step after its
 * admissions, so what a leaver admits, and what it admitted in that same pass, is no served
 * connection: it has not read a byte of it when it hands it over or closes it.
 */
final class WorkerConnections implements Connections<Conn> {

    private final Worker w;
    private final Sim sim;
    /** Connections admitted in the current pass (their requests are read at the next one). */
    private final List<Conn> admittedThisPass = new ArrayList<>();

    WorkerConnections(Worker w) {
        this.w = w;
        this.sim = w.sim;
    }

    /** A pass begins: what the last one admitted has been read. */
    void passBegins() {
        admittedThisPass.clear();
    }

    @Override
    public long open() {
        return w.open();
    }

    @Override
    public void admit(Conn c, boolean received) {
        c.inCore = false; // the loop's connection from here on
        if (w.loop().stopping()) {
            sim.trace(sim.me(), "admit " + c + " (leaving: not read before the stop step)");
            return;
        }
        sim.ledger.serve(w, c);
        admittedThisPass.add(c);
        if (!received) {
            w.acceptedSincePublish.add(c);
        }
        long cost = received ? w.receiveCost : w.acceptCost;
        if (cost > 0) {
            sim.sleep(cost);
        }
        if (c.tls && w.handshakeCost > 0) {
            w.loop().handshaking(); // the eager read runs its handshake: the connection's admission
            sim.sleep(w.handshakeCost);
        }
    }

    /**
     * A connection this worker holds between requests (answered, nothing owed): the newest whose
     * client pairs with {@code affinity}, else the newest.
     */
    private Conn idle(int affinity) {
        Conn any = null;
        for (int k = w.actor.held.size() - 1; k >= 0; k--) {
            Conn c = w.actor.held.get(k);
            if (c.served && w.share.mayMove(c.handshakeBegun)) {
                if (affinity < 0 || c.affinity == affinity) {
                    return c;
                }
                if (any == null) {
                    any = c;
                }
            }
        }
        return any;
    }

    @Override
    public boolean moveIdle(int affinity, boolean onlyThatKind, Predicate<? super Conn> send) {
        Conn c = idle(affinity);
        if (c != null && onlyThatKind && affinity >= 0 && c.affinity != affinity) {
            return false; // a swap's move: none of the kind idle, none moves
        }
        return c != null && send.test(c);
    }

    @Override
    public long settled() {
        return w.settled();
    }

    @Override
    public boolean moveSettled(Predicate<? super Conn> send) {
        for (int k = w.actor.held.size() - 1; k >= 0; k--) {
            Conn c = w.actor.held.get(k);
            if (c.served && !c.unsettled && w.share.mayMove(c.handshakeBegun)) {
                return send.test(c); // the newest settled one
            }
        }
        return false;
    }

    @Override
    public long affinities() {
        long mark = 0;
        for (Conn c : w.actor.held) {
            if (!c.inCore && c.affinity >= 0) {
                mark |= PageLayout.affineBit(c.affinity);
            }
        }
        return mark;
    }

    @Override
    public boolean handshakeBegun(Conn c) {
        return c.handshakeBegun;
    }

    @Override
    public void leaveIdle(Predicate<? super Conn> handOver, BooleanSupplier keep) {
        for (Conn c : admittedThisPass) {
            sim.ledger.unserve(w, c); // admitted in the stop's own pass: not a byte read
        }
        admittedThisPass.clear();
        w.churnOpen = null;
        w.baseOpen = 0; // what the world does not model one by one is answered and closed
        for (Conn c : List.copyOf(w.actor.held)) {
            if (c.inCore) {
                continue; // the core's (a leaver holds it for a starting sibling): not the loop's to hand over
            }
            if (!w.share.mayMove(c.handshakeBegun)) {
                sim.ledger.closeAtLeave(w, c); // pinned (ADR 0069): closed gracefully, never handed over
                continue;
            }
            if (!handOver.test(c) && !keep.getAsBoolean()) {
                sim.ledger.closeAtLeave(w, c);
            }
        }
    }

    @Override
    public void closeAll() {
        w.churnOpen = null;
        w.baseOpen = 0;
        for (Conn c : List.copyOf(w.actor.held)) {
            sim.ledger.closeAtLeave(w, c);
        }
    }

    @Override
    public long deadline() {
        return Long.MAX_VALUE;
    }

    @Override
    public void expire(long now) {
    }

    @Override
    public long poolBusyNanos(long now) {
        return 0;
    }

    @Override
    public int poolThreads() {
        return 0;
    }

    @Override
    public long shortCloses() {
        return w.shortClosesAt.applyAsLong(sim.now);
    }

    @Override
    public long reuses() {
        return w.reusesAt.applyAsLong(sim.now);
    }
}
