package m0.server.http;

import java.lang.reflect.InvocationTargetException;

/** Loads the application named on the command line. */
public final class Apps {
    private Apps() {}

    /**
     * "builtin" (or BuiltinApp's class name) gives a {@link BuiltinApp}; anything else is a class
     * name with a public no-arg constructor implementing {@link App}.
     *
     * @throws IllegalArgumentException naming the class and what is wrong with it
     */
    public static App load(String nameOrClass) {
        if (nameOrClass == null || nameOrClass.isBlank()) {
            throw new IllegalArgumentException("app: empty name (use \"builtin\" or a class name)");
        }
        String name = nameOrClass.strip();
        if (name.equals("builtin")) return new BuiltinApp();
        Class<?> type;
        try {
            ClassLoader loader = Thread.currentThread().getContextClassLoader();
            type = Class.forName(name, true, loader != null ? loader : Apps.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new IllegalArgumentException("app class not found: " + name + " (is it on the classpath?)", e);
        } catch (LinkageError e) {
            throw new IllegalArgumentException("app class " + name + " cannot be loaded: " + e, e);
        }
        if (!App.class.isAssignableFrom(type)) {
            throw new IllegalArgumentException("app class " + name + " does not implement " + App.class.getName());
        }
        try {
            return (App) type.getConstructor().newInstance();
        } catch (NoSuchMethodException e) {
            throw new IllegalArgumentException("app class " + name + " has no public no-arg constructor", e);
        } catch (InvocationTargetException e) {
            throw new IllegalArgumentException("app class " + name + " constructor failed: " + e.getCause(), e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IllegalArgumentException("app class " + name + " cannot be instantiated: " + e, e);
        }
    }
}
