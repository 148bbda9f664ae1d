package m0.server.jnr;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The floor's choices (docs/adr/0060): the names, what forcing does, and epoll_wait's timeout. */
class NativePathsTest {

    @AfterEach
    void nothingForcedForTheNextTest() {
        NativePaths.choose(Set.of());
    }

    @Test
    void theNamesAreParsedAndAnUnknownOneIsRefused() {
        assertEquals(Set.of(), NativePaths.parse(""));
        assertEquals(Set.of("pidfd", "epoll_pwait2"), NativePaths.parse("pidfd, epoll_pwait2,"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> NativePaths.parse("pidfd,nope"));
        assertTrue(e.getMessage().contains("'nope'"), e.getMessage());
    }

    @Test
    void thisMachineHasTheNewCallsAndForcingTakesEachFallback() {
        // glibc 2.36 and Linux 6.x here (PLATFORM.md): the look-ups find every call.
        NativePaths found = NativePaths.choose(Set.of());
        assertEquals("wait=epoll_pwait2 close=closefrom_np reap=pidfd", found.describe());
        assertEquals("wait=epoll_pwait2 watch=pidfd", found.describeWorker());
        assertTrue(found.ioUring());
        assertEquals("", found.forced());
        NativePaths forced = NativePaths.choose(NativePaths.parse("pidfd,closefrom,epoll_pwait2,io_uring"));
        assertEquals("wait=epoll_wait close=loop reap=sigchld", forced.describe());
        assertEquals("wait=epoll_wait watch=pdeathsig", forced.describeWorker());
        assertEquals(false, forced.ioUring());
        assertEquals("pidfd,closefrom,epoll_pwait2,io_uring", forced.forced(), "passed on in the order given");
        assertEquals(forced, NativePaths.current());
    }

    @Test
    void epollWaitsTimeoutIsRoundedUpAndAPositiveWaitNeverBecomesAPoll() {
        assertEquals(-1, Epoll.millisFor(-1));
        assertEquals(0, Epoll.millisFor(0));
        assertEquals(1, Epoll.millisFor(1));
        assertEquals(1, Epoll.millisFor(999_999));
        assertEquals(1, Epoll.millisFor(1_000_000));
        assertEquals(2, Epoll.millisFor(1_000_001));
        assertEquals(Integer.MAX_VALUE, Epoll.millisFor(Long.MAX_VALUE));
    }

    @Test
    void anEpollMadeWithoutPwait2StillReportsWhatIsReady() {
        NativePaths.choose(Set.of(NativePaths.PWAIT2));
        try (Epoll epoll = new Epoll(4); EventFd e = new EventFd()) {
            epoll.add(e.fd(), Epoll.IN, 42);
            assertEquals(0, epoll.awaitNanos(1), "nothing ready: a sub-millisecond wait ends empty");
            e.signal();
            assertEquals(1, epoll.awaitNanos(-1));
            assertEquals(42, epoll.data(0));
        }
    }
}
