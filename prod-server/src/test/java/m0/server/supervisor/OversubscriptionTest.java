package m0.server.supervisor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The oversubscription line (docs/adr/0070): said once, when the workers' runnable threads
 * outnumber the CPUs at five looks in a row; not for a burst, not for what has not started; and the
 * /proc reading counts a spinning thread of this JVM and leaves the JIT's and GC's out.
 */
class OversubscriptionTest {

    private final Slots slots = new Slots(2);
    private final Map<Integer, Integer> runnable = new HashMap<>();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();
    private final Oversubscription watch = new Oversubscription(slots, 2, pid -> runnable.getOrDefault(pid, 0),
            new PrintStream(err, true, StandardCharsets.UTF_8), "2 workers x 2 blocking threads");
    private long now;

    private void started(int index, int pid) {
        Slot s = slots.at(index);
        s.member = true;
        s.spawned(pid, 10 + index, -1);
        s.sawStart(now);
    }

    private void looks(int n) {
        for (int i = 0; i < n; i++) {
            watch.step(now);
            now += Oversubscription.LOOK_NANOS;
        }
    }

    private long lines() {
        return err.toString(StandardCharsets.UTF_8).lines().count();
    }

    @Test
    void twoWorkersOfTwoRuntimeThreadsEachOnTwoCpusIsSaidOnce() {
        started(0, 100);
        started(1, 101);
        runnable.put(100, 2);
        runnable.put(101, 2);
        looks(Oversubscription.LOOKS - 1);
        assertEquals(0, lines(), "not before the window is full");
        looks(1);
        assertTrue(watch.said());
        String line = err.toString(StandardCharsets.UTF_8);
        assertTrue(line.startsWith("m0serve: warning: the workers' threads want more CPUs than there are: at least 4"
                + " runnable at each of 5 looks 2 s apart, on 2 CPUs (2 workers x 2 blocking threads)"), line);
        looks(20);
        assertEquals(1, lines(), "once");
    }

    @Test
    void aSizedServerOrABurstIsNot() {
        started(0, 100);
        started(1, 101);
        runnable.put(100, 1);
        runnable.put(101, 1);
        looks(10);
        runnable.put(100, 6); // bursts, one look in two: never five in a row
        for (int i = 0; i < 10; i++) {
            runnable.put(100, i % 2 == 0 ? 6 : 1);
            looks(1);
        }
        assertFalse(watch.said(), err.toString(StandardCharsets.UTF_8));
    }

    @Test
    void aWorkerNotYetStartedIsNotLookedAt() {
        started(0, 100);
        Slot s = slots.at(1);
        s.member = true;
        s.spawned(101, 11, -1); // still loading its app: its JIT and class loading are no app's threads
        runnable.put(101, 8);
        looks(10);
        assertFalse(watch.said());
    }

    @Test
    void looksAreTwoSecondsApart() {
        started(0, 100);
        runnable.put(100, 8);
        for (int i = 0; i < 20; i++) {
            watch.step(now); // the supervisor's loop may pass many times a second
        }
        assertFalse(watch.said(), "one look so far");
    }

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void theProcReadingCountsASpinningThread() throws Exception {
        int pid = (int) ProcessHandle.current().pid();
        AtomicBoolean stop = new AtomicBoolean();
        CountDownLatch spinning = new CountDownLatch(1);
        Thread spin = new Thread(() -> {
            spinning.countDown();
            while (!stop.get()) {
                Thread.onSpinWait();
            }
        }, "spinner");
        int before = Oversubscription.runnableThreads(pid); // this thread, reading: at least 1
        spin.start();
        try {
            spinning.await();
            int with = 0;
            for (int i = 0; i < 50 && with <= before; i++) { // a spinner preempted is still R: a look or two suffice
                with = Math.max(with, Oversubscription.runnableThreads(pid));
            }
            assertTrue(with > before, "before " + before + ", with a spinner " + with);
        } finally {
            stop.set(true);
            spin.join(10_000);
        }
        assertTrue(Oversubscription.runnableAppThread("12 (spinner) R 1 2 3"));
        assertFalse(Oversubscription.runnableAppThread("12 (spinner) S 1 2 3"));
        assertFalse(Oversubscription.runnableAppThread("13 (C2 CompilerThre) R 1 2 3"), "the JIT's");
        assertFalse(Oversubscription.runnableAppThread("14 (GC Thread#0) R 1 2 3"), "the GC's");
        assertFalse(Oversubscription.runnableAppThread("16 (m0-loop) R 1 2 3"), "the loop's");
        assertTrue(Oversubscription.runnableAppThread("17 (m0-blocking-0) R 1 2 3"), "a handler's");
        assertTrue(Oversubscription.runnableAppThread("15 (a (b) c) R 1"), "a comm with parentheses");
    }
}
