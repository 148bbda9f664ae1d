package m0.lincheck;

import static m0.core.PageLayout.LEFT;
import static m0.core.PageLayout.PARKED;
import static m0.core.PageLayout.countsWord;
import static m0.core.PageLayout.stateWord;

import m0.core.AcceptPolicy;
import m0.core.Channel;
import m0.core.Counts;
import m0.core.HandOff;
import m0.core.Page;
import m0.core.PageLayout;
import m0.core.Siblings;

/**
 * The historical orderings the seed corrected, one per scenario, each a small re-implementation
 * of ONE operation through the same ports the core uses. They live here, in test code; the
 * core is never modified. Each must be caught by its scenario, or the build fails.
 */
final class Mutants {

    private Mutants() {
    }

    /** R5 reverted: send first, raise pending only after the send succeeded. */
    static final Worker.Sender R5_SEND_THEN_RAISE = (w, c) -> {
        int target = w.share.pick(w.open);
        if (target == w.actor.index) {
            return false;
        }
        if (!w.actor.channel.send(target, c)) {
            return false;
        }
        w.actor.page.getAndAdd(countsWord(target), Counts.RAISE);
        return true;
    };

    /** B25 send side reverted: raise, then send without reading the target's state again. */
    static final Worker.Sender B25_NO_RECHECK = (w, c) -> {
        int target = w.share.pick(w.open);
        if (target == w.actor.index) {
            return false;
        }
        Page page = w.actor.page;
        page.getAndAdd(countsWord(target), Counts.RAISE);
        if (!w.actor.channel.send(target, c)) {
            page.getAndAdd(countsWord(target), Counts.TAKE_BACK);
            return false;
        }
        return true;
    };

    /**
     * B25 idle side reverted: the leaver stores LEFT and drains as the core does, but admits
     * what its channel delivers and closes it as idle, where the core forwards it.
     */
    static void leaveClosingIdle(Worker w, int maxSteps) {
        leaveDraining(w, maxSteps, c -> w.world.closeUnserved(w.actor, c)); // closed before its first byte
    }

    /**
     * The core's leave as the mutants run it: LEFT first, then drain (each receipt taken, then
     * handed to {@code admit}, retired at the step's end) while pending - taken is above 0.
     */
    private static void leaveDraining(Worker w, int maxSteps, java.util.function.Consumer<Conn> admit) {
        Page page = w.actor.page;
        Channel<Conn> channel = w.actor.channel;
        int self = w.actor.index;
        page.setVolatile(stateWord(self), LEFT);
        for (int step = 0; step < maxSteps; step++) {
            long received = 0;
            Conn c;
            while ((c = channel.receive(self)) != null) {
                page.getAndAdd(countsWord(self), Counts.RECEIPT);
                received++;
                admit.accept(c);
            }
            if (received > 0) {
                page.getAndAdd(countsWord(self), Counts.retire(received));
            }
            if (Counts.inFlight(page.getVolatile(countsWord(self))) <= 0) {
                return;
            }
        }
        throw new AssertionError("DRAIN: the leaver's drain did not end in " + maxSteps + " steps");
    }

    /**
     * The slow-pass rule undone in forward (mutant-fwd-skips-slow, as in the simulator): the
     * first live sibling that is not inside a pass for over 2 ms, or -1. Pick skips a slow
     * sibling; a forward that does the same finds nobody when the only live one is slow.
     */
    static int fastLiveSibling(Siblings siblings, int exclude) {
        for (int i = 0; i < siblings.workers(); i++) {
            long state = siblings.state(i);
            if (i != exclude && Siblings.live(state) && !Siblings.slowPass(state, siblings.now())) {
                return i;
            }
        }
        return -1;
    }

