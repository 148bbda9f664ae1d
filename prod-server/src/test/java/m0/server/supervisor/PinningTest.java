package m0.server.supervisor;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import m0.server.log.RateLimitedLog;
import org.junit.jupiter.api.Test;

/**
 * Rolling reloads, one after another, as the supervisor steps them: a spawn pins the new worker
 * by its rank (without the one it replaces), {@link Pinning} re-pins the running ones whose rank
 * moved. The pinner is a stand-in that records; no process is touched.
 */
class PinningTest {

    private static final int[] TWO = {0, 1};

    private final Slots slots = new Slots(2);
    private final CpuPlacement placement = CpuPlacement.of(CpuPlacement.Mode.AUTO, 2, TWO);
    private final Map<Integer, Integer> cpuOfPid = new TreeMap<>();
    private final List<String> pins = new ArrayList<>();
    private final Pinning pinning = new Pinning(slots, placement, TWO, (pid, cpus) -> {
        pins.add(pid + "->" + cpus.length);
        cpuOfPid.put(pid, cpus.length == 1 ? cpus[0] : -1);
    }, new RateLimitedLog(new PrintStream(new ByteArrayOutputStream()), "test: "));
    private int nextPid = 100;

    /** What Spawner does: the CPU of the new worker's rank, counted without {@code leaving}. */
    private void spawn(int index, int leaving) {
        Slot s = slots.at(index);
        s.member = true;
        int cpu = placement.cpuOf(slots.rank(index, leaving));
        int pid = nextPid++;
        s.spawned(pid, 10 + index, cpu);
        cpuOfPid.put(pid, cpu);
    }

    /** One reload step as RollingReload runs it, with a pinning step wherever the loop would take one. */
    private void reloadStep(int old) {
        int fresh = slots.freeIndex();
        spawn(fresh, old);
        pinning.step(old);
        leave(old);
        pinning.step(-1);
    }

    /** Slot.askToLeave without its SIGTERM (these pids are made up), then the exit's reap. */
    private void leave(int index) {
        Slot s = slots.at(index);
        s.member = false;
        s.reaped();
    }

    private void reload() {
        List<Integer> olds = new ArrayList<>();
        for (int i = 0; i < slots.lines(); i++) {
            if (slots.at(i).member && slots.at(i).running()) {
                olds.add(i);
            }
        }
        olds.forEach(this::reloadStep);
    }

    /** index to CPU of every running member, in index order */
    private Map<Integer, Integer> placed() {
        Map<Integer, Integer> m = new TreeMap<>();
        for (int i = 0; i < slots.lines(); i++) {
            Slot s = slots.at(i);
            if (s.running() && s.member) {
                assertEquals(s.cpu, cpuOfPid.get(s.pid), "worker " + i + ": the slot's CPU is the process's");
                m.put(i, s.cpu);
            }
        }
        return m;
    }

    @Test
    void everyReloadEndsWithRankROnCpuR() {
        spawn(0, -1);
        spawn(1, -1);
        pinning.step(-1);
        assertEquals(Map.of(0, 0, 1, 1), placed());
        assertEquals(List.of(), pins, "nothing to move after the start");
        for (int reload = 1; reload <= 4; reload++) {
            reload();
            Map<Integer, Integer> placed = placed();
            assertEquals(List.of(0, 1), new ArrayList<>(placed.values()), "reload " + reload + ": " + placed);
        }
    }

    @Test
    void withoutTheStepASecondReloadStacksBothWorkersOnOneCpu() {
        // The review's find: pinning only at the spawn, the second SIGHUP left both on CPU 0.
        spawn(0, -1);
        spawn(1, -1);
        for (int reload = 1; reload <= 2; reload++) {
            for (int old : List.copyOf(placedIndices())) {
                int fresh = slots.freeIndex();
                spawn(fresh, old);
                leave(old);
            }
        }
        assertEquals(List.of(0, 0), new ArrayList<>(placed().values()), "the fault the step mends");
    }

    private List<Integer> placedIndices() {
        return new ArrayList<>(placed().keySet());
    }
}
