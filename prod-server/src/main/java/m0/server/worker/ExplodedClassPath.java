package m0.server.worker;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.util.List;
import java.util.stream.Stream;

/**
 * A worker must be able to load every class it may ever need while it is out of descriptors.
 * From a jar it can: the JVM holds the jar open and reads classes through that descriptor. From
 * an exploded class path (the tests' {@code target/classes}, an IDE, an app's class directory)
 * every first use of a class opens a file, and at EMFILE that is a {@code NoClassDefFoundError}
 * that kills the worker (seen: {@code FdPassing$Received}, first needed by a hand-off that
 * arrived at the descriptor limit). So at start, before the loop runs, the classes of the
 * worker's own code are loaded (not initialised) when they come from a directory.
 */
final class ExplodedClassPath {

    private ExplodedClassPath() {
    }

    /** Loads every class in the directory each anchor was loaded from; nothing for a jar. */
    static int preload(List<Class<?>> anchors) {
        int loaded = 0;
        for (Class<?> anchor : anchors) {
            CodeSource source = anchor.getProtectionDomain().getCodeSource();
            if (source == null) {
                continue;
            }
            Path root;
            try {
                root = Path.of(source.getLocation().toURI());
            } catch (URISyntaxException | IllegalArgumentException e) {
                continue;
            }
            if (!Files.isDirectory(root)) {
                continue; // a jar: held open by the JVM
            }
            try (Stream<Path> files = Files.walk(root)) {
                for (Path f : (Iterable<Path>) files::iterator) {
                    String rel = root.relativize(f).toString();
                    if (!rel.endsWith(".class") || rel.endsWith("module-info.class") || rel.endsWith("package-info.class")) {
                        continue;
                    }
                    String name = rel.substring(0, rel.length() - ".class".length()).replace('/', '.');
                    try {
                        Class.forName(name, false, anchor.getClassLoader());
                        loaded++;
                    } catch (ClassNotFoundException | LinkageError e) {
                        // not loadable here (an optional dependency): it would fail the same way later
                    }
                }
            } catch (IOException e) {
                throw new UncheckedIOException("listing " + root, e);
            }
        }
        return loaded;
    }
}
