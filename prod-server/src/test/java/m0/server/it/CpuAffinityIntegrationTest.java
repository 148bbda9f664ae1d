package m0.server.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import m0.server.jnr.CpuAffinity;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * ADR 0058 on the real binary: with one worker per usable CPU, every thread of worker i's JVM
 * runs only on the i-th CPU from its first instruction, told how many CPUs the server has;
 * the supervisor keeps every CPU, and so does a worker under {@code --cpu-affinity off}. The
 * worker count is this machine's CPU count, so the test means the same on any machine.
 */
class CpuAffinityIntegrationTest {

    private static final Pattern PINNED = Pattern.compile("workers pinned: (.*) \\(");

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void oneWorkerPerCpuPinsEachThreadOfEachWorker() throws Exception {
        int[] cpus = CpuAffinity.allowed();
        String all = list(cpus);
        try (ServerProcess s = ServerProcess.start("--workers", Integer.toString(cpus.length))) {
            assertNotNull(s.awaitReady(30), "ready line");
            StringBuilder expected = new StringBuilder();
            for (int i = 0; i < cpus.length; i++) {
                long w = s.workerPid(i);
                assertTrue(w > 0, "worker " + i);
                assertEquals(Set.of(Integer.toString(cpus[i])), threadCpus(w), "worker " + i + "'s threads");
                assertTrue(cmdline(w).contains("-XX:ActiveProcessorCount=" + cpus.length), cmdline(w));
                expected.append(i == 0 ? "" : ", ").append("w").append(i).append(" on CPU ").append(cpus[i]);
            }
            assertEquals(Set.of(all), threadCpus(s.pid()), "the supervisor's threads keep every CPU");
            assertEquals(expected.toString(), s.awaitLine(PINNED, 5), "the start line names each worker's CPU");
        }
    }

    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void offLeavesEveryWorkerFree() throws Exception {
        int[] cpus = CpuAffinity.allowed();
        try (ServerProcess s = ServerProcess.start("--workers", Integer.toString(cpus.length), "--cpu-affinity", "off")) {
            assertNotNull(s.awaitReady(30), "ready line");
            for (int i = 0; i < cpus.length; i++) {
                long w = s.workerPid(i);
                assertEquals(Set.of(list(cpus)), threadCpus(w), "worker " + i + "'s threads");
                assertFalse(cmdline(w).contains("ActiveProcessorCount"), cmdline(w));
            }
            assertEquals(null, s.awaitLine(PINNED, 1), "no pinned line");
        }
    }

    /** Each distinct Cpus_allowed_list among {@code pid}'s threads, as the kernel writes it ("0-1", "3"). */
    private static Set<String> threadCpus(long pid) throws IOException {
        Set<String> lists = new TreeSet<>();
        try (Stream<Path> tasks = Files.list(Path.of("/proc/" + pid + "/task"))) {
            for (Path t : tasks.toList()) {
                try {
                    for (String line : Files.readAllLines(t.resolve("status"))) {
                        if (line.startsWith("Cpus_allowed_list:")) {
                            lists.add(line.substring(line.indexOf(':') + 1).trim());
                        }
                    }
                } catch (IOException e) {
                    // the thread ended meanwhile
                }
            }
        }
        return lists;
    }

    private static String cmdline(long pid) throws IOException {
        return Files.readString(Path.of("/proc/" + pid + "/cmdline"), StandardCharsets.UTF_8).replace('\0', ' ');
    }

    /** {@code cpus} as the kernel's list format: ascending runs as "a-b", joined by commas. */
    private static String list(int[] cpus) {
        List<String> runs = new java.util.ArrayList<>();
        for (int i = 0; i < cpus.length; ) {
            int j = i;
            while (j + 1 < cpus.length && cpus[j + 1] == cpus[j] + 1) {
                j++;
            }
            runs.add(i == j ? Integer.toString(cpus[i]) : cpus[i] + "-" + cpus[j]);
            i = j + 1;
        }
        return runs.stream().collect(Collectors.joining(","));
    }
}
