package m0.server.share;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import m0.core.PageLayout;
import m0.server.jnr.Fds;
import org.junit.jupiter.api.Test;

class SharedPageTest {

    @Test
    void thePageFileIsExactlyItsLinesSoAnObserverLearnsThemFromItsSize() {
        SharedPage created = SharedPage.create(5);
        try {
            assertEquals(5, created.lines());
            assertEquals(PageLayout.slots(5), created.page().words());
            created.page().setVolatile(PageLayout.sentWord(4), 7);
            // This process holds the memfd: attach finds it among /proc/<pid>/fd, as stats would.
            SharedPage seen = SharedPage.attach(ProcessHandle.current().pid());
            assertEquals(5, seen.lines());
            assertEquals(7, seen.page().getVolatile(PageLayout.sentWord(4)));
        } finally {
            Fds.close(created.fd());
        }
    }

    @Test
    void linesOfRejectsWhatIsNotAPage() {
        assertEquals(3, SharedPage.linesOf(8L * PageLayout.slots(3)));
        assertThrows(IllegalArgumentException.class, () -> SharedPage.linesOf(8L * (PageLayout.slots(3) + 1)));
        assertThrows(IllegalArgumentException.class, () -> SharedPage.linesOf(8L * PageLayout.slots(3) + 4));
        assertThrows(IllegalArgumentException.class, () -> SharedPage.linesOf(64));
    }
}
