package m0.server.http;

import java.io.File;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * {@code --app-classpath}: an app that ships apart from m0serve, as jars and class directories
 * ({@code :}-separated, like {@code java -cp}). Its classes load in a child of m0serve's class
 * loader, so the app sees {@link App} and m0serve's classes, and m0serve never sees the app's
 * dependencies.
 */
public final class AppClassPath {

    private AppClassPath() {
    }

    /**
     * A loader over {@code entries}, parent m0serve's own.
     *
     * @throws IllegalArgumentException naming an entry that does not exist
     */
    public static ClassLoader loader(String entries) {
        String[] parts = entries.split(File.pathSeparator);
        URL[] urls = new URL[parts.length];
        for (int i = 0; i < parts.length; i++) {
            Path p = Path.of(parts[i]);
            if (!Files.exists(p)) {
                throw new IllegalArgumentException("--app-classpath: no such jar or directory: " + parts[i]);
            }
            try {
                urls[i] = p.toAbsolutePath().toUri().toURL(); // a directory's URI ends in '/'
            } catch (MalformedURLException e) {
                throw new IllegalArgumentException("--app-classpath: " + parts[i] + ": " + e.getMessage(), e);
            }
        }
        return new URLClassLoader("m0serve-app", urls, AppClassPath.class.getClassLoader());
    }
}
