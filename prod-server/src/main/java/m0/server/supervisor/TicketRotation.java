package m0.server.supervisor;

import java.security.SecureRandom;
import java.util.concurrent.TimeUnit;
import m0.server.tls.TicketKeyFiles;
import m0.server.tls.TicketKeyPage;
import m0.server.tls.TicketKeys;
import m0.server.tls.TlsSetupException;

/**
 * The supervisor's session-ticket keys (ADR 0073): made at start, before the first worker, and
 * rotated every period on the supervisor's loop: a new current key seals new tickets, the
 * previous ones still open theirs ({@link TicketKeys#KEPT} in all, so a ticket sealed just before
 * a rotation opens for two periods more, longer than a session's life). A SIGHUP reload keeps the
 * set, so tickets survive reloads; a replacement after a crash maps the same page at its start, so
 * it gets the current set. The keys live in the supervisor's memory and the memfd only.
 *
 * <p>With {@code --tls-ticket-key} the operator's files are the set instead: none is made here,
 * the period never ends, and a SIGHUP reads the files again ({@link #reread}), which is the
 * operator's rotation.
 */
final class TicketRotation {

    static final long DEFAULT_PERIOD_MILLIS = TimeUnit.HOURS.toMillis(1);

    private final TicketKeyPage page;
    private final SecureRandom random = new SecureRandom();
    /** The operator's files, or null: the keys are made and rotated here. */
    private final TicketKeyFiles files;
    private final long periodNanos;
    private TicketKeys keys;
    private long nextAt;
    private long rotations;

    private TicketRotation(TicketKeyPage page, long periodMillis, long now, TicketKeyFiles files, TicketKeys first) {
        this.page = page;
        this.files = files;
        this.periodNanos = TimeUnit.MILLISECONDS.toNanos(periodMillis);
        this.keys = first != null ? first : TicketKeys.fresh(random);
        page.publish(keys);
        this.nextAt = now + periodNanos;
    }

    /** {@code periodMillis} 0: {@link #DEFAULT_PERIOD_MILLIS}. */
    static TicketRotation start(long periodMillis, long now) {
        return new TicketRotation(TicketKeyPage.create(), periodMillis == 0 ? DEFAULT_PERIOD_MILLIS : periodMillis, now,
                null, null);
    }

    /**
     * A TLS server's keys: the operator's files when {@code fileList} ({@code --tls-ticket-key}) is
     * set, read now (their problem, in one line, if they do not load), else made here.
     */
    static TicketRotation open(String fileList, long periodMillis, long now) throws TlsSetupException {
        if (fileList == null) {
            return start(periodMillis, now);
        }
        TicketKeyFiles files = TicketKeyFiles.parse(fileList);
        TicketKeys first = files.load(); // before the memfd: a bad file leaves nothing behind
        warn(files, "");
        return new TicketRotation(TicketKeyPage.create(), 0, 0, files, first);
    }

    private static void warn(TicketKeyFiles files, String when) {
        String w = files.warning();
        if (w != null) {
            System.err.println("m0serve: " + when + w);
        }
    }

    /**
     * SIGHUP with {@code --tls-ticket-key}: the files read again and, when every one loads, published
     * (running workers take them at their next TLS accept). Returns null, or why they did not load:
     * then the running keys stay. Without files: null, and the set is kept.
     */
    String reread() {
        if (files == null) {
            return null;
        }
        TicketKeys next;
        try {
            next = files.load();
        } catch (TlsSetupException e) {
            return e.getMessage() + "; keeping the running ticket keys";
        }
        warn(files, "SIGHUP: ");
        replace(next);
        return null;
    }

    /** A new current key when the period is over. */
    void step(long now) {
        if (files != null || now - nextAt < 0) {
            return;
        }
        replace(keys.rotated(random));
        nextAt = now + periodNanos;
    }

    /** {@code next} published as the set; the old set's bytes are zeroed (the new one holds its own copies). */
    private void replace(TicketKeys next) {
        TicketKeys old = keys;
        keys = next;
        page.publish(keys);
        rotations++;
        old.erase();
    }

    /** The set the page carries now (for tests). */
    TicketKeys keys() {
        return keys;
    }

    /** How long the supervisor's wait may be at most, for the next rotation to be on time. */
    int millisToNext(long now) {
        if (files != null) {
            return Integer.MAX_VALUE;
        }
        return (int) Math.max(1, Math.min(Integer.MAX_VALUE, TimeUnit.NANOSECONDS.toMillis(nextAt - now) + 1));
    }

    long rotations() {
        return rotations;
    }
}
