package m0.examples.jersey;

import jakarta.ws.rs.BadRequestException;
import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;

/**
 * {@code POST /sum} with a text body of numbers separated by white space or commas: answers their
 * exact sum. The body is read a line at a time, and lines are bounded, so no body is held whole.
 */
@Path("/sum")
public final class SumResource {

  /** A longer line is refused rather than buffered: numbers come many to a body, not one huge. */
  static final int MAX_LINE = 64 * 1024;

  @POST
  @Consumes({MediaType.TEXT_PLAIN, MediaType.WILDCARD})
  @Produces(MediaType.TEXT_PLAIN)
  public String sum(InputStream body) throws IOException {
    BigDecimal total = BigDecimal.ZERO;
    BufferedReader in = new BufferedReader(new InputStreamReader(body, StandardCharsets.UTF_8));
    StringBuilder token = new StringBuilder();
    int lineLength = 0;
    for (int c; (c = in.read()) >= 0; ) {
      lineLength = c == '\n' ? 0 : lineLength + 1;
      if (lineLength > MAX_LINE) {
        throw bad("line longer than " + MAX_LINE + " characters");
      }
      if (Character.isWhitespace(c) || c == ',') {
        total = add(total, token);
      } else {
        token.append((char) c);
      }
    }
    total = add(total, token);
    return total.toPlainString() + "\n";
  }

  private static BigDecimal add(BigDecimal total, StringBuilder token) {
    if (token.length() == 0) {
      return total;
    }
    String text = token.toString();
    token.setLength(0);
    try {
      return total.add(new BigDecimal(text));
    } catch (NumberFormatException e) {
      throw bad("not a number: " + text);
    }
  }

  private static BadRequestException bad(String why) {
    return new BadRequestException(Response.status(400)
        .type(MediaType.TEXT_PLAIN).entity(why + "\n").build());
  }
}
