package m0.sim;

import m0.core.AcceptPolicy;
import m0.core.Siblings;

/**
 * A real policy, every answer forwarded: a mutant overrides only the answer it undoes. Written
 * once, so that a new answer on {@link AcceptPolicy} is forwarded by every mutant at once
 * (one that was not, the default taken instead, made a mutant differ in two answers).
 */
abstract class ForwardingAcceptPolicy implements AcceptPolicy {

    final AcceptPolicy real;

    ForwardingAcceptPolicy(AcceptPolicy real) {
        this.real = real;
    }

    @Override
    public String name() {
        return real.name();
    }

    @Override
    public boolean shares() {
        return real.shares();
    }

    @Override
    public int pick(Siblings siblings, int self, long open) {
        return real.pick(siblings, self, open);
    }

    @Override
    public long passedOverSlow() {
        return real.passedOverSlow();
    }

    @Override
    public boolean movesConnections() {
        return real.movesConnections();
    }

    @Override
    public boolean wakesOne() {
        return real.wakesOne();
    }

    @Override
    public void holdListener(Siblings siblings, int self, boolean held) {
        real.holdListener(siblings, self, held);
    }

    @Override
    public boolean admissionIsBusy() {
        return real.admissionIsBusy();
    }

    @Override
    public void passEnded() {
        real.passEnded();
    }

    @Override
    public void started(Siblings siblings, int self) {
        real.started(siblings, self);
    }

    @Override
    public boolean samplesBusy() {
        return real.samplesBusy();
    }

    @Override
    public void sample(Siblings siblings, int self, long busyNanosTotal) {
        real.sample(siblings, self, busyNanosTotal);
    }

    @Override
    public void sample(Siblings siblings, int self, long busyNanosTotal, long poolBusyNanosTotal, int poolThreads) {
        real.sample(siblings, self, busyNanosTotal, poolBusyNanosTotal, poolThreads);
    }

    @Override
    public boolean takeListener(Siblings siblings, int self, boolean readable) {
        return real.takeListener(siblings, self, readable);
    }

    @Override
    public long listenDeadline() {
        return real.listenDeadline();
    }

    @Override
    public boolean judgesShape() {
        return real.judgesShape();
    }

    @Override
    public boolean shape(long now, long shortCloses, long reuses) {
        return real.shape(now, shortCloses, reuses);
    }

    @Override
    public long shapeDeadline() {
        return real.shapeDeadline();
    }

    @Override
    public boolean balancing() {
        return real.balancing();
    }

    @Override
    public int endBatch(Siblings siblings, int self) {
        return real.endBatch(siblings, self);
    }
}
