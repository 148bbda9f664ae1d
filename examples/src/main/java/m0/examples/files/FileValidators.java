package m0.examples.files;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import m0.server.http.Request;

/**
 * A file's validators, as nginx makes them: {@code ETag "<mtime hex>-<size hex>"} and
 * {@code Last-Modified} at its modification second; and whether a GET's
 * {@code If-None-Match} or {@code If-Modified-Since} finds it unchanged (304, RFC 9110 13.1.2,
 * 13.1.3, in the order of 13.2.2). m0serve compares a Range's {@code If-Range} with these same
 * header values, so a resumed download of a changed file starts over.
 */
final class FileValidators {
    /** IMF-fixdate, e.g. "Sun, 06 Nov 1994 08:49:37 GMT" (RFC_1123_DATE_TIME would drop the day's 0). */
    private static final DateTimeFormatter IMF_FIXDATE =
            DateTimeFormatter.ofPattern("EEE, dd MMM yyyy HH:mm:ss 'GMT'", Locale.ENGLISH).withZone(ZoneOffset.UTC);

    final String etag;
    final String lastModified;
    private final long modifiedSecond;

    private FileValidators(long modifiedSecond, long size) {
        this.modifiedSecond = modifiedSecond;
        this.etag = "\"" + Long.toHexString(modifiedSecond) + "-" + Long.toHexString(size) + "\"";
        this.lastModified = IMF_FIXDATE.format(Instant.ofEpochSecond(modifiedSecond));
    }

    /** The validators of the regular file at {@code file}, or null (missing, a directory, unreadable: the server says which). */
    static FileValidators of(Path file) {
        try {
            BasicFileAttributes a = Files.readAttributes(file, BasicFileAttributes.class);
            return a.isRegularFile() ? new FileValidators(a.lastModifiedTime().to(TimeUnit.SECONDS), a.size()) : null;
        } catch (IOException | SecurityException e) {
            return null;
        }
    }

    /** Whether the client's copy is this one: If-None-Match (weak comparison), else If-Modified-Since. */
    boolean unchangedFor(Request request) {
        String noneMatch = request.header("If-None-Match");
        if (noneMatch != null) {
            for (String tag : noneMatch.split(",")) {
                String t = tag.strip();
                if (t.equals("*") || opaque(t).equals(opaque(etag))) return true;
            }
            return false; // If-Modified-Since is not looked at when If-None-Match is sent
        }
        String since = request.header("If-Modified-Since");
        if (since == null) return false;
        try {
            return modifiedSecond <= ZonedDateTime.parse(since, DateTimeFormatter.RFC_1123_DATE_TIME).toEpochSecond();
        } catch (DateTimeParseException e) {
            return false; // not a date: ignored (RFC 9110 13.1.3)
        }
    }

    private static String opaque(String tag) {
        return tag.startsWith("W/") ? tag.substring(2) : tag;
    }
}
