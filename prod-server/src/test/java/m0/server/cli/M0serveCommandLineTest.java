package m0.server.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import m0.server.supervisor.CpuPlacement;
import m0.server.supervisor.ServerConfig;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/** The flags, in process: none of these starts a server. */
class M0serveCommandLineTest {

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        CommandLine cl = M0serve.commandLine();
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        return cl.execute(args);
    }

    @Test
    void aBadFlagPrintsOneLineAndExits2() {
        assertEquals(2, run("--no-such-flag"));
        String e = err.toString();
        assertEquals(1, e.lines().count(), "one line: " + e);
        assertTrue(e.startsWith("m0serve: ") && e.contains("--no-such-flag"), e);
        assertEquals("", out.toString());
    }

    @Test
    void aProbeWhoseTargetRefusesSaysSoInOneLineAndExits1() throws java.io.IOException {
        int port;
        try (java.net.ServerSocket closed = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            port = closed.getLocalPort(); // closed again below: nothing listens there
        }
        assertEquals(1, run("probe", "--target", "127.0.0.1:" + port, "--rounds", "1", "--timeout-ms", "2000"));
        String e = err.toString();
        assertEquals(1, e.lines().count(), "one line, no stack trace: " + e);
        assertTrue(e.startsWith("m0serve probe: java.net.ConnectException"), e);
    }

    @Test
    void badValuesAreUsageErrorsToo() {
        for (String[] args : new String[][] {
                {"--workers", "0"}, {"--workers", "x"}, {"--bind", "nohostport"}, {"--bind", "127.0.0.1:70000"},
                {"--accept-policy", "nope"}, {"--app", "no.such.App"}, {"--app", "java.lang.String"}}) {
            StringWriter e = new StringWriter();
            CommandLine cl = M0serve.commandLine();
            cl.setErr(new PrintWriter(e, true));
            assertEquals(2, cl.execute(args), String.join(" ", args));
            assertEquals(1, e.toString().lines().count(), e.toString());
        }
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
            StringWriter e = new StringWriter();
            CommandLine cl = M0serve.commandLine();
            cl.setErr(new PrintWriter(e, true));
            assertEquals(2, cl.execute(c.getKey()), String.join(" ", c.getKey()));
            assertEquals(1, e.toString().lines().count(), e.toString());
            assertTrue(e.toString().contains(c.getValue()), e.toString());
        }
    }

    @Test
    void whatFollowsTheDoubleDashIsMainsWhateverItLooksLike() {
        M0serve m = M0serve.plain(new String[] {"--main", HasMain.class.getName(), "--", "--workers", "9", "a=b"});
        assertNotNull(m);
        assertEquals(List.of("--workers", "9", "a=b"), m.mainArgs);
        assertEquals(1, m.workers);
        assertEquals(HasMain.class.getName(), m.operatorConfig().mainClass());
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
        assertTrue(out.toString().contains("--accept-policy") && out.toString().contains("--blocking-threads"));
        out.getBuffer().setLength(0);
        assertEquals(0, run("--version"));
        assertTrue(out.toString().startsWith("m0serve "), out.toString());
    }

    @Test
    void defaultsAndThePolicyDefault() {
        ServerConfig one = parse();
        assertEquals("127.0.0.1", one.host().getHostAddress());
        assertEquals(8080, one.port());
        assertEquals(1, one.workers());
        assertEquals("builtin", one.app());
        boolean knobOff = "0".equals(System.getenv("M0_ACCEPT_SHARE"));
        assertEquals(knobOff ? "race" : "share", one.acceptPolicy(),
                "one worker shares too: SIGTTIN may add a sibling");
        ServerConfig two = parse("--workers", "2");
        assertEquals(knobOff ? "race" : "share", two.acceptPolicy(), "share by default with 2+ workers");
        assertEquals("race", parse("--workers", "2", "--accept-policy", "race").acceptPolicy());
        ServerConfig v6 = parse("--bind", "[::1]:0");
        assertEquals(0, v6.port());
        assertEquals(ServerConfig.DEFER_ON_CHURN, one.deferAcceptSeconds(), "deferral follows the load (ADR 0056)");
        assertEquals(ServerConfig.DEFER_ON_CHURN, parse("--defer-accept", "auto").deferAcceptSeconds());
        assertEquals(0, parse("--defer-accept", "0").deferAcceptSeconds());
        assertEquals(60, parse("--defer-accept", "60").deferAcceptSeconds());
        assertEquals(CpuPlacement.Mode.AUTO, one.cpuAffinity(), "one worker per CPU is pinned (ADR 0058)");
        assertEquals(CpuPlacement.Mode.OFF, parse("--cpu-affinity", "off").cpuAffinity());
        assertEquals(CpuPlacement.Mode.ON, parse("--cpu-affinity", "on").cpuAffinity());
    }

    private static ServerConfig parse(String... args) {
        M0serve m = new M0serve();
        new CommandLine(m).parseArgs(args);
        return m.config();
    }

    // --- the plain path (M0serve.plain, docs/adr/0027): the same options and values as picocli ---

    /** Every server option picocli knows (help and version are picocli's alone). */
    private static List<CommandLine.Model.OptionSpec> serverOptions() {
        return M0serve.commandLine().getCommandSpec().options().stream()
                .filter(o -> !o.usageHelp() && !o.versionHelp()).toList();
    }

    /** A value of the option's type that the plain path must read. */
    private static String sample(CommandLine.Model.OptionSpec o) {
        return o.type() == int.class || o.type() == long.class ? "7" : "host-" + o.longestName().substring(2) + ":9";
    }

    /** Every option's value, by name, as the fields hold them. */
    private static Map<String, Object> values(M0serve m) {
        Map<String, Object> v = new TreeMap<>();
        for (CommandLine.Model.OptionSpec o : new CommandLine(m).getCommandSpec().options()) {
            if (!o.usageHelp() && !o.versionHelp()) {
                v.put(o.longestName(), o.getValue());
            }
        }
        return v;
    }

    private static Map<String, Object> viaPicocli(String... args) {
        M0serve m = new M0serve();
        new CommandLine(m).parseArgs(args);
        return values(m);
    }

    @Test
    void thePlainPathReadsEveryServerOptionAsPicocliDoes() {
        List<CommandLine.Model.OptionSpec> options = serverOptions();
        assertTrue(options.size() >= 16, "the server's options: " + options.size());
        for (CommandLine.Model.OptionSpec o : options) {
            String name = o.longestName();
            for (String[] args : new String[][] {{name, sample(o)}, {name + "=" + sample(o)}}) {
                M0serve plain = M0serve.plain(args);
                assertNotNull(plain, "the plain path reads " + String.join(" ", args));
                assertEquals(viaPicocli(args), values(plain), String.join(" ", args));
            }
        }
        assertEquals(viaPicocli(), values(M0serve.plain(new String[0])), "the defaults");
        String[] all = {"--workers", "4", "--bind=127.0.0.1:0", "--access-log", "-", "--rebalance", "off",
            "--cpu-affinity", "off", "--max-connections", "0", "--grace-ms", "1000000000000"};
        assertEquals(viaPicocli(all), values(M0serve.plain(all)), String.join(" ", all));
    }

    @Test
    void anythingButThePlainCaseIsLeftToPicocli() {
        for (String[] args : new String[][] {
                {"--help"}, {"-h"}, {"--version"}, {"-V"}, {"stats"}, {"probe", "--target", "127.0.0.1:1"},
                {"--workers"}, {"--workers", "1", "--workers", "2"}, {"--workers", "07"}, {"--workers", "x"},
                {"--workers", "-1"}, {"--workers", "+2"}, {"--workers", "0x10"}, {"--workers", "99999999999"},
                {"--workers="}, {"--no-such-flag", "1"}, {"--bind", "--workers"}, {"--bind", "127.0.0.1:0", "stray"}}) {
            assertNull(M0serve.plain(args), String.join(" ", args));
        }
    }

    @Test
    void aPlainCommandWhoseValuesFailValidationIsNotServed() {
        // main() then runs picocli over the same arguments, which prints the one line and exits 2
        // (CommandLineIntegrationTest runs that on a real JVM).
        for (String[] args : new String[][] {{"--workers", "0"}, {"--bind", "nohostport"}, {"--app", "no.such.App"},
                {"--rebalance", "maybe"}, {"--max-header-bytes", "7"}, {"--defer-accept", "61"},
                {"--defer-accept", "1.5"}, {"--defer-accept", "on"}, {"--cpu-affinity", "yes"},
                {"--cpu-affinity", "0"}}) {
            M0serve plain = M0serve.plain(args);
            assertNotNull(plain, String.join(" ", args));
            assertThrows(RuntimeException.class, plain::config, String.join(" ", args));
        }
    }
}
