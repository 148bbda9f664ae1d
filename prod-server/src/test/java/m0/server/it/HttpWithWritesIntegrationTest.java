package m0.server.it;

import java.util.List;

/**
 * {@link HttpIntegrationTest} where the worker writes each answer with write(2) as it is made:
 * the path of a kernel without io_uring, chosen here with ADR 0049's A/B arm.
 */
final class HttpWithWritesIntegrationTest extends HttpIntegrationTest {

    @Override
    List<String> dev() {
        return List.of("--dev-ring-sends", "off");
    }

    @Override
    String writes() {
        return "answers written with write(2)";
    }
}
