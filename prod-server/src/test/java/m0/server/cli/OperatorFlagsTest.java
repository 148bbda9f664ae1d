package m0.server.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PrintWriter;
import java.io.StringWriter;
import org.junit.jupiter.api.Test;

/** --metrics-bind and --access-log: a bad value is one line and exit 2, before anything starts. */
class OperatorFlagsTest {

    @Test
    void badMetricsBindAndAnUnwritableAccessLogAreUsageErrors() {
        for (String[] args : new String[][] {
                {"--metrics-bind", "nohostport"}, {"--metrics-bind", "127.0.0.1:70000"},
                {"--metrics-bind", "127.0.0.1:x"}, {"--access-log", "/proc/no/such/dir/access.log"}}) {
            StringWriter e = new StringWriter();
            picocli.CommandLine cl = M0serve.commandLine();
            cl.setErr(new PrintWriter(e, true));
            assertEquals(2, cl.execute(args), String.join(" ", args));
            assertEquals(1, e.toString().lines().count(), e.toString());
            assertTrue(e.toString().contains(args[0]), e.toString());
        }
    }
}
