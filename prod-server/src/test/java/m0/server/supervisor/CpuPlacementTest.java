package m0.server.supervisor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

class CpuPlacementTest {

    private static final int[] TWO = {0, 1};

    private static int[] cpus(CpuPlacement p, int workers) {
        return IntStream.range(0, workers).map(p::cpuOf).toArray();
    }

    @Test
    void autoPinsOneWorkerPerCpuInOrder() {
        CpuPlacement p = CpuPlacement.of(CpuPlacement.Mode.AUTO, 2, TWO, false);
        assertTrue(p.pinned());
        assertEquals(List.of(0, 1), IntStream.of(cpus(p, 2)).boxed().toList());
        assertEquals("m0serve: workers pinned: w0 on CPU 0, w1 on CPU 1 (each one's loop thread; its other threads "
                + "run free; --cpu-affinity off leaves all free)",
                p.describe(2));
    }

    @Test
    void autoFollowsTheAllowedSetNotCpuNumbers() {
        CpuPlacement p = CpuPlacement.of(CpuPlacement.Mode.AUTO, 3, new int[] {2, 5, 7}, false);
        assertEquals(List.of(2, 5, 7), IntStream.of(cpus(p, 3)).boxed().toList());
    }

    @Test
    void autoLeavesAWorkerAddedPastTheLastCpuFree() {
        CpuPlacement p = CpuPlacement.of(CpuPlacement.Mode.AUTO, 2, TWO, false);
        assertEquals(-1, p.cpuOf(2), "SIGTTIN's third worker on 2 CPUs");
    }

    @Test
    void autoLeavesFewerOrMoreWorkersThanCpusFree() {
        for (int workers : new int[] {1, 3, 4}) {
            CpuPlacement p = CpuPlacement.of(CpuPlacement.Mode.AUTO, workers, TWO, false);
            assertFalse(p.pinned(), workers + " workers");
            assertEquals(-1, p.cpuOf(0));
            assertNull(p.describe(workers));
        }
    }

    @Test
    void onWrapsWorkersPastTheLastCpu() {
        CpuPlacement p = CpuPlacement.of(CpuPlacement.Mode.ON, 4, new int[] {2, 3}, false);
        assertEquals(List.of(2, 3, 2, 3), IntStream.of(cpus(p, 4)).boxed().toList());
        assertEquals(2, p.cpuOf(4), "a worker added later (SIGTTIN) wraps too");
        assertEquals(List.of(2, 3), IntStream.of(p.cpus()).boxed().toList(), "the workers are told the CPUs once each");
        assertEquals("m0serve: workers pinned: w0 on CPU 2, w1 on CPU 3, w2 on CPU 2, w3 on CPU 3"
                + " (each one's loop thread; its other threads run free; --cpu-affinity off leaves all free)", p.describe(4));
    }

    @Test
    void autoLeavesAMainAppFreeAndOnPinsIt() {
        // Its handlers run on a pool, never the loop: pinning measured slower with an inference runtime (ADR 0070).
        assertFalse(CpuPlacement.of(CpuPlacement.Mode.AUTO, 2, TWO, true).pinned());
        CpuPlacement on = CpuPlacement.of(CpuPlacement.Mode.ON, 2, TWO, true);
        assertTrue(on.pinned());
        assertEquals(1, on.cpuOf(1));
    }

    @Test
    void offAndAnUnknownCpuSetLeaveEveryWorkerFree() {
        assertFalse(CpuPlacement.of(CpuPlacement.Mode.OFF, 2, TWO, false).pinned());
        assertFalse(CpuPlacement.of(CpuPlacement.Mode.ON, 2, new int[0], false).pinned());
        assertFalse(CpuPlacement.of(CpuPlacement.Mode.AUTO, 0, new int[0], false).pinned());
    }

    @Test
    void modesByName() {
        assertEquals(CpuPlacement.Mode.AUTO, CpuPlacement.Mode.named("auto"));
        assertEquals(CpuPlacement.Mode.ON, CpuPlacement.Mode.named("on"));
        assertEquals(CpuPlacement.Mode.OFF, CpuPlacement.Mode.named("off"));
        assertNull(CpuPlacement.Mode.named("AUTO"));
        assertNull(CpuPlacement.Mode.named("1"));
    }
}
