package m0.server.supervisor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The lines and the queries the loop's parts decide by; no process is touched. */
class SlotsTest {

    @Test
    void nWorkersMakeTwoNPlusOneLinesOneOfThemTheReloadsSpare() {
        Slots slots = new Slots(3);
        assertEquals(7, slots.lines());
        assertEquals(6, slots.maxWorkers());
        assertEquals(3, slots.wanted());
        assertEquals(0, slots.freeIndex());
    }

    @Test
    void anIndexIsFreeOnlyWhenNobodyRunsWantsOrDrainsIt() {
        Slots slots = new Slots(2);
        slots.at(0).spawned(100, 10, -1);
        slots.at(1).member = true;
        slots.at(2).givenUp(); // its drain still reads the channel
        assertEquals(3, slots.freeIndex());
        slots.at(2).draining = false;
        assertEquals(2, slots.freeIndex(), "the drain done: the lowest free index again");
        for (int i = 2; i < slots.lines(); i++) {
            slots.at(i).member = true;
        }
        assertEquals(-1, slots.freeIndex());
        assertEquals(1, slots.running());
        assertEquals(4, slots.members());
    }

    @Test
    void aRollingReloadsReplacementsTakeTheirPredecessorsRanks() {
        Slots slots = new Slots(2); // lines 0..4, workers at 0 and 1
        slots.at(0).member = true;
        slots.at(1).member = true;
        assertEquals(0, slots.rank(0, -1));
        assertEquals(1, slots.rank(1, -1));
        slots.at(2).member = true; // the reload's first step: 2 replaces 0
        assertEquals(1, slots.rank(2, 0), "counted without the worker it replaces: 1 stays rank 0");
        assertEquals(2, slots.rank(2, -1), "counted with it, it would be a third worker");
        slots.at(0).member = false; // 0 left; the second step: 0 (free again) replaces 1
        slots.at(0).member = true;
        assertEquals(0, slots.rank(0, 1));
        slots.at(1).member = false;
        assertEquals(1, slots.rank(2, -1), "after the reload, 0 and 2 hold ranks 0 and 1, as before it");
    }

    @Test
    void aStartIsAwaitedFromTheSpawnUntilThePageShowsIt() {
        Slots slots = new Slots(1);
        Slot s = slots.at(0);
        assertFalse(slots.startAwaited());
        s.spawned(100, 10, -1);
        assertTrue(slots.startAwaited());
        s.sawStart(0);
        assertFalse(slots.startAwaited());
        assertEquals(1, s.startedAtOrZero(), "a start seen at nanoTime 0 still reads as seen");
        s.reaped();
        assertFalse(s.running());
        s.spawned(101, 11, -1);
        assertEquals(0, s.startedAtOrZero(), "a new process: its start not seen yet");
    }

    @Test
    void aFailedRespawnIsDueUntilAGiveUpClearsIt() {
        Slots slots = new Slots(1);
        slots.at(0).respawnAt = 42;
        assertTrue(slots.respawnDue());
        slots.at(0).givenUp();
        assertFalse(slots.respawnDue());
        assertFalse(slots.at(0).member);
    }
}
