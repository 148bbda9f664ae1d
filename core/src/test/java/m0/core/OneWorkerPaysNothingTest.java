package m0.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.mockito.Mockito.atLeastOnce;
import static org.mockito.Mockito.inOrder;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.verifyNoInteractions;
import static org.mockito.Mockito.verifyNoMoreInteractions;
import static org.mockito.Mockito.when;

import org.junit.jupiter.params.ParameterizedTest;
import org.mockito.InOrder;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * With one worker, or the race policy, no per-pass or per-accept entry point touches the page,
 * the channel or the clock; the lifecycle ones (once per life) write only the state word.
 */
class OneWorkerPaysNothingTest {

    @ParameterizedTest(name = "{0} worker(s), {1}")
    @CsvSource({"1, share", "2, race", "4, race"})
    void everyEntryPointOnThePathIsOneBooleanCheck(int workers, String policy) {
        Page page = mock(Page.class);
        when(page.words()).thenReturn(PageLayout.slots(workers));
        @SuppressWarnings("unchecked")
        Channel<String> channel = mock(Channel.class);
        Clock clock = mock(Clock.class);
        AcceptShare<String> w = new AcceptShare<>(page, channel, clock, AcceptPolicy.named(policy), workers, 0);
        assertFalse(w.sharing());
        verify(page, atLeastOnce()).words(); // the size check at construction

        w.bind();
        w.start();
        InOrder lifecycle = inOrder(page);
        lifecycle.verify(page).setVolatile(PageLayout.stateWord(0), PageLayout.NOT_STARTED);
        lifecycle.verify(page).setVolatile(PageLayout.stateWord(0), PageLayout.PARKED);
        verifyNoMoreInteractions(page);

        for (int pass = 0; pass < 3; pass++) {
            w.passStart();
            assertEquals(0, w.pick(100));
            assertFalse(w.passOn("c", 100));
            assertFalse(w.sendWith(workers - 1, "c"));
            assertNull(w.receive());
            w.passEnd(3);
        }
        verifyNoMoreInteractions(page);

        w.leave();
        verify(page).setVolatile(PageLayout.stateWord(0), PageLayout.LEFT);
        assertFalse(w.leaveStep(c -> { }));
        assertFalse(w.handOver("idle"), "nothing to hand over to without sharing: close it");
        SupervisorShare<String> s = new SupervisorShare<>(page, channel, clock, workers, w.sharing());
        s.markReaped(0);
        assertFalse(s.giveUp(0).step(c -> { }));
        verify(page, atLeastOnce()).words(); // and the supervisor side's size check
        verifyNoMoreInteractions(page);
        verifyNoInteractions(channel, clock);
    }
}
