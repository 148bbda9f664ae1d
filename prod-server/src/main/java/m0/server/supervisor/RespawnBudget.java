package m0.server.supervisor;

import java.util.ArrayDeque;
import java.util.concurrent.TimeUnit;

/**
 * The seed's respawn budget (SPEC E36), for deaths nobody asked for: an index is given up
 * after five deaths in a row each within a second of its start, and respawning stops after
 * more than ten times the wanted worker count of deaths within an hour.
 *
 * <p>"Its start" is the loop's start as the page shows it, not the spawn: a JVM takes about a
 * second to reach its loop here, so a death before the start was seen counts as fast however
 * long the app's init took. Times are the caller's {@code System.nanoTime()}. Not thread-safe:
 * the supervisor's loop owns it.
 */
final class RespawnBudget {

    static final long FAST_DEATH_NANOS = TimeUnit.SECONDS.toNanos(1);
    static final int MAX_FAST_DEATHS = 5;
    static final long WINDOW_NANOS = TimeUnit.HOURS.toNanos(1);
    static final int DEATHS_PER_WORKER = 10;

    private final int[] fastDeaths;
    private final ArrayDeque<Long> deaths = new ArrayDeque<>();
    private final int maxRespawns;
    private int respawns;

    /** {@code maxRespawns}: a cap over the server's life (a test hook); MAX_VALUE for none. */
    RespawnBudget(int lines, int maxRespawns) {
        this.fastDeaths = new int[lines];
        this.maxRespawns = maxRespawns;
    }

    /**
     * Worker {@code index} died unasked. Records the death and says whether to respawn it.
     *
     * @param startedAt when its start was seen, or 0 if it never was
     * @param wanted    workers the supervisor wants now (the hourly budget scales with it)
     * @return null: respawn it (counted); otherwise why not
     */
    String onDeath(int index, long now, long startedAt, int wanted) {
        boolean fast = startedAt == 0 || now - startedAt < FAST_DEATH_NANOS;
        fastDeaths[index] = fast ? fastDeaths[index] + 1 : 0;
        deaths.addLast(now);
        while (now - deaths.peekFirst() > WINDOW_NANOS) {
            deaths.removeFirst();
        }
        if (fastDeaths[index] >= MAX_FAST_DEATHS) {
            return MAX_FAST_DEATHS + " deaths in a row, each within a second of its start";
        }
        if (deaths.size() > DEATHS_PER_WORKER * wanted) {
            return (DEATHS_PER_WORKER * wanted) + " deaths within an hour";
        }
        if (respawns >= maxRespawns) {
            return "--dev-max-respawns " + maxRespawns + " spent";
        }
        respawns++;
        return null;
    }

    /** A new worker placed at {@code index} by a reload or SIGTTIN starts with a clean record. */
    void reset(int index) {
        fastDeaths[index] = 0;
    }

    int respawns() {
        return respawns;
    }
}
