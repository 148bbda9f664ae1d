package m0.core;

/** A clock the test moves by hand. */
public final class FakeClock implements Clock {

    private long now;

    public FakeClock(long start) {
        this.now = start;
    }

    @Override
    public long nanoTime() {
        return now;
    }

    public void advance(long nanos) {
        now += nanos;
    }

    public void advanceMillis(long millis) {
        advance(millis * 1_000_000L);
    }
}
