package m0.server.worker;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.HashMap;
import java.util.Map;
import m0.core.PageLayout;
import org.junit.jupiter.api.Test;

/** The affinity counts and their mark (ADR 0057): read once, forgotten on the way out, bit j while any is j. */
class AffinitiesTest {

    private final Map<Integer, Integer> cpuOf = new HashMap<>();
    private final Affinities affinities = new Affinities(fd -> cpuOf.getOrDefault(fd, -1), cpu -> cpu % 2, 2, 3, 4);

    private Connection held(int fd, int cpu) {
        cpuOf.put(fd, cpu);
        Connection c = new Connection(fd, null);
        affinities.read(c);
        return c;
    }

    @Test
    void theMarkHasABitWhileAnyHeldConnectionPairsWithThatWorker() {
        Connection a = held(10, 0);
        Connection b = held(11, 3); // CPU 3 over 2 workers: worker 1
        Connection c = held(12, 1);
        assertEquals(1, b.affinity);
        assertEquals(PageLayout.affineBit(0) | PageLayout.affineBit(1), affinities.mark());
        affinities.forget(b);
        assertEquals(PageLayout.affineBit(0) | PageLayout.affineBit(1), affinities.mark(), "c still pairs with 1");
        affinities.forget(c);
        assertEquals(PageLayout.affineBit(0), affinities.mark());
        affinities.forget(a);
        affinities.forget(a); // a second forget (closed after a failed hand-off) counts nothing twice
        assertEquals(0, affinities.mark());
    }

    @Test
    void aConnectionIsReadOnceAndOneTheKernelCannotPlaceHasNoAffinity() {
        Connection a = held(10, 0);
        cpuOf.put(10, 1); // its client's thread moved: the reading stands
        affinities.read(a);
        assertEquals(0, a.affinity);
        Connection unknown = held(11, -1);
        assertEquals(Affinities.UNKNOWN, unknown.affinity);
        affinities.forget(unknown);
        assertEquals(PageLayout.affineBit(0), affinities.mark());
    }

    @Test
    void aConnectionIsReadAtItsThirdRequestHereNotBefore() {
        cpuOf.put(20, 1);
        Connection c = new Connection(20, null);
        affinities.requested(c, 2);
        assertEquals(Affinities.UNKNOWN, c.affinity);
        affinities.requested(c, 3);
        assertEquals(1, c.affinity);
        affinities.requested(c, 4);
        assertEquals(PageLayout.affineBit(1), affinities.mark(), "counted once");
        affinities.forget(c);
        assertEquals(0, affinities.mark());
    }

    @Test
    void aConnectionIsReadAgainEveryFourRequestsAndItsKindMovesWithTheReading() {
        cpuOf.put(30, 0);
        Connection c = new Connection(30, null);
        affinities.requested(c, 3);
        assertEquals(0, c.affinity);
        cpuOf.put(30, 1); // its client's thread was on the other CPU at the first reading
        for (int r = 4; r < 7; r++) {
            affinities.requested(c, r);
        }
        assertEquals(0, c.affinity, "three requests on: not yet");
        affinities.requested(c, 7);
        assertEquals(1, c.affinity, "the fourth: read again");
        assertEquals(PageLayout.affineBit(1), affinities.mark(), "counted under its new kind only");
        cpuOf.put(30, -1);
        for (int r = 8; r < 12; r++) {
            affinities.requested(c, r);
        }
        assertEquals(1, c.affinity, "a reading the kernel cannot give keeps the kind it had");
        assertEquals(PageLayout.affineBit(1), affinities.mark());
    }

    @Test
    void noneReadsNothing() {
        Affinities none = Affinities.none();
        Connection c = new Connection(10, null);
        none.read(c);
        assertEquals(Affinities.UNKNOWN, c.affinity);
        assertEquals(0, none.mark());
    }

    @Test
    void pinnedWorkersPairClientsOnTheirOwnCpuWhateverItsNumber() {
        java.util.function.IntUnaryOperator rankOf = cpu -> cpu % 2; // the core's map over 2 live workers
        java.util.function.IntUnaryOperator cpuset12 = Affinities.placedAmong(new int[] {1, 2}, rankOf);
        assertEquals(0, cpuset12.applyAsInt(1), "CPU 1 is worker 0's");
        assertEquals(1, cpuset12.applyAsInt(2), "CPU 2 is worker 1's");
        assertEquals(1, cpuset12.applyAsInt(5), "a CPU outside the set is asked as it is");
        assertEquals(1, Affinities.placedAmong(new int[0], rankOf).applyAsInt(3), "free workers: the CPU as it is");
    }
}
