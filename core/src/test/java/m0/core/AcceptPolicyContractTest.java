package m0.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The seam's contract as the loop and the launcher read it: each policy's name, how its listener
 * wakes workers, and what a policy that overrides nothing (the race) answers to every question.
 */
class AcceptPolicyContractTest {

    private final FakeClock clock = new FakeClock(Fixture.T0);
    private final Siblings siblings = new Siblings(AtomicLongArrayPage.forWorkers(3), clock, 3);

    @Test
    void eachPolicyIsNamedAsAcceptPolicyFlagSpellsIt() {
        for (String name : new String[] {"share", "race", "fountain"}) {
            assertEquals(name, AcceptPolicy.named(name).name());
        }
        assertEquals("share", AcceptPolicy.share().name());
        assertEquals("race", AcceptPolicy.race().name());
        assertEquals("share", AcceptPolicy.defaultName(), "no --accept-policy: share, whatever the worker count");
        assertEquals("share", AcceptPolicy.named(AcceptPolicy.defaultName()).name());
        assertThrows(IllegalArgumentException.class, () -> AcceptPolicy.named("fair"));
    }

    /** EPOLLEXCLUSIVE for share and race; fountain wakes every waiter (ADR 0022). */
    @Test
    void onlyFountainHasEveryWaitingWorkerWokenByTheListener() {
        assertTrue(AcceptPolicy.share().wakesOne());
        assertTrue(AcceptPolicy.race().wakesOne());
        assertFalse(AcceptPolicy.fountain().wakesOne(), "a worker woken for a connection it leaves to its head would sit on it");
    }

    @Test
    void theRaceKeepsEveryConnectionEndsNoBatchAndHasNoMode() {
        AcceptPolicy race = AcceptPolicy.race();
        assertFalse(race.shares());
        assertEquals(2, race.pick(siblings, 2, 5), "whoever wins accept serves");
        assertEquals(AcceptPolicy.GO_ON, race.endBatch(siblings, 2));
        assertTrue(race.movesConnections());
        assertFalse(race.admissionIsBusy());
        assertFalse(race.samplesBusy());
        assertEquals(0, race.passedOverSlow());
        assertFalse(race.judgesShape());
        assertFalse(race.shape(clock.nanoTime(), 1_000, 0), "no gate: no mode to change");
        assertEquals(Long.MAX_VALUE, race.shapeDeadline(), "no shape reading wanted");
        assertTrue(race.balancing(), "no gate: never keeping");
        assertTrue(race.takeListener(siblings, 2, true));
        assertThrows(IllegalStateException.class, race::listenDeadline);
        assertTrue(AcceptPolicy.fountain().balancing(), "fountain has no shape gate either");
    }

    /** A policy (or a checker's wrapper) that knows only the loop's busy time still gets every reading. */
    @Test
    void aPolicyThatKnowsOnlyTheLoopsReadingGetsItFromThePoolAwareCall() {
        List<Long> readings = new ArrayList<>();
        AcceptPolicy loopOnly = new AcceptPolicy() {
            @Override
            public String name() {
                return "loop-only";
            }

            @Override
            public boolean shares() {
                return true;
            }

            @Override
            public int pick(Siblings s, int self, long open) {
                return self;
            }

            @Override
            public void sample(Siblings s, int self, long busyNanosTotal) {
                readings.add(busyNanosTotal);
            }
        };
        loopOnly.sample(siblings, 0, 7, 40, 4);
        assertEquals(List.of(7L), readings, "the loop's reading, the pool's ignored");
    }

    @Test
    void shareJudgesArrivalsWithTheShapeItIsGiven() {
        LoadShape shape = new LoadShape(1_000, 2, 1, 1);
        AcceptPolicy share = AcceptPolicy.share(shape);
        assertNotNull(share);
        assertFalse(share.shape(0, 0, 0));
        assertTrue(share.shape(10, 2, 0), "two short closes: this shape's evidence, not the default's 32");
        assertTrue(shape.keeping());
        assertFalse(share.balancing());
        assertEquals(1_000, share.shapeDeadline(), "keeping: its next judgement is the window's end");
    }
}
