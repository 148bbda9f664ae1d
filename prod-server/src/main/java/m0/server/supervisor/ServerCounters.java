package m0.server.supervisor;

import java.util.concurrent.atomic.AtomicIntegerArray;

/**
 * What the supervisor's loop counts and knows, for the metrics thread and the notify status:
 * written by the loop only, read by any thread (volatile words; no lock on the loop's path).
 */
public final class ServerCounters {

    private final AtomicIntegerArray pids;
    private volatile long respawns;
    private volatile long givenUp;
    private volatile long reloads;

    ServerCounters(int lines) {
        this.pids = new AtomicIntegerArray(lines);
        for (int i = 0; i < lines; i++) {
            pids.set(i, -1);
        }
    }

    void pid(int index, int pid) {
        pids.set(index, pid);
    }

    // Single writer (the loop): a read then a volatile store loses nothing.
    void respawned() {
        respawns = respawns + 1;
    }

    void gaveUp() {
        givenUp = givenUp + 1;
    }

    void reloaded() {
        reloads = reloads + 1;
    }

    public int lines() {
        return pids.length();
    }

    /** The worker process at {@code index}, or -1 when none runs there. */
    public int pid(int index) {
        return pids.get(index);
    }

    /** Workers replaced after dying without being asked to (docs/adr/0010). */
    public long respawns() {
        return respawns;
    }

    /** Indices given up (respawn budget spent, exit 78, or stopping). */
    public long givenUp() {
        return givenUp;
    }

    /** SIGHUP reloads begun. */
    public long reloads() {
        return reloads;
    }

    public int live() {
        int n = 0;
        for (int i = 0; i < pids.length(); i++) {
            if (pids.get(i) > 0) {
                n++;
            }
        }
        return n;
    }
}
