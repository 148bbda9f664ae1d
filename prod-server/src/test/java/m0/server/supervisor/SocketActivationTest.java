package m0.server.supervisor;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** sd_listen_fds' rules that need no descriptor 3 (the real one: SocketActivationIntegrationTest). */
class SocketActivationTest {

    @Test
    void withoutTheVariablesOrForAnotherPidNothingIsAdopted() {
        assertEquals(-1, SocketActivation.adopt(Map.of(), 42));
        assertEquals(-1, SocketActivation.adopt(Map.of("LISTEN_PID", "41", "LISTEN_FDS", "1"), 42));
        assertEquals(-1, SocketActivation.adopt(Map.of("LISTEN_PID", "42", "LISTEN_FDS", "0"), 42));
    }

    @Test
    void malformedVariablesAreAConfigurationError() {
        assertThrows(SocketActivation.Misconfigured.class,
                () -> SocketActivation.adopt(Map.of("LISTEN_PID", "x", "LISTEN_FDS", "1"), 42));
    }

    @Test
    void theServiceManagersVariablesStayWithTheSupervisor() {
        for (String v : new String[] {"LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES", "NOTIFY_SOCKET"}) {
            assertTrue(SocketActivation.ownVariable(v), v);
        }
        assertFalse(SocketActivation.ownVariable("PATH"));
        assertFalse(SocketActivation.ownVariable("M0SERVE_WORKERS"));
    }
}
