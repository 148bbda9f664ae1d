package m0.sim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.StringWriter;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import m0.core.loop.WorkerLoop;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The loop's decisions that no port can undo, undone in its source (issue 45): core's
 * {@code WorkerLoop.java} with one edit of {@code sim/loop-mutants.py} (the same text) is compiled
 * into a scratch directory, the simulator's classes are loaded over it in a loader of their own,
 * and the world must find it under the rule named. The sample timer is one such decision: the
 * loop's {@code nextSample} is its own state, set from the clock read that also ends the pass,
 * and no port answers whether a sample is due. The heal look and the settled order have port
 * mutants too ({@link LoopMutants}); their source edits run here as well, so that the port
 * mutants are known to stand for the edits. Excluded from {@code loop-mutants.py}'s runs (which
 * edit the same file on disk).
 */
class LoopSourceMutantsTest {

    /** name, scenario field of LoopScenarios, policy, the edit (old, new), the rule. */
    static Stream<Arguments> edits() {
        return Stream.of(
                Arguments.of("heal: no wake-up while sharing and idle", "HEAL_IDLE", "share",
                        "            return share.sharing() ? HEAL_LOOK_NANOS : -1;", "            return -1;", "HEAL-LOOK"),
                Arguments.of("pass end: the settled count published after the retire", "SETTLED", "share",
                        "        share.publishSettled(connections.settled());\n        share.passEnd(connections.open());",
                        "        share.passEnd(connections.open());\n        share.publishSettled(connections.settled());",
                        "SETTLED-SEEN"),
                Arguments.of("sample: no timer for the next sample", "SAMPLE_IDLE", "fountain",
                        "        if (sampling) {\n            next = Math.min(next, nextSample);\n        }", "", "SAMPLE"));
    }

    @ParameterizedTest(name = "{0}: {5}")
    @MethodSource("edits")
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void theWorldFindsTheEdit(String name, String scenario, String policy, String old, String edit, String rule)
            throws Exception {
        String found = firstRule(old, edit, scenario, policy);
        assertNotNull(found, name + ": no violation in " + scenario);
        assertEquals(rule, found, name);
    }

    /** The harness adds nothing: the source as it stands, compiled and loaded the same way, passes each world. */
    @Test
    @Timeout(value = 2, unit = TimeUnit.MINUTES)
    void theUneditedSourcePassesEveryWorld() throws Exception {
        String anchor = "        share.passEnd(connections.open());";
        for (String scenario : List.of("HEAL_IDLE", "SETTLED", "SAMPLE_IDLE")) {
            String policy = scenario.equals("SAMPLE_IDLE") ? "fountain" : "share";
            assertNull(firstRule(anchor, anchor, scenario, policy), scenario);
        }
    }

    /** The first violation's rule when the edited loop runs every interleaving of the world; null: none. */
    private static String firstRule(String old, String edit, String scenario, String policy) throws Exception {
        Path dir = Files.createTempDirectory("loop-mutant");
        try (URLClassLoader loader = compiled(dir, old, edit)) {
            Object world = loader.loadClass("m0.sim.LoopScenarios").getField(scenario).get(null);
            Object protocol = loader.loadClass("m0.sim.Policies").getMethod("named", String.class).invoke(null, policy);
            Class<?> explorer = loader.loadClass("m0.sim.Explorer");
            Object report = explorer.getMethod("exhaustive", world.getClass(), loader.loadClass("m0.sim.Protocol"),
                    boolean.class).invoke(null, world, protocol, true);
            Object first = report.getClass().getField("first").get(report);
            if (first == null) {
                return null;
            }
            List<?> violations = (List<?>) first.getClass().getField("violations").get(first);
            Object v = violations.get(0);
            System.out.println("== " + scenario + " (" + policy + "), WorkerLoop edited: " + v);
            return (String) v.getClass().getField("rule").get(v);
        } finally {
            deleteAll(dir);
        }
    }

    /** WorkerLoop with the edit, compiled into dir; m0's classes load from there first, then as built. */
    private static URLClassLoader compiled(Path dir, String old, String edit) throws IOException {
        Path source = Path.of("..", "core", "src", "main", "java", "m0", "core", "loop", "WorkerLoop.java");
        String text = Files.readString(source);
        int at = text.indexOf(old);
        assertTrue(at >= 0, "the edit's text is not in " + source + " (the loop changed: update the edit here and in"
                + " sim/loop-mutants.py): " + old);
        Path src = dir.resolve("src/m0/core/loop/WorkerLoop.java");
        Files.createDirectories(src.getParent());
        Files.writeString(src, text.substring(0, at) + edit + text.substring(at + old.length()));
        Path out = dir.resolve("classes");
        Files.createDirectories(out);
        Path core = location(WorkerLoop.class);
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assertNotNull(javac, "the simulator's tests run on a JDK (sim.jvm): its compiler builds the edited loop");
        StringWriter errors = new StringWriter();
        boolean ok = javac.getTask(errors, null, null, List.of("-d", out.toString(), "-cp", core.toString(),
                "-nowarn", "-proc:none"), null, javac.getStandardFileManager(null, null, null)
                .getJavaFileObjects(src)).call();
        assertTrue(ok, "the edited loop does not compile:\n" + errors);
        URL[] path = {out.toUri().toURL(), core.toUri().toURL(), location(Explorer.class).toUri().toURL(),
            location(LoopSourceMutantsTest.class).toUri().toURL()};
        return new URLClassLoader(path, LoopSourceMutantsTest.class.getClassLoader()) {
            @Override
            protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
                if (!name.startsWith("m0.")) {
                    return super.loadClass(name, resolve);
                }
                synchronized (getClassLoadingLock(name)) {
                    Class<?> c = findLoadedClass(name);
                    if (c == null) {
                        c = findClass(name); // child first: the edited loop, and every class that links to it
                    }
                    if (resolve) {
                        resolveClass(c);
                    }
                    return c;
                }
            }
        };
    }

    private static Path location(Class<?> c) {
        try {
            return Path.of(c.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (java.net.URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static void deleteAll(Path dir) throws IOException {
        try (Stream<Path> paths = Files.walk(dir)) {
            paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
    }
}
