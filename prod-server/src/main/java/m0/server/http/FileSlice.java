package m0.server.http;

import java.nio.charset.StandardCharsets;

/**
 * What part of an open file a {@link Response#file} answer sends, from its request's
 * {@code Range} and {@code If-Range} (RFC 9110 13.1.5, 14; ADR 0071's addendum): the whole file
 * (the app's status), one slice (206 with Content-Range), or nothing (416 with the app's headers,
 * {@link #refusal}).
 * A 200 file answer to GET takes ranges and says so ({@code Accept-Ranges: bytes}), as does the
 * head of one to HEAD, which ignores Range (RFC 9110 14.2: only GET's is read);
 * other statuses, other methods, and an answer whose app set {@code Accept-Ranges: none} (in
 * any case) are sent whole, untouched. An app's {@code Accept-Ranges: bytes} is kept, not repeated.
 */
final class FileSlice {
    /** What to encode: the app's answer, or it at 206; null when refused. */
    final Response response;
    /** The slice's first byte and its byte count. */
    final long from;
    final long count;
    /** The length fields: Accept-Ranges, Content-Length, Content-Range, each with its CRLF. */
    final byte[] fields;
    /** The 416 to answer instead (the file is not sent), or null. */
    final Response refusal;

    private FileSlice(Response response, long from, long count, String fields, Response refusal) {
        this.response = response;
        this.from = from;
        this.count = count;
        this.fields = fields.getBytes(StandardCharsets.ISO_8859_1);
        this.refusal = refusal;
    }

    /** {@code nowMillis}: the wall clock the answer's Date is taken from, at or before it. */
    static FileSlice of(Request request, Response r, long length, long nowMillis) {
        String whole = "Content-Length: " + length + "\r\n";
        if (!takesRanges(request, r)) return new FileSlice(r, 0, length, whole, null);
        // An app that says Accept-Ranges itself has said it: the field is not written twice.
        String accepts = r.header("Accept-Ranges") == null ? "Accept-Ranges: bytes\r\n" : "";
        // A server MUST ignore Range on any method but GET (RFC 9110 14.2): HEAD gets GET's whole-file head.
        java.util.List<String> ranges = request.method().equals("GET") ? request.headers("Range") : java.util.List.of();
        ByteRange range = ranges.size() != 1 || !ifRangeHolds(request.header("If-Range"), r, nowMillis)
                ? ByteRange.WHOLE : ByteRange.of(ranges.get(0), length);
        return switch (range.kind) {
            case WHOLE -> new FileSlice(r, 0, length, accepts + whole, null);
            case SLICE -> new FileSlice(r.withStatus(206), range.first, range.count(),
                    accepts + "Content-Length: " + range.count() + "\r\nContent-Range: bytes "
                            + range.first + "-" + range.last + "/" + length + "\r\n", null);
            case UNSATISFIABLE -> new FileSlice(null, 0, 0, "", refusal(r, length));
        };
    }

    /**
     * The 416: a text body with its own type and length, Content-Range {@code bytes *}/length,
     * and every other header the app set (CORS, HSTS, validators: a refusal must not drop them).
     */
    private static Response refusal(Response r, long length) {
        String[] app = r.headersWithType();
        java.util.List<String> kept = new java.util.ArrayList<>(app.length + 2);
        for (int i = 0; i < app.length; i += 2) {
            if (app[i].equalsIgnoreCase("Content-Type") || app[i].equalsIgnoreCase("Content-Range")) continue;
            kept.add(app[i]);
            kept.add(app[i + 1]);
        }
        kept.add("Content-Range");
        kept.add("bytes */" + length);
        return new Response(416, Response.TEXT_PLAIN, "Range Not Satisfiable\n".getBytes(StandardCharsets.UTF_8),
                kept.toArray(String[]::new));
    }

    /** Ranges are GET's (RFC 9110 14.2); HEAD says it takes them, as GET's whole-file head would. */
    private static boolean takesRanges(Request request, Response r) {
        String m = request.method();
        String said = r.header("Accept-Ranges");
        return r.status() == 200 && (said == null || !said.strip().equalsIgnoreCase("none"))
                && (m.equals("GET") || m.equals("HEAD"));
    }

    /**
     * No If-Range, or one that matches the answer's own validators: an entity tag by strong
     * comparison with its ETag, a date exactly its Last-Modified (RFC 9110 13.1.5). A date is a
     * strong validator only when Last-Modified is at least one second before the answer's Date
     * ({@code nowMillis}'s second): a file changed twice within its Last-Modified second would
     * otherwise splice two versions, so a newer (or unreadable) one answers whole. An answer
     * without validators matches nothing: the whole file, which is never wrong.
     */
    static boolean ifRangeHolds(String ifRange, Response r, long nowMillis) {
        if (ifRange == null) return true;
        if (ifRange.startsWith("\"") || ifRange.startsWith("W/")) {
            String etag = r.header("ETag");
            return etag != null && ifRange.startsWith("\"") && ifRange.equals(etag.strip());
        }
        String modified = r.header("Last-Modified");
        return modified != null && ifRange.equals(modified.strip())
                && secondsSinceEpoch(ifRange) <= Math.floorDiv(nowMillis, 1000) - 1;
    }

    /** An HTTP date's second since the epoch; {@code Long.MAX_VALUE} (never strong) when it does not parse. */
    private static long secondsSinceEpoch(String httpDate) {
        try {
            return java.time.ZonedDateTime.parse(httpDate, java.time.format.DateTimeFormatter.RFC_1123_DATE_TIME)
                    .toEpochSecond();
        } catch (java.time.format.DateTimeParseException e) {
            return Long.MAX_VALUE;
        }
    }
}
