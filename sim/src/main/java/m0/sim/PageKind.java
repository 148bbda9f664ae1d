package m0.sim;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import m0.core.AtomicLongArrayPage;
import m0.core.ByteBufferPage;
import m0.core.Page;
import m0.core.PageLayout;

/**
 * Which real page a simulated run's words live in. The simulator orders every access itself,
 * so what this checks is the page's arithmetic and layout, not its memory ordering (jcstress
 * does that): m0serve runs on {@link ByteBufferPage}, and a wrong offset or a lost update in
 * it must break a scenario here too, not only in jcstress.
 */
public enum PageKind {
    /** {@link AtomicLongArrayPage}: Lincheck's and the unit tests' page. */
    ARRAY {
        @Override
        Page create(int workers) {
            return AtomicLongArrayPage.forWorkers(workers);
        }
    },
    /** {@link ByteBufferPage} over a direct buffer: the class m0serve maps over its memfd. */
    MAPPED {
        @Override
        Page create(int workers) {
            int words = PageLayout.slots(workers);
            return new ByteBufferPage(ByteBuffer.allocateDirect(words * Long.BYTES).order(ByteOrder.nativeOrder()));
        }
    };

    abstract Page create(int workers);

    /** The page new runs are built on (ModelCheckTest explores every scenario on each). */
    static volatile PageKind current = ARRAY;
}
