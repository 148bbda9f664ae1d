package m0.server.jdkhttp;

import java.util.List;
import java.util.SortedMap;

/**
 * One response as the harness compares it (see {@link Normalizer}).
 *
 * @param statusLine the whole status line ("" when none came: see {@code end})
 * @param status     its code, 0 when none came
 * @param headers    lower-cased names, Date dropped, each name's values in the order sent
 * @param framing    how the body ended: none, length, chunked or close
 * @param body       the body as escaped text up to 1 KiB, else its length and SHA-256
 * @param end        complete, eof (the server closed or reset before the response was whole)
 *                   or timeout (it went silent)
 * @param interim    the 1xx responses before this one, each as "status line | headers"
 * @param after      what the connection did after this response when it was the last one read:
 *                   closed, open, or "extra N bytes: ..."; "-" for the others
 */
public record Resp(String statusLine, int status, SortedMap<String, List<String>> headers, String framing,
                   String body, String end, List<String> interim, String after) {

    public boolean closedAfter() {
        return after.equals("closed");
    }

    public List<String> header(String name) {
        return headers.getOrDefault(name, List.of());
    }

    /** One line for the table: status, framing, end, after. */
    public String brief() {
        return (status == 0 ? "---" : Integer.toString(status)) + " " + framing + " " + end + " " + after
                + (interim.isEmpty() ? "" : " +" + interim.size() + "xx");
    }
}
