package m0.server.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
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
    }

    private static ServerConfig parse(String... args) {
        M0serve m = new M0serve();
        new CommandLine(m).parseArgs(args);
        return m.config();
    }
}