    /**
     * The leaver of the core (LEFT first, drain while pending - taken is above 0), whose forward
     * skips slow siblings: with none fast, it admits what its drain meets and closes it as idle.
     */
    static void leaveForwardingToFastOnly(Worker w, int maxSteps) {
        int self = w.actor.index;
        Siblings siblings = new Siblings(w.actor.page, w.world.clock(), w.world.workers());
        HandOff<Conn> handOff = new HandOff<>(w.actor.page, w.actor.channel, siblings, PageLayout.sendingWord(self));
        leaveDraining(w, maxSteps, c -> {
            int target = fastLiveSibling(siblings, self);
            if (target < 0 || !handOff.sendWith(target, c)) {
                w.world.closeUnserved(w.actor, c);
            }
        });
    }

    /**
     * The give-up drain of the core, whose re-homing skips slow workers: with none fast, it
     * closes what it drained as if no worker were live.
     */
    static void giveUpForwardingToFastOnly(World world, World.Actor supervisor, int index) {
        Page page = supervisor.page;
        Channel<Conn> channel = supervisor.channel;
        Siblings siblings = new Siblings(page, world.clock(), world.workers());
        HandOff<Conn> handOff = new HandOff<>(page, channel, siblings, PageLayout.SUPERVISOR_SENDING_WORD);
        long drained = 0;
        while (Counts.inFlight(page.getVolatile(countsWord(index))) - drained > 0) {
            Conn c = channel.receive(index);
            if (c == null) {
                break;
            }
            drained++;
            int target = fastLiveSibling(siblings, index);
            if (target < 0 || !handOff.sendWith(target, c)) {
                world.closeNoSibling(supervisor, index, c);
            }
        }
        long taken = Counts.taken(page.getVolatile(countsWord(index)));
        page.getAndAdd(countsWord(index), Counts.retire(taken) - drained * Counts.PENDING_ONE);
    }

    /**
     * A heal that reads every raise it sees as orphaned (no SENDING looked at): worker 1's pass,
     * its receive and retire as the core has them, its heal at EAGAIN blind.
     */
    static void passHealingBlindly(Worker w) {
        Page page = w.actor.page;
        Channel<Conn> channel = w.actor.channel;
        int counts = countsWord(w.actor.index);
        w.share.passStart();
        long received = 0;
        for (;;) {
            Conn c = channel.receive(w.actor.index);
            if (c == null) {
                long before = page.getVolatile(counts);
                if (Counts.healRequested(before)) {
                    page.compareAndSet(counts, before, Counts.healed(before, Math.max(0, Counts.inFlight(before)), true));
                }
                break;
            }
            page.getAndAdd(counts, Counts.RECEIPT);
            received++;
            w.serve(c);
        }
        w.share.passEnd(w.open);
        if (received > 0) {
            page.getAndAdd(counts, Counts.retire(received));
        }
    }

    /** TAKEN reverted: a replacement's start marks PARKED and leaves pending and taken alone. */
    static void startKeepingTaken(Worker w) {
        w.actor.page.setVolatile(stateWord(w.actor.index), PARKED);
    }

    /** RB reverted: give up on an index by retiring its counters, without draining its channel. */
    static void giveUpWithoutDrain(World.Actor supervisor, int index) {
        Page page = supervisor.page;
        long taken = Counts.taken(page.getVolatile(countsWord(index)));
        page.getAndAdd(countsWord(index), Counts.retire(taken));
    }

    /**
     * NS reverted: the share pick as it was when 0 meant parked. It skips LEFT and slow passes
     * only, so a sibling that has not started reads as idle.
     */
    static final class NotStartedAsParked implements AcceptPolicy {

        @Override
        public String name() {
            return "share-ns-mutant";
        }

        @Override
        public boolean shares() {
            return true;
        }

        @Override
        public int pick(Siblings siblings, int self, long open) {
            int workers = siblings.workers();
            int choice = self;
            long best = open + siblings.inFlight(self); // own load as the core reads it (ADR 0007)
            int start = siblings.rotationStart();
            for (int k = 0; k < workers; k++) {
                int i = (start + k) % workers;
                if (i == self) {
                    continue;
                }
                long state = siblings.state(i);
                if (state == LEFT || Siblings.slowPass(state, siblings.now())) {
                    continue;
                }
                long load = siblings.load(i);
                if (load < best) {
                    best = load;
                    choice = i;
                }
            }
            return choice;
        }
    }
}
