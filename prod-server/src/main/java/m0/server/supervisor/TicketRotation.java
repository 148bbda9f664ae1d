package m0.server.supervisor;

import java.security.SecureRandom;
import java.util.concurrent.TimeUnit;
import m0.server.tls.TicketKeyPage;
import m0.server.tls.TicketKeys;

/**
 * The supervisor's session-ticket keys (ADR 0073): made at start, before the first worker, and
 * rotated every period on the supervisor's loop: a new current key seals new tickets, the
 * previous ones still open theirs ({@link TicketKeys#KEPT} in all, so a ticket sealed just before
 * a rotation opens for two periods more, longer than a session's life). A SIGHUP reload keeps the
 * set, so tickets survive reloads; a replacement after a crash maps the same page at its start, so
 * it gets the current set. The keys live in the supervisor's memory and the memfd only.
 */
final class TicketRotation {

    static final long DEFAULT_PERIOD_MILLIS = TimeUnit.HOURS.toMillis(1);

    private final TicketKeyPage page;
    private final SecureRandom random = new SecureRandom();
    private final long periodNanos;
    private TicketKeys keys;
    private long nextAt;
    private long rotations;

    private TicketRotation(TicketKeyPage page, long periodMillis, long now) {
        this.page = page;
        this.periodNanos = TimeUnit.MILLISECONDS.toNanos(periodMillis);
        this.keys = TicketKeys.fresh(random);
        page.publish(keys);
        this.nextAt = now + periodNanos;
    }

    /** {@code periodMillis} 0: {@link #DEFAULT_PERIOD_MILLIS}. */
    static TicketRotation start(long periodMillis, long now) {
        return new TicketRotation(TicketKeyPage.create(), periodMillis == 0 ? DEFAULT_PERIOD_MILLIS : periodMillis, now);
    }

    /** A new current key when the period is over. */
    void step(long now) {
        if (now - nextAt < 0) {
            return;
        }
        keys = keys.rotated(random);
        page.publish(keys);
        rotations++;
        nextAt = now + periodNanos;
    }

    /** How long the supervisor's wait may be at most, for the next rotation to be on time. */
    int millisToNext(long now) {
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, TimeUnit.NANOSECONDS.toMillis(nextAt - now) + 1));
    }

    long rotations() {
        return rotations;
    }
}
