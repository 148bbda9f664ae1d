package m0.jcstress.page;

import m0.core.AtomicLongArrayPage;
import m0.core.ByteBufferPage;
import m0.core.Page;
import m0.core.PageLayout;

/** Fresh pages for one jcstress sample: the two real ones, and the mutants. */
public final class Pages {

    private Pages() {
    }

    /** The real in-process page. */
    public static Page array(int workers) {
        return AtomicLongArrayPage.forWorkers(workers);
    }

    /** The real mapped page, over a fresh slot of this fork's {@link MappedRing}. */
    public static Page mapped(int workers) {
        return new ByteBufferPage(MappedRing.buffer(), MappedRing.nextSlot(), words(workers));
    }

    public static Page acquireReleaseArray(int workers) {
        return new AcquireReleaseArrayPage(PageLayout.slots(workers));
    }

    public static Page acquireReleaseMapped(int workers) {
        return new AcquireReleaseBufferPage(MappedRing.buffer(), MappedRing.nextSlot(), words(workers));
    }

    public static Page opaqueArray(int workers) {
        return new OpaqueArrayPage(PageLayout.slots(workers));
    }

    public static Page opaqueMapped(int workers) {
        return new OpaqueBufferPage(MappedRing.buffer(), MappedRing.nextSlot(), words(workers));
    }

    private static int words(int workers) {
        int words = PageLayout.slots(workers);
        if (words > MappedRing.SLOT_WORDS) {
            throw new IllegalArgumentException(workers + " workers do not fit in a ring slot");
        }
        return words;
    }
}
