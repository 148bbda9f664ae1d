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
 * Rolling reloads, one after another, as the supervisor steps them: a spawn starts the new worker
 * free, {@link Pinning} places its loop thread once its start is seen and re-places the running
 * ones whose rank moved (docs/adr/0070). The pinner is a stand-in that records; no process is
 * touched.
 */
class PinningTest {

    private static final int[] TWO = {0, 1};

    private final Slots slots = new Slots(2);
    private final CpuPlacement placement = CpuPlacement.of(CpuPlacement.Mode.AUTO, 2, TWO, false);
    private final Map<Integer, Integer> cpuOfPid = new TreeMap<>();
    private final List<String> pins = new ArrayList<>();
    private final Pinning pinning = new Pinning(slots, placement, TWO, (pid, cpus) -> {
        pins.add(pid + "->" + cpus.length);
        cpuOfPid.put(pid, cpus.length == 1 ? cpus[0] : -1);
    }, new RateLimitedLog(new PrintStream(new ByteArrayOutputStream()), "test: "));
    private int nextPid = 100;

    private long now;

    /** What Spawner does, free; then its start is seen on the page. */
    private void spawn(int index, int leaving) {
        spawnUnstarted(index);
        slots.at(index).sawStart(now);
    }

    private void spawnUnstarted(int index) {
        Slot s = slots.at(index);
        s.member = true;
        int pid = nextPid++;
        s.spawned(pid, 10 + index, -1);
        cpuOfPid.put(pid, -1);
    }

    /**
     * A reload as the supervisor runs it: step after step inside RollingReload (the next starts in
     * the same call that sees the last old worker reaped), the loop's pinning step idle while a step
     * is in progress, then at rest.
     */
    private void reload() {
        for (int old : List.copyOf(placed().keySet())) {
            int fresh = slots.freeIndex();
            spawn(fresh, old);
            pinning.step(true);
            leave(old);
            pinning.step(true);
        }
        pinning.step(false);
    }

    /** Slot.askToLeave without its SIGTERM (these pids are made up), then the exit's reap. */
    private void leave(int index) {
        Slot s = slots.at(index);
        s.member = false;
        s.retiring = true;
        s.reaped();
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
        pinning.step(false);
        assertEquals(Map.of(0, 0, 1, 1), placed());
        assertEquals(List.of("100->1", "101->1"), pins, "each loop placed once its start is seen");
        for (int reload = 1; reload <= 4; reload++) {
            reload();
            Map<Integer, Integer> placed = placed();
            assertEquals(List.of(0, 1), new ArrayList<>(placed.values()), "reload " + reload + ": " + placed);
        }
    }

    @Test
    void aWorkerIsPlacedOnlyOnceItsStartIsSeen() {
        // Before its start the loop thread may not be named yet: the pin would find no thread.
        spawnUnstarted(0);
        spawn(1, -1);
        pinning.step(false);
        assertEquals(List.of("101->1"), pins);
        assertEquals(-1, slots.at(0).cpu, "free until started");
        slots.at(0).sawStart(now);
        pinning.step(false);
        assertEquals(Map.of(0, 0, 1, 1), placed());
    }

    @Test
    void nothingMovesWhileAReloadStepIsInProgress() {
        spawn(0, -1);
        spawn(1, -1);
        pinning.step(false);
        pins.clear();
        spawn(slots.freeIndex(), 0); // 2 replaces 0, which still serves: 1 keeps CPU 1 meanwhile
        pinning.step(true);
        assertEquals(List.of(), pins);
        assertEquals(Map.of(0, 0, 1, 1, 2, -1), placed());
    }

    @Test
    void aFailedMoveIsTriedAgainAtTheNextStep() {
        spawn(0, -1);
        spawn(1, -1);
        pinning.step(false);
        slots.at(1).cpu = 0; // as if placed wrong
        int[] refusals = {1};
        int moved = slots.at(1).pid;
        Pinning refusing = new Pinning(slots, placement, TWO, (pid, cpus) -> {
            if (pid == moved && refusals[0]-- > 0) {
                throw new IllegalStateException("EINVAL");
            }
            cpuOfPid.put(pid, cpus[0]);
        }, new RateLimitedLog(new PrintStream(new ByteArrayOutputStream()), "test: "));
        refusing.step(false);
        assertEquals(0, slots.at(1).cpu, "refused: recorded as it is");
        refusing.step(false);
        assertEquals(Map.of(0, 0, 1, 1), placed());
    }
}
