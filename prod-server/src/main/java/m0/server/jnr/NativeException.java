package m0.server.jnr;

/** A failed syscall: names the call, the errno and its text, e.g. "bind(127.0.0.1:80): EACCES (Permission denied)". */
public final class NativeException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final String call;
    private final int errno;

    public NativeException(String call, int errno) {
        super(call + ": " + Native.errnoName(errno) + " (" + Native.strerror(errno) + ")");
        this.call = call;
        this.errno = errno;
    }

    public String call() {
        return call;
    }

    public int errno() {
        return errno;
    }
}
