package m0.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.function.IntConsumer;
import org.junit.jupiter.api.Test;

/**
 * {@link SupervisorShare}'s smaller rules: one worker shares nothing, every entry point rejects
 * an index outside the server, a replacing reap marks the index as starting, a failed spawn
 * clears it, and a reap asks a heal only of another worker's index named by the dead's SENDING.
 */
class SupervisorShareRulesTest {

    @Test
    void oneWorkerSharesNothingEvenWhenAsked() {
        Page page = AtomicLongArrayPage.forWorkers(1);
        assertFalse(new SupervisorShare<>(page, new QueueChannel<String>(1, 4), new FakeClock(0), 1, true).sharing());
        assertTrue(new Fixture(2).supervisor.sharing());
    }

    @Test
    void everyEntryPointRejectsAnIndexOutsideTheServer() {
        Fixture f = new Fixture(2);
        SupervisorShare<String> s = f.supervisor;
        List<IntConsumer> entries = List.of(s::spawning, s::started, s::startSeen, s::spawnFailed,
                s::markReaped, i -> s.markReaped(i, true), s::giveUp);
        for (IntConsumer entry : entries) {
            for (int bad : new int[] {2, -1}) {
                IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> entry.accept(bad));
                assertEquals("worker index " + bad + " not in 0..1", e.getMessage());
            }
        }
        assertEquals(0, f.page.peek(PageLayout.startingWord(2, 0)), "nothing written for a bad index");
    }

    @Test
    void aReplacingReapMarksTheIndexAsStartingAndAFailedSpawnClearsIt() {
        Fixture f = new Fixture(2).started();
        Siblings siblings = new Siblings(f.page, f.clock, 2);
        f.supervisor.markReaped(0, true);
        assertTrue(siblings.starting(0), "the replacement is coming");
        assertEquals(PageLayout.LEFT, f.state(0));
        f.supervisor.spawnFailed(0);
        assertFalse(siblings.starting(0), "it is not coming after all");
        f.supervisor.markReaped(1, false);
        assertFalse(siblings.starting(1));
    }

    @Test
    void aReapAsksAHealOfTheIndexTheDeadWasSendingToOnly() {
        Fixture f = new Fixture(3).started();
        f.put(PageLayout.sendingWord(0), 2 + 1); // w0 died mid-hand-off to w2, the last index
        f.supervisor.markReaped(0);
        assertTrue(Counts.healRequested(f.get(PageLayout.countsWord(2))));
        assertEquals(0, f.get(PageLayout.sendingWord(0)));

        f.put(PageLayout.sendingWord(1), 1 + 1); // w1's SENDING names itself
        f.supervisor.markReaped(1);
        assertFalse(Counts.healRequested(f.get(PageLayout.countsWord(1))),
                "its own index is healed by whoever takes it over, not asked here");
        assertEquals(0, f.get(PageLayout.sendingWord(1)));
    }

    @Test
    void aSendingWordThatNamesNoWorkerAsksNoHeal() {
        Fixture f = new Fixture(2).started();
        f.put(PageLayout.sendingWord(0), 2 + 1); // index 2: past the last worker
        f.supervisor.markReaped(0); // no counts word of an index 2 to ask in: nothing written there
        assertEquals(0, f.get(PageLayout.sendingWord(0)));
        assertFalse(Counts.healRequested(f.get(PageLayout.countsWord(1))));
    }
}
