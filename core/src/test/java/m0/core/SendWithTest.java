package m0.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.mockito.ArgumentMatchers.anyInt;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.Mockito.inOrder;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.never;
import static org.mockito.Mockito.spy;
import static org.mockito.Mockito.verify;
import static org.mockito.Mockito.when;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.mockito.InOrder;

/**
 * R5 and B25 (send side): the order of the sender's port calls. Mockito stands at the port
 * edges only: the page is a spy over a real page, the channel a mock that answers sent/refused.
 */
class SendWithTest {

    private static final int COUNTS_1 = PageLayout.countsWord(1);
    private static final int STATE_1 = PageLayout.stateWord(1);
    private static final int SENDING_0 = PageLayout.sendingWord(0);

    private Page page;
    @SuppressWarnings("unchecked")
    private final Channel<String> channel = mock(Channel.class);
    private AcceptShare<String> w0;

    @BeforeEach
    void setUp() {
        page = spy(AtomicLongArrayPage.forWorkers(2));
        page.setVolatile(STATE_1, PageLayout.PARKED);
        w0 = new AcceptShare<>(page, channel, new FakeClock(1), AcceptPolicy.share(), 2, 0);
    }

    private long pending1() {
        return Counts.pending(page.getVolatile(COUNTS_1));
    }

    @Test
    void pendingIsRaisedBeforeTheSendThenStateIsReadAgain() {
        when(channel.send(1, "c")).thenReturn(true);
        assertTrue(w0.sendWith(1, "c"));
        InOrder order = inOrder(page, channel);
        order.verify(page).setVolatile(SENDING_0, 2);              // heal: the hand-off is published first
        order.verify(page).getAndAdd(COUNTS_1, Counts.RAISE);      // R5
        order.verify(page).getVolatile(STATE_1);                   // B25: read state after the raise
        order.verify(channel).send(1, "c");
        order.verify(page).setVolatile(SENDING_0, 0);              // and cleared once it is queued
        verify(page, never()).getAndAdd(COUNTS_1, Counts.TAKE_BACK);
        assertEquals(1, pending1());
        assertEquals(0, page.getVolatile(SENDING_0));
    }

    @Test
    void aRefusedSendTakesPendingBackAndTheSenderKeepsTheConnection() {
        when(channel.send(1, "c")).thenReturn(false);
        assertFalse(w0.sendWith(1, "c"), "false: the caller still owns it");
        InOrder order = inOrder(page, channel);
        order.verify(page).getAndAdd(COUNTS_1, Counts.RAISE);
        order.verify(channel).send(1, "c");
        order.verify(page).getAndAdd(COUNTS_1, Counts.TAKE_BACK);
        order.verify(page).setVolatile(SENDING_0, 0); // cleared after the take-back, not before
        assertEquals(0, pending1());
    }

    @Test
    void aChannelThatThrowsStillHasTheRaiseTakenBack() {
        IllegalStateException ebadf = new IllegalStateException("sendmsg: EBADF");
        when(channel.send(1, "c")).thenThrow(ebadf);
        assertSame(ebadf, assertThrows(IllegalStateException.class, () -> w0.sendWith(1, "c")),
                "the port's failure reaches the caller, who still owns the connection");
        InOrder order = inOrder(page, channel);
        order.verify(page).getAndAdd(COUNTS_1, Counts.RAISE);
        order.verify(channel).send(1, "c");
        order.verify(page).getAndAdd(COUNTS_1, Counts.TAKE_BACK);
        assertEquals(0, pending1(), "no raise is left behind by a throwing send");
        assertEquals(0, w0.sentCount());
    }

    @Test
    void anErrorFromTheChannelIsADeathAndNothingMoreIsWritten() {
        // The checkers kill an actor with an Error at a port access; a dead process runs no
        // take-back: its raise is orphaned and errs high until its reap's heal.
        when(channel.send(1, "c")).thenThrow(new OutOfMemoryError("dying"));
        assertThrows(OutOfMemoryError.class, () -> w0.sendWith(1, "c"));
        verify(page, never()).getAndAdd(COUNTS_1, Counts.TAKE_BACK);
        assertEquals(1, pending1());
        assertEquals(2, page.getVolatile(SENDING_0), "still published: its reap clears it and asks for a heal");
    }

    @Test
    void aTargetReadAsLeftAfterTheRaiseIsNotSentTo() {
        page.setVolatile(STATE_1, PageLayout.LEFT);
        assertFalse(w0.sendWith(1, "c"));
        InOrder order = inOrder(page, channel);
        order.verify(page).getAndAdd(COUNTS_1, Counts.RAISE);
        order.verify(page).getVolatile(STATE_1);
        order.verify(page).getAndAdd(COUNTS_1, Counts.TAKE_BACK);
        verify(channel, never()).send(anyInt(), anyString());
        assertEquals(0, pending1());
    }

    @Test
    void passOnKeepsTheConnectionWhenTheSendFails() {
        when(channel.send(1, "c")).thenReturn(false);
        assertFalse(w0.passOn("c", 5), "picked 1, refused: admit it here");
        verify(channel).send(1, "c");
        assertEquals(0, pending1());
        assertEquals(0, w0.sentCount());
    }
}
