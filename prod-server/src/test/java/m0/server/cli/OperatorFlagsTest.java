package m0.server.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** --metrics-bind and --access-log: a bad value is one line and exit 2, before anything starts. */
class OperatorFlagsTest {

    @Test
    void badMetricsBindAndAnUnwritableAccessLogAreUsageErrors() {
        for (String[] args : new String[][] {
                {"--metrics-bind", "nohostport"}, {"--metrics-bind", "127.0.0.1:70000"},
                {"--metrics-bind", "127.0.0.1:x"}, {"--access-log", "/proc/no/such/dir/access.log"}}) {
            ByteArrayOutputStream e = new ByteArrayOutputStream();
            String[] checked = new String[args.length + 2]; // config --show: checked as a start, never served
            checked[0] = "config";
            checked[1] = "--show";
            System.arraycopy(args, 0, checked, 2, args.length);
            int status = M0serve.run(checked, Map.of(), new PrintStream(new ByteArrayOutputStream()),
                    new PrintStream(e, true, StandardCharsets.UTF_8));
            String said = e.toString(StandardCharsets.UTF_8);
            assertEquals(2, status, String.join(" ", args));
            assertEquals(1, said.lines().count(), said);
            assertTrue(said.contains(args[0]), said);
        }
    }
}
