package m0.server.supervisor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/** The seed's budget on a fake clock: the nanoTime values are the test's. */
class RespawnBudgetTest {

    private static final long SECOND = TimeUnit.SECONDS.toNanos(1);
    private static final long T0 = 1_000 * SECOND;

    @Test
    void fiveFastDeathsInARowGiveTheIndexUp() {
        RespawnBudget b = new RespawnBudget(3, Integer.MAX_VALUE);
        long now = T0;
        for (int k = 1; k < 5; k++) {
            now += 2 * SECOND;
            assertNull(b.onDeath(1, now, now - SECOND / 2, 2), "death " + k + " within a second: respawn");
        }
        String why = b.onDeath(1, now + SECOND, now + SECOND - 10, 2);
        assertNotNull(why);
        assertTrue(why.contains("5 deaths in a row"), why);
        assertEquals(4, b.respawns());
    }

    @Test
    void aDeathBeforeTheStartWasSeenIsFastHoweverLongItTook() {
        RespawnBudget b = new RespawnBudget(2, Integer.MAX_VALUE);
        for (int k = 0; k < 4; k++) {
            assertNull(b.onDeath(0, T0 + k * 60 * SECOND, 0, 1));
        }
        assertNotNull(b.onDeath(0, T0 + 5 * 60 * SECOND, 0, 1));
    }

    @Test
    void aWorkerThatLivedASecondClearsTheRunAndAReloadResetsIt() {
        RespawnBudget b = new RespawnBudget(2, Integer.MAX_VALUE);
        long now = T0;
        for (int k = 0; k < 4; k++) {
            assertNull(b.onDeath(0, now += SECOND, now - 1, 2));
        }
        assertNull(b.onDeath(0, now += 10 * SECOND, now - 5 * SECOND, 2), "a slow death resets the run");
        for (int k = 0; k < 4; k++) {
            assertNull(b.onDeath(0, now += SECOND, now - 1, 2));
        }
        b.reset(0); // a reload placed a new worker here
        assertNull(b.onDeath(0, now += SECOND, now - 1, 2));
    }

    @Test
    void moreThanTenTimesTheWorkersWithinAnHourStopsRespawning() {
        RespawnBudget b = new RespawnBudget(5, Integer.MAX_VALUE);
        long now = T0;
        // Slow deaths, alternating indices: no fast run, only the hourly count.
        for (int k = 0; k < 20; k++) {
            now += 60 * SECOND;
            assertNull(b.onDeath(k % 2, now, now - 30 * SECOND, 2), "death " + (k + 1) + " of 20 allowed");
        }
        String why = b.onDeath(0, now + 60 * SECOND, now, 2);
        assertNotNull(why);
        assertTrue(why.contains("20 deaths within an hour"), why);
    }

    @Test
    void deathsOlderThanAnHourNoLongerCount() {
        RespawnBudget b = new RespawnBudget(3, Integer.MAX_VALUE);
        long now = T0;
        for (int k = 0; k < 10; k++) {
            assertNull(b.onDeath(k % 2, now += 2 * SECOND, now - SECOND - 1, 1));
        }
        now += TimeUnit.HOURS.toNanos(1) + SECOND;
        assertNull(b.onDeath(0, now, now - 2 * SECOND, 1), "the earlier ten are out of the window");
    }

    @Test
    void theTestCapRefusesOnceSpent() {
        RespawnBudget none = new RespawnBudget(2, 0);
        assertTrue(none.onDeath(1, T0, T0 - 10 * SECOND, 2).contains("--dev-max-respawns 0 spent"));
        RespawnBudget one = new RespawnBudget(2, 1);
        assertNull(one.onDeath(1, T0, T0 - 10 * SECOND, 2));
        assertNotNull(one.onDeath(1, T0 + 20 * SECOND, T0 + 5 * SECOND, 2));
    }
}
