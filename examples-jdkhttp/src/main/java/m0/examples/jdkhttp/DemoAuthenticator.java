package m0.examples.jdkhttp;

import com.sun.net.httpserver.BasicAuthenticator;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;

/**
 * Basic authentication against one user. The credentials come from the system properties {@code
 * m0.example.user} and {@code m0.example.password}, "demo"/"demo" when unset: an example, not a
 * user store.
 */
final class DemoAuthenticator extends BasicAuthenticator {

  private final byte[] user;
  private final byte[] password;

  DemoAuthenticator(String realm, String user, String password) {
    super(realm, StandardCharsets.UTF_8);
    this.user = user.getBytes(StandardCharsets.UTF_8);
    this.password = password.getBytes(StandardCharsets.UTF_8);
  }

  static DemoAuthenticator fromSystemProperties(String realm) {
    return new DemoAuthenticator(realm,
        System.getProperty("m0.example.user", "demo"),
        System.getProperty("m0.example.password", "demo"));
  }

  @Override
  public boolean checkCredentials(String username, String pass) {
    // Both compared, in time that does not depend on where they differ.
    boolean userOk = MessageDigest.isEqual(user, username.getBytes(StandardCharsets.UTF_8));
    boolean passOk = MessageDigest.isEqual(password, pass.getBytes(StandardCharsets.UTF_8));
    return userOk & passOk;
  }
}
