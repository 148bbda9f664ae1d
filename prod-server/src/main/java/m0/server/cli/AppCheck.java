package m0.server.cli;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import m0.server.http.App;
import m0.server.http.AppClassPath;

/**
 * The app named on the command line, checked once at start so that a wrong name is one line and
 * exit 2, not every worker exiting 78: {@code --app} must be an {@link App}; {@code --main} a
 * class with a {@code public static void main(String[])}, instead of {@code --app}, with a pool
 * for its handlers. Classes are loaded without initialising them, from {@code --app-classpath}.
 */
final class AppCheck {

    private AppCheck() {
    }

    /** What is wrong, in one line; null when nothing is. */
    static String problem(String app, boolean builtin, String mainClass, int blockingThreads, String appClasspath) {
        try {
            if (mainClass != null) {
                checkMain(builtin, mainClass, blockingThreads, appClasspath);
            } else if (!builtin) {
                if (!App.class.isAssignableFrom(load("--app", app, appClasspath))) {
                    return "--app: " + app + " does not implement " + App.class.getName();
                }
            }
            return null;
        } catch (Problem p) {
            return p.getMessage();
        }
    }

    private static void checkMain(boolean builtin, String mainClass, int blockingThreads, String appClasspath) {
        if (!builtin) {
            throw new Problem("--main and --app are alternatives: give one");
        }
        if (blockingThreads < 1) {
            throw new Problem("--main needs --blocking-threads 1 or more: its handlers may block, and never run on the loop");
        }
        Class<?> c = load("--main", mainClass, appClasspath);
        try {
            Method m = c.getMethod("main", String[].class);
            if (!Modifier.isStatic(m.getModifiers())) {
                throw new NoSuchMethodException();
            }
        } catch (NoSuchMethodException | LinkageError e) {
            throw new Problem("--main: " + mainClass + " has no public static void main(String[])");
        }
    }

    private static Class<?> load(String flag, String name, String appClasspath) {
        try {
            ClassLoader loader = appClasspath == null ? AppCheck.class.getClassLoader() : AppClassPath.loader(appClasspath);
            return Class.forName(name, false, loader);
        } catch (IllegalArgumentException e) {
            throw new Problem(e.getMessage()); // the class path itself: a missing jar, named
        } catch (ClassNotFoundException | LinkageError e) {
            throw new Problem(flag + ": class not found: " + name + (appClasspath == null ? "" : " in --app-classpath"));
        }
    }

    private static final class Problem extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Problem(String message) {
            super(message, null, false, false);
        }
    }
}
