package m0.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The ordering the handshakes rely on, on real threads: each side writes its own word, then
 * reads the other's (B25's store-LEFT-then-read-pending against raise-then-read-state, RP's
 * mark against the same re-read). Both zero is forbidden. jcstress measures this properly
 * (jcstress-tests/); this is the core's own, cheaper check that a page weakened to
 * release/acquire is caught where the core is built, with the weakened page kept as a mutant.
 */
class PageOrderingTest {

    static final int ROUNDS = 200_000;
    /** Two words on different cache lines, as state[i] and pending[j] are. */
    static final int X = 8;
    static final int Y = 16;

    static Stream<Arguments> pages() {
        IntFunction<Page> atomic = AtomicLongArrayPage::new;
        IntFunction<Page> buffer = words -> new ByteBufferPage(direct(words));
        return Stream.of(Arguments.of("AtomicLongArrayPage", atomic), Arguments.of("ByteBufferPage", buffer));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("pages")
    void aStoreIsNeverReorderedWithTheLoadAfterIt(String name, IntFunction<Page> make) throws InterruptedException {
        assertEquals(0, bothZero(make.apply(24), ROUNDS), name + ": both sides read the other's word as 0");
    }

    /**
     * The mutant: the mapped page with its stores weakened to release (what a plain or
     * release store gives). x86 reorders a store with a later load of another word through the
     * store buffer, and the test sees it. Probabilistic, so it is given many rounds.
     */
    @Test
    void aPageWithReleaseStoresIsCaught() throws InterruptedException {
        long seen = 0;
        for (int attempt = 0; attempt < 10 && seen == 0; attempt++) {
            seen = bothZero(new ReleaseStorePage(direct(24)), ROUNDS / 4);
        }
        System.out.println("release-store page: both-zero seen " + seen + " times in " + ROUNDS / 4 + " rounds");
        assertTrue(seen > 0, "a release-store page should show the forbidden outcome");
    }

    /** Rounds in which both threads read the other's word as 0 after storing their own. */
    static long bothZero(Page page, int rounds) throws InterruptedException {
        boolean[] aSawZero = new boolean[rounds];
        boolean[] bSawZero = new boolean[rounds];
        AtomicInteger arrivals = new AtomicInteger();
        Thread a = new Thread(() -> {
            for (int r = 0; r < rounds; r++) {
                await(arrivals, 3 * r + 1);
                page.setVolatile(X, 1); // the leaver's LEFT (or the supervisor's mark)
                aSawZero[r] = page.getVolatile(Y) == 0; // ... then pending
                await(arrivals, 3 * r + 2);
                page.setVolatile(X, 0);
                page.setVolatile(Y, 0);
                await(arrivals, 3 * r + 3);
            }
        });
        Thread b = new Thread(() -> {
            for (int r = 0; r < rounds; r++) {
                await(arrivals, 3 * r + 1);
                page.getAndAdd(Y, 1); // the sender's raise
                bSawZero[r] = page.getVolatile(X) == 0; // ... then the target's state
                await(arrivals, 3 * r + 2);
                await(arrivals, 3 * r + 3);
            }
        });
        a.start();
        b.start();
        a.join();
        b.join();
        long n = 0;
        for (int r = 0; r < rounds; r++) {
            if (aSawZero[r] && bSawZero[r]) {
                n++;
            }
        }
        return n;
    }

    /** A two-party spin barrier: the n-th call of each party returns once both made it. */
    private static void await(AtomicInteger arrivals, int n) {
        arrivals.incrementAndGet();
        while (arrivals.get() < 2 * n) {
            Thread.onSpinWait();
        }
    }

    static ByteBuffer direct(int words) {
        return ByteBuffer.allocateDirect(words * Long.BYTES).order(ByteOrder.nativeOrder());
    }

    /** Test-only mutant of ByteBufferPage: stores with release semantics, the rest as the real one. */
    static final class ReleaseStorePage implements Page {
        private static final VarHandle LONGS = MethodHandles.byteBufferViewVarHandle(long[].class, ByteOrder.nativeOrder());
        private final ByteBuffer buffer;
        private final Page real;

        ReleaseStorePage(ByteBuffer buffer) {
            this.buffer = buffer;
            this.real = new ByteBufferPage(buffer);
        }

        @Override
        public int words() {
            return real.words();
        }

        @Override
        public long getVolatile(int word) {
            return (long) LONGS.getAcquire(buffer, word << 3);
        }

        @Override
        public void setVolatile(int word, long value) {
            LONGS.setRelease(buffer, word << 3, value);
        }

        @Override
        public long getAndAdd(int word, long delta) {
            return real.getAndAdd(word, delta);
        }

        @Override
        public boolean compareAndSet(int word, long expected, long value) {
            return real.compareAndSet(word, expected, value);
        }
    }
}
