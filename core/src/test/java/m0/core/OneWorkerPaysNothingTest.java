package m0.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.verifyNoInteractions;
import static org.mockito.Mockito.verifyNoMoreInteractions;
import static org.mockito.Mockito.when;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** With one worker, or the race policy, no entry point touches the page, the channel or the clock. */
class OneWorkerPaysNothingTest {

    @ParameterizedTest(name = "{0} worker(s), {1}")
    @CsvSource({"1, share", "2, race", "4, race"})
    void everyEntryPointIsOneBooleanCheck(int workers, String policy) {
        Page page = mock(Page.class);
        when(page.words()).thenReturn(PageLayout.slots(workers));
        @SuppressWarnings("unchecked")
        Channel<String> channel = mock(Channel.class);
        Clock clock = mock(Clock.class);
        AcceptShare<String> w = new AcceptShare<>(page, channel, clock, AcceptPolicy.named(policy), workers, 0);
        assertFalse(w.sharing());
        w.bind();
        w.start();
        w.passStart();
        assertEquals(0, w.pick(100));
        assertFalse(w.passOn("c", 100));
        assertFalse(w.sendWith(workers - 1, "c"));
        assertNull(w.receive());
        w.passEnd(3);
        w.leave();
        assertFalse(w.leaveStep(c -> { }));
        SupervisorShare<String> s = new SupervisorShare<>(page, channel, clock, workers, w.sharing());
        s.markReaped(0);
        assertFalse(s.giveUp(0).step(c -> { }));
        verify(page, org.mockito.Mockito.atLeastOnce()).words(); // the size check at construction
        verifyNoMoreInteractions(page);
        verifyNoInteractions(channel, clock);
    }
}
