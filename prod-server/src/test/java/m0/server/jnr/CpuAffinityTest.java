package m0.server.jnr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * {@link CpuAffinity#pinLoop} on this test's own JVM (docs/adr/0070): the thread of that name is
 * set to one CPU and the others are left as they are; a thread the pinned one makes afterwards
 * inherits its CPU (why a worker makes its pool before it names its loop).
 */
class CpuAffinityTest {

    private static final String LOOP = "m0-looptest";
    private static final String CHILD = "m0-inherited";

    @Test
    @Timeout(value = 30, unit = TimeUnit.SECONDS)
    void pinsTheNamedThreadAlone() throws Exception {
        int[] all = CpuAffinity.allowed();
        assumeTrue(all.length >= 2, "needs two CPUs");
        int pid = (int) ProcessHandle.current().pid();
        CountDownLatch running = new CountDownLatch(1);
        CountDownLatch pinned = new CountDownLatch(1);
        CountDownLatch childMade = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(1);
        List<Thread> made = new ArrayList<>();
        Thread loop = new Thread(() -> {
            running.countDown(); // its name is the kernel's once it runs
            try {
                pinned.await();
                Thread child = new Thread(() -> {
                    childMade.countDown(); // as for the loop: its name is the kernel's once it runs
                    await(done);
                }, CHILD);
                made.add(child);
                child.start();
                done.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, LOOP);
        loop.start();
        try {
            assertTrue(running.await(10, TimeUnit.SECONDS));
            assertEquals(1, CpuAffinity.pinLoop(pid, LOOP, new int[] {all[0]}), "one thread of that name");
            assertEquals(Integer.toString(all[0]), cpusOf(pid, LOOP), "the loop thread");
            assertEquals(list(all), cpusOf(pid, "Finalizer"), "another thread, untouched");
            pinned.countDown();
            assertTrue(childMade.await(10, TimeUnit.SECONDS));
            assertEquals(Integer.toString(all[0]), cpusOf(pid, CHILD), "made by the pinned loop: inherited its CPU");
            assertEquals(list(all), cpusOf(pid, "Finalizer"), "still untouched");
        } finally {
            done.countDown();
            loop.join(10_000);
            for (Thread t : made) {
                t.join(10_000);
            }
        }
    }

    @Test
    void noThreadOfThatNameIsAnError() {
        int[] all = CpuAffinity.allowed();
        int pid = (int) ProcessHandle.current().pid();
        NativeException e = assertThrows(NativeException.class,
                () -> CpuAffinity.pinLoop(pid, "m0-nosuchthread", new int[] {all[0]}));
        assertTrue(e.getMessage().contains("m0-nosuchthread"), e.getMessage());
    }

    private static void await(CountDownLatch l) {
        try {
            l.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The Cpus_allowed_list of the one thread of {@code pid} whose comm is {@code name}. */
    private static String cpusOf(int pid, String name) throws IOException {
        List<String> found = new ArrayList<>();
        try (Stream<Path> tasks = Files.list(Path.of("/proc/" + pid + "/task"))) {
            for (Path t : tasks.toList()) {
                if (Files.readString(t.resolve("comm")).trim().equals(name)) {
                    for (String line : Files.readAllLines(t.resolve("status"))) {
                        if (line.startsWith("Cpus_allowed_list:")) {
                            found.add(line.substring(line.indexOf(':') + 1).trim());
                        }
                    }
                }
            }
        }
        assertEquals(1, found.size(), "threads named " + name + ": " + found);
        return found.get(0);
    }

    private static String list(int[] cpus) {
        return cpus.length == 1 ? Integer.toString(cpus[0]) : cpus[0] + "-" + cpus[cpus.length - 1];
    }
}
