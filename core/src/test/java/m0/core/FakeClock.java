package m0.core;

/** A clock the test moves by hand. */
final class FakeClock implements Clock {

    private long now;

    FakeClock(long start) {
        this.now = start;
    }

    @Override
    public long nanoTime() {
        return now;
    }

    void advance(long nanos) {
        now += nanos;
    }

    void advanceMillis(long millis) {
        advance(millis * 1_000_000L);
    }
}
