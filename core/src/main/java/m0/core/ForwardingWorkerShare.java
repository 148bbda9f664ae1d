package m0.core;

import java.util.function.Consumer;

/**
 * A {@link WorkerShare} that forwards every operation to another: the base of a stand-in that
 * changes one or two of them (a checker's observer or mutant, a test fault of the server's), so
 * that each says only what it changes. {@link #passOn} is the interface's own composition, run
 * over this object's {@link #pick}, {@link #sendPicked}, {@link #sendWith}, {@link #keptIfUnchanged} and
 * {@link #kept}.
 */
public abstract class ForwardingWorkerShare<C> implements WorkerShare<C> {

    /** The protocol object the operations go to. */
    protected final WorkerShare<C> delegate;

    protected ForwardingWorkerShare(WorkerShare<C> delegate) {
        this.delegate = delegate;
    }

    @Override
    public int self() {
        return delegate.self();
    }

    @Override
    public boolean sharing() {
        return delegate.sharing();
    }

    @Override
    public AcceptPolicy policy() {
        return delegate.policy();
    }

    @Override
    public void bind() {
        delegate.bind();
    }

    @Override
    public void start() {
        delegate.start();
    }

    @Override
    public void passStart() {
        delegate.passStart();
    }

    @Override
    public void work() {
        delegate.work();
    }

    @Override
    public void admitted() {
        delegate.admitted();
    }

    @Override
    public void handshaking() {
        delegate.handshaking();
    }

    @Override
    public void passEnd(long open) {
        delegate.passEnd(open);
    }

    @Override
    public int pick(long open) {
        return delegate.pick(open);
    }

    @Override
    public boolean sendWith(int target, C connection) {
        return delegate.sendWith(target, connection);
    }

    @Override
    public int sendPicked(int target, C connection) {
        return delegate.sendPicked(target, connection);
    }

    @Override
    public boolean keptIfUnchanged(long open) {
        return delegate.keptIfUnchanged(open);
    }

    @Override
    public void kept(long open) {
        delegate.kept(open);
    }

    @Override
    public int endBatch() {
        return delegate.endBatch();
    }

    @Override
    public boolean takeListener(boolean readable) {
        return delegate.takeListener(readable);
    }

    @Override
    public long listenDeadline() {
        return delegate.listenDeadline();
    }

    @Override
    public void holdListener(boolean held) {
        delegate.holdListener(held);
    }

    @Override
    public void sample(long busyNanosTotal, long poolBusyNanosTotal, int poolThreads) {
        delegate.sample(busyNanosTotal, poolBusyNanosTotal, poolThreads);
    }

    @Override
    public void shape(long now, long shortCloses, long reuses) {
        delegate.shape(now, shortCloses, reuses);
    }

    @Override
    public long shapeDeadline() {
        return delegate.shapeDeadline();
    }

    @Override
    public boolean keepingEverywhere() {
        return delegate.keepingEverywhere();
    }

    @Override
    public C receive() {
        return delegate.receive();
    }

    @Override
    public boolean healDue() {
        return delegate.healDue();
    }

    @Override
    public void leave() {
        delegate.leave();
    }

    @Override
    public boolean leaveStep(Consumer<? super C> admit) {
        return delegate.leaveStep(admit);
    }

    @Override
    public boolean awaitingStart() {
        return delegate.awaitingStart();
    }

    @Override
    public boolean handOver(C connection) {
        return delegate.handOver(connection);
    }

    @Override
    public boolean mayMove(boolean handshakeBegun) {
        return delegate.mayMove(handshakeBegun);
    }

    @Override
    public boolean rebalances() {
        return delegate.rebalances();
    }

    @Override
    public int rebalancePick(long open, long settled, long affinities) {
        return delegate.rebalancePick(open, settled, affinities);
    }

    @Override
    public boolean settledOnly() {
        return delegate.settledOnly();
    }

    @Override
    public void publishSettled(long settled) {
        delegate.publishSettled(settled);
    }

    @Override
    public int affinityToMove(int target, long affinities) {
        return delegate.affinityToMove(target, affinities);
    }

    @Override
    public boolean swapping() {
        return delegate.swapping();
    }

    @Override
    public void publishAffinities(long affinities) {
        delegate.publishAffinities(affinities);
    }

    @Override
    public boolean rebalance(int target, C connection) {
        return delegate.rebalance(target, connection);
    }
}
