package m0.server.it;

import java.util.Map;

/**
 * {@link HttpIntegrationTest} where the worker writes each answer with write(2) as it is made:
 * the path of a kernel without io_uring, chosen here with ADR 0049's A/B knob.
 */
final class HttpWithWritesIntegrationTest extends HttpIntegrationTest {

    @Override
    Map<String, String> env() {
        return Map.of("M0_RING_SENDS", "0");
    }

    @Override
    String writes() {
        return "answers written with write(2)";
    }
}
