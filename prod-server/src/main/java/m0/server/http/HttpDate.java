package m0.server.http;

import java.nio.charset.StandardCharsets;
import java.time.LocalDateTime;
import java.time.ZoneOffset;

/** The {@code Date: <IMF-fixdate>\r\n} header line, encoded once per second and shared. */
final class HttpDate {
    private static final String[] DAYS = {"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"};
    private static final String[] MONTHS = {"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

    /** Immutable, so any thread may read or replace the cached one without locks. */
    private static final class Line {
        final long second;
        final byte[] bytes;

        Line(long second, byte[] bytes) {
            this.second = second;
            this.bytes = bytes;
        }
    }

    private static volatile Line cached = new Line(Long.MIN_VALUE, new byte[0]);

    private HttpDate() {}

    /** The header line for this wall-clock time (milliseconds since the epoch). Do not modify it. */
    static byte[] line(long epochMillis) {
        long second = Math.floorDiv(epochMillis, 1000);
        Line l = cached;
        if (l.second != second) {
            l = new Line(second, ("Date: " + format(second) + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
            cached = l;
        }
        return l.bytes;
    }

    /** IMF-fixdate (RFC 9110 5.6.7), e.g. "Sun, 06 Nov 1994 08:49:37 GMT". */
    static String format(long epochSecond) {
        LocalDateTime t = LocalDateTime.ofEpochSecond(epochSecond, 0, ZoneOffset.UTC);
        StringBuilder sb = new StringBuilder(29);
        sb.append(DAYS[t.getDayOfWeek().ordinal()]).append(", ");
        two(sb, t.getDayOfMonth()).append(' ').append(MONTHS[t.getMonthValue() - 1]).append(' ');
        sb.append(t.getYear()).append(' ');
        two(sb, t.getHour()).append(':');
        two(sb, t.getMinute()).append(':');
        two(sb, t.getSecond()).append(" GMT");
        return sb.toString();
    }

    private static StringBuilder two(StringBuilder sb, int v) {
        return sb.append((char) ('0' + v / 10)).append((char) ('0' + v % 10));
    }
}
