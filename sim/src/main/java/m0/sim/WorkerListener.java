package m0.sim;

import m0.core.loop.Listener;

/** The listener, as one worker's loop sees it (the simulated kernel's accept and epoll_ctl). */
final class WorkerListener implements Listener<Conn> {

    private final Worker w;
    private final Sim sim;

    WorkerListener(Worker w) {
        this.w = w;
        this.sim = w.sim;
    }

    @Override
    public Conn accept() {
        if (!w.accepts) {
            return null; // the kernel hands every connection to another worker
        }
        if (w.emfileFrom >= 0 && sim.now() - w.emfileFrom >= 0 && sim.now() - w.emfileUntil < 0) {
            sim.ledger.acceptFails(w);
            throw new OutOfDescriptors();
        }
        return sim.ledger.accept();
    }

    @Override
    public boolean outOfDescriptors(RuntimeException failure) {
        return failure instanceof OutOfDescriptors;
    }

    @Override
    public boolean readable() {
        return w.accepts && sim.listener.readable();
    }

    @Override
    public void listen(boolean in) {
        sim.epoll.interest(w, in);
    }

    /**
     * What the modelled kernel would do differently (hold a silent connection back) is
     * timing only: the worlds' connections are accepted either way. The call is traced.
     */
    @Override
    public void deferAccept(boolean on) {
        sim.trace(sim.me(), "deferAccept(" + on + ")");
    }

    @Override
    public void close() {
        sim.trace(sim.me(), "close(listener)"); // out of the interest set already
    }

    /** Accept's EMFILE, as the listener port reports it. */
    static final class OutOfDescriptors extends RuntimeException {
        OutOfDescriptors() {
            super("accept: EMFILE", null, false, false);
        }
    }
}
