package m0.server.supervisor;

/**
 * Every worker index the page has lines for, and how many workers are wanted.
 *
 * <p>{@code --workers N} makes {@code 2N + 1} lines: up to 2N running workers (SIGTTIN), and
 * always one spare, because a reload's replacement cannot take the index of a predecessor that
 * is still alive (docs/adr/0006). Pick skips lines that read NOT_STARTED or LEFT, so spare
 * lines cost nothing.
 */
final class Slots {

    private final Slot[] slots;
    /** Workers wanted: --workers, moved by SIGTTIN / SIGTTOU. The death budget scales with it. */
    private int wanted;

    Slots(int workers) {
        this.slots = new Slot[2 * workers + 1];
        for (int i = 0; i < slots.length; i++) {
            slots[i] = new Slot(i);
        }
        this.wanted = workers;
    }

    /** Lines on the page (worker indices), running or not. */
    int lines() {
        return slots.length;
    }

    /** Most workers SIGTTIN may bring up: every line but the reload's spare. */
    int maxWorkers() {
        return slots.length - 1;
    }

    Slot at(int index) {
        return slots[index];
    }

    int wanted() {
        return wanted;
    }

    void wantOneMore() {
        wanted++;
    }

    void wantOneFewer() {
        wanted--;
    }

    int running() {
        int n = 0;
        for (Slot s : slots) {
            if (s.running()) {
                n++;
            }
        }
        return n;
    }

    int members() {
        int n = 0;
        for (Slot s : slots) {
            if (s.member) {
                n++;
            }
        }
        return n;
    }

    /**
     * {@code index}'s rank among the workers wanted once {@code leaving} (-1: none) has left: how
     * many members sit at a lower index. The core pairs a client with the live worker of a rank
     * (Siblings.pairedWorker), so a worker pinned by its rank runs where its clients are sent
     * (ADR 0058), after a reload too: its replacements take other indices.
     */
    int rank(int index, int leaving) {
        int r = 0;
        for (int j = 0; j < index; j++) {
            if (j != leaving && slots[j].member) {
                r++;
            }
        }
        return r;
    }

    /** The lowest index nobody runs, wants, or drains; -1 when every line is taken. */
    int freeIndex() {
        for (Slot s : slots) {
            if (s.free()) {
                return s.index;
            }
        }
        return -1;
    }

    /** A respawn whose spawn failed waits for its retry. */
    boolean respawnDue() {
        for (Slot s : slots) {
            if (s.respawnAt != 0) {
                return true;
            }
        }
        return false;
    }

    /** A running worker's start has not been seen yet. */
    boolean startAwaited() {
        for (Slot s : slots) {
            if (s.awaitingStart()) {
                return true;
            }
        }
        return false;
    }
}
