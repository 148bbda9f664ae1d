package m0.core;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.util.function.IntFunction;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** Both in-process pages keep the same contract. */
class PageContractTest {

    static Stream<Arguments> pages() {
        IntFunction<Page> atomic = AtomicLongArrayPage::new;
        IntFunction<Page> buffer = words -> new ByteBufferPage(ByteBuffer.allocateDirect(words * 8));
        return Stream.of(Arguments.of("AtomicLongArrayPage", atomic), Arguments.of("ByteBufferPage", buffer));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("pages")
    void loadsStoresAndAtomics(String name, IntFunction<Page> make) {
        Page page = make.apply(24);
        assertEquals(24, page.words());
        assertEquals(0, page.getVolatile(17));
        page.setVolatile(17, -2);
        assertEquals(-2, page.getVolatile(17));
        assertEquals(-2, page.getAndAdd(17, 5));
        assertEquals(3, page.getVolatile(17));
        assertFalse(page.compareAndSet(17, 4, 9));
        assertTrue(page.compareAndSet(17, 3, 9));
        assertEquals(9, page.getVolatile(17));
        assertEquals(0, page.getVolatile(16), "neighbouring word untouched");
        assertEquals(0, page.getVolatile(18), "neighbouring word untouched");
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("pages")
    void concurrentAddsLoseNothing(String name, IntFunction<Page> make) throws InterruptedException {
        Page page = make.apply(16);
        int perThread = 200_000;
        Thread[] threads = new Thread[2];
        for (int t = 0; t < threads.length; t++) {
            threads[t] = new Thread(() -> {
                for (int k = 0; k < perThread; k++) {
                    page.getAndAdd(10, 1);
                }
            });
            threads[t].start();
        }
        for (Thread thread : threads) {
            thread.join();
        }
        assertEquals(2L * perThread, page.getVolatile(10));
    }

    @Test
    void byteBufferPageIsNativeOrderSoOtherProcessesReadTheSameWords() {
        ByteBuffer buffer = ByteBuffer.allocateDirect(64).order(java.nio.ByteOrder.nativeOrder());
        Page page = new ByteBufferPage(buffer);
        page.setVolatile(3, 0x0102030405060708L);
        assertEquals(0x0102030405060708L, buffer.getLong(24));
    }

    @Test
    void byteBufferPageRefusesWhatWouldMisalignOrOverflow() {
        assertThrows(IllegalArgumentException.class, () -> new ByteBufferPage(ByteBuffer.allocate(64)));
        assertThrows(IllegalArgumentException.class,
                () -> new ByteBufferPage(ByteBuffer.allocateDirect(64), 4, 2));
        assertThrows(IllegalArgumentException.class,
                () -> new ByteBufferPage(ByteBuffer.allocateDirect(64), 8, 8));
        Page page = new ByteBufferPage(ByteBuffer.allocateDirect(64), 8, 7);
        assertThrows(IndexOutOfBoundsException.class, () -> page.getVolatile(7));
    }
}
