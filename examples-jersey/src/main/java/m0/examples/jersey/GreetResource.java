package m0.examples.jersey;

import jakarta.ws.rs.DefaultValue;
import jakarta.ws.rs.GET;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.PathParam;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.QueryParam;
import jakarta.ws.rs.core.MediaType;

/** {@code GET /greet?name=N} and {@code GET /greet/N}: the query and the path parameter. */
@Path("/greet")
@Produces(MediaType.TEXT_PLAIN)
public final class GreetResource {

  @GET
  public String byQuery(@QueryParam("name") @DefaultValue("world") String name) {
    return greeting(name);
  }

  @GET
  @Path("/{name}")
  public String byPath(@PathParam("name") String name) {
    return greeting(name);
  }

  static String greeting(String name) {
    return "hello " + name + "\n";
  }
}
