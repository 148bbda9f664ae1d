package m0.server.supervisor;

/**
 * SIGTTIN / SIGTTOU: one worker more at the lowest free index (at most 2N: the spare line stays
 * for a reload), or the highest-index worker asked to leave (at least one stays; never a reload
 * step's). The wanted count, which the death budget scales with, moves with them.
 */
final class Scaling {

    private final Slots slots;
    private final Spawner spawner;
    private final RollingReload reload;

    Scaling(Slots slots, Spawner spawner, RollingReload reload) {
        this.slots = slots;
        this.spawner = spawner;
        this.reload = reload;
    }

    /** {@code requests}: SIGTTINs less SIGTTOUs since the last call, taken one worker at a time. */
    void apply(int requests) {
        int d = requests;
        for (; d > 0; d--) {
            int i = slots.freeIndex();
            if (slots.members() >= slots.maxWorkers() || i < 0) {
                System.err.println("m0serve: SIGTTIN: already at " + slots.members()
                        + " workers, the most this page has lines for");
                break;
            }
            slots.wantOneMore();
            spawner.startFresh(i, "SIGTTIN");
        }
        for (; d < 0; d++) {
            int victim = -1;
            for (int i = slots.lines() - 1; i >= 0 && victim < 0; i--) {
                Slot s = slots.at(i);
                if (s.member && s.running() && !reload.involves(i)) {
                    victim = i;
                }
            }
            if (slots.members() <= 1 || victim < 0) {
                System.err.println("m0serve: SIGTTOU: keeping the last worker");
                break;
            }
            slots.wantOneFewer();
            slots.at(victim).askToLeave("SIGTTOU");
        }
    }
}
