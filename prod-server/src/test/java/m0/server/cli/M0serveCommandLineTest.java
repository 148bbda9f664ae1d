package m0.server.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import m0.server.settings.Catalog;
import m0.server.settings.SettingsReader;
import m0.server.supervisor.CpuPlacement;
import m0.server.supervisor.ServerConfig;
import org.junit.jupiter.api.Test;

/** The flags, in process: none of these starts a server. */
class M0serveCommandLineTest {

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();
    private final ByteArrayOutputStream err = new ByteArrayOutputStream();

    private int run(String... args) {
        return M0serve.run(args, Map.of(), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    /**
     * {@code config --show ARGS}: read and checked as a start would, but never served, so that a
     * check that wrongly passes cannot start a server inside the test's JVM.
     */
    private int check(Map<String, String> env, String... args) {
        String[] all = new String[args.length + 2];
        all[0] = "config";
        all[1] = "--show";
        System.arraycopy(args, 0, all, 2, args.length);
        return M0serve.run(all, env, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
    }

    private String out() {
        return out.toString(StandardCharsets.UTF_8);
    }

    private String err() {
        return err.toString(StandardCharsets.UTF_8);
    }

    @Test
    void aBadFlagPrintsOneLineAndExits2() {
        assertEquals(2, check(Map.of(), "--no-such-flag"));
        String e = err();
        assertEquals(1, e.lines().count(), "one line: " + e);
        assertTrue(e.startsWith("m0serve: ") && e.contains("--no-such-flag"), e);
        assertEquals("", out());
    }

    @Test
    void aProbeWhoseTargetRefusesSaysSoInOneLineAndExits1() throws java.io.IOException {
        int port;
        try (java.net.ServerSocket closed = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = closed.getLocalPort(); // closed again below: nothing listens there
        }
        assertEquals(1, run("probe", "--target", "127.0.0.1:" + port, "--rounds", "1", "--timeout-ms", "2000"));
        String e = err();
        assertEquals(1, e.lines().count(), "one line, no stack trace: " + e);
        assertTrue(e.startsWith("m0serve probe: java.net.ConnectException"), e);
    }

    @Test
    void badValuesAreUsageErrorsToo() {
        for (String[] args : new String[][] {
                {"--workers", "0"}, {"--workers", "x"}, {"--bind", "nohostport"}, {"--bind", "127.0.0.1:70000"},
                {"--accept-policy", "nope"}, {"--app", "no.such.App"}, {"--app", "java.lang.String"},
                {"--workers"}, {"--workers", "1", "--workers", "2"}, {"--workers", "07"}, {"--workers", "-1"},
                {"--workers", "+2"}, {"--workers", "0x10"}, {"--workers", "99999999999"}, {"--workers="},
                {"--bind", "--workers"}, {"--bind", "127.0.0.1:0", "stray"}, {"--rebalance", "maybe"},
                {"--max-header-bytes", "7"}, {"--defer-accept", "61"}, {"--defer-accept", "1.5"},
                {"--defer-accept", "on"}, {"--cpu-affinity", "yes"}, {"--cpu-affinity", "0"},
                {"--worker-heap", "8m"}, {"--worker-heap", "lots"}}) {
            err.reset();
            int status = check(Map.of(), args);
            String said = err();
            assertEquals(2, status, String.join(" ", args));
            assertEquals(1, said.lines().count(), said);
            assertTrue(said.startsWith("m0serve: ") && (said.contains(args[0].split("=")[0]) || said.contains(args[args.length - 1])), said);
        }
    }

    @Test
    void aValueIsNamedAsItsSourceSpellsIt() {
        assertEquals(2, check(Map.of(), "--workers", "0"));
        assertEquals("m0serve: --workers must be 1..256, got '0' (see --help)", err().strip());
        err.reset();
        assertEquals(2, check(Map.of("M0SERVE_WORKERS", "0")));
        assertEquals("m0serve: environment: M0SERVE_WORKERS must be 1..256, got '0'", err().strip());
    }

    @Test
    void mainIsCheckedAtStartInOneLine() {
        String main = HasMain.class.getName();
        Map<String[], String> cases = new java.util.LinkedHashMap<>();
        cases.put(new String[] {"--main", main, "--app", "builtin2"}, "--main and --app are alternatives");
        cases.put(new String[] {"--main", main, "--blocking-threads", "0"}, "--main needs --blocking-threads 1 or more");
        cases.put(new String[] {"--main", "no.such.Main"}, "--main: class not found: no.such.Main");
        cases.put(new String[] {"--main", "java.lang.Object"}, "has no public static void main(String[])");
        cases.put(new String[] {"--workers", "1", "--", "x"}, "arguments after -- are for --main's class");
        for (Map.Entry<String[], String> c : cases.entrySet()) {
            err.reset();
            assertEquals(2, check(Map.of(), c.getKey()), String.join(" ", c.getKey()));
            assertEquals(1, err().lines().count(), err());
            assertTrue(err().contains(c.getValue()), err());
        }
    }

    @Test
    void whatFollowsTheDoubleDashIsMainsWhateverItLooksLike() {
        SettingsReader.Parsed p = SettingsReader.read(Catalog.STANDARD,
                new String[] {"--main", HasMain.class.getName(), "--", "--workers", "9", "a=b"}, Map.of());
        ServerStart start = ServerStart.of(p, Map.of());
        assertEquals(List.of("--workers", "9", "a=b"), start.ops().mainArgs());
        assertEquals(1, start.config().workers());
        assertEquals(HasMain.class.getName(), start.ops().mainClass());
    }

    /** A class with a main, for --main's checks (never run here). */
    public static final class HasMain {
        public static void main(String[] args) {
            throw new AssertionError("not run by the command line's checks");
        }
    }

    @Test
    void helpAndVersionExitZero() {
        assertEquals(0, run("--help"));
        assertTrue(out().contains("--accept-policy") && out().contains("--blocking-threads"), out());
        assertTrue(out().contains("--worker-heap") && out().contains("config"), out());
        assertTrue(!out().contains("--dev-"), "developer settings are hidden: " + out());
        out.reset();
        assertEquals(0, run("--version"));
        assertTrue(out().startsWith("m0serve "), out());
    }

    @Test
    void defaultsAndThePolicyDefault() {
        ServerConfig one = parse();
        assertEquals("127.0.0.1", one.host().getHostAddress());
        assertEquals(8080, one.port());
        assertEquals(1, one.workers());
        assertEquals("builtin", one.app());
        assertEquals("share", one.acceptPolicy(), "one worker shares too: SIGTTIN may add a sibling");
        ServerConfig two = parse("--workers", "2");
        assertEquals("share", two.acceptPolicy(), "share by default with 2+ workers");
        assertEquals("race", parse("--workers", "2", "--accept-policy", "race").acceptPolicy());
        ServerConfig v6 = parse("--bind", "[::1]:0");
        assertEquals(0, v6.port());
        assertEquals(ServerConfig.DEFER_ON_CHURN, one.deferAcceptSeconds(), "deferral follows the load (ADR 0056)");
        assertEquals(ServerConfig.DEFER_ON_CHURN, parse("--defer-accept", "auto").deferAcceptSeconds());
        assertEquals(0, parse("--defer-accept", "0").deferAcceptSeconds());
        assertEquals(60, parse("--defer-accept=60").deferAcceptSeconds());
        assertEquals(CpuPlacement.Mode.AUTO, one.cpuAffinity(), "one worker per CPU is pinned (ADR 0058)");
        assertEquals(CpuPlacement.Mode.OFF, parse("--cpu-affinity", "off").cpuAffinity());
        assertEquals(CpuPlacement.Mode.ON, parse("--cpu-affinity", "on").cpuAffinity());
    }

    private static ServerConfig parse(String... args) {
        return ServerStart.of(SettingsReader.read(Catalog.STANDARD, args, Map.of()), Map.of()).config();
    }

    @Test
    void workerJavaOptionsAddToTheDefaults() {
        String opts = ServerStart.of(SettingsReader.read(Catalog.STANDARD,
                new String[] {"--worker-heap", "2g", "--worker-java-opts", "-Xss512k -Dx=y"}, Map.of()), Map.of())
                .knobs().workerJavaOpts();
        assertTrue(opts.startsWith("-XX:+UseSerialGC ") && opts.contains("-XX:PerMethodTrapLimit=0")
                && opts.contains("-XX:TrimNativeHeapInterval=1000"), "the defaults stay: " + opts);
        assertTrue(opts.endsWith(" -Xmx2g -Xss512k -Dx=y"), "the heap, then the operator's, last: " + opts);
        String plain = ServerStart.of(SettingsReader.read(Catalog.STANDARD, new String[0], Map.of()), Map.of())
                .knobs().workerJavaOpts();
        assertTrue(plain.endsWith(" -Xmx512m"), plain);
    }

    @Test
    void configShowPrintsEveryValueAndItsSource() {
        assertEquals(0, M0serve.run(new String[] {"config", "--show", "--workers", "3"},
                Map.of("M0SERVE_GRACE_MS", "700", "M0SERVE_WORKERS", "2"), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err)));
        String shown = out();
        assertTrue(shown.lines().anyMatch(l -> l.matches("workers = 3 +# command line")), shown);
        assertTrue(shown.lines().anyMatch(l -> l.matches("grace-ms = 700 +# environment M0SERVE_GRACE_MS")), shown);
        assertTrue(shown.lines().anyMatch(l -> l.matches("bind = 127\\.0\\.0\\.1:8080 +# default")), shown);
        assertTrue(shown.lines().anyMatch(l -> l.matches("access-log = +# default")), shown);
        assertEquals(2, M0serve.run(new String[] {"config"}, Map.of(), new PrintStream(out), new PrintStream(err)));
    }
}
