package m0.server.jnr;

import com.kenai.jffi.CallContext;
import com.kenai.jffi.CallingConvention;
import com.kenai.jffi.Invoker;
import com.kenai.jffi.Library;
import com.kenai.jffi.MemoryIO;
import com.kenai.jffi.Type;
import java.lang.ref.Reference;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import m0.server.log.StartTrace;

/**
 * The libc calls m0serve needs and the JDK lacks (x86_64 Linux, glibc), bound through jffi's
 * {@link Invoker}: each function is its symbol's address and a call context for its C
 * signature, looked up once; a call is one JNI call into jffi, which calls the function
 * directly (its fast-int/fast-long path, no libffi) and saves errno. This is the code jnr-ffi's
 * {@code FastIntMethodGenerator}/{@code FastLongMethodGenerator} generate at run time, written
 * once by hand: generating it cost every JVM 0.2–0.5 s of CPU at start (docs/adr/0028).
 *
 * <p>Every pointer is a plain {@code long} address into memory this package preallocated
 * (direct buffers; see {@link Memory}): no marshalling, no per-call allocation. On x86_64 an
 * {@code int}, a pointer, a {@code size_t} and a {@code long} each travel in one 64-bit
 * register, so a function with any pointer or {@code long} argument goes through
 * {@code invokeL*} with its {@code int}s widened (the callee reads their low 32 bits), and a C
 * {@code int} it returns is the low 32 bits of the result: cast, never compared as a long.
 * Functions of {@code int}s only go through {@code invokeI*}.
 *
 * <p>Adding a function: one {@link #function} line with its C types, one method calling the
 * {@code invoke} of its argument count. The wrappers beside this class are the only callers.
 */
final class LibC {

    static {
        StartTrace.mark("binding libc");
    }

    private static final Invoker INVOKE = Invoker.getInstance();
    private static final Library C = Library.getCachedInstance("libc.so.6", Library.LAZY | Library.LOCAL);
    private static final MemoryIO IO = MemoryIO.getInstance();

    private static final Type I = Type.SINT32;
    private static final Type L = Type.SINT64;
    private static final Type P = Type.POINTER;

    /** A bound function: its address and its call context (the C signature, errno saved). */
    private record Fn(long address, CallContext ctx) {
    }

    private static Fn function(String name, Type result, Type... params) {
        long address = C.getSymbolAddress(name);
        if (address == 0) {
            throw new UnsatisfiedLinkError("libc.so.6 has no " + name + ": " + Library.getLastError());
        }
        return new Fn(address, CallContext.getCallContext(result, params, CallingConvention.DEFAULT, true));
    }

    /**
     * A function newer than the floor (glibc 2.28, docs/adr/0060): its address is 0 where this
     * libc lacks it, and {@link NativePaths} never calls it then.
     */
    private static Fn optional(String name, Type result, Type... params) {
        return new Fn(C.getSymbolAddress(name), CallContext.getCallContext(result, params, CallingConvention.DEFAULT, true));
    }

    private static final Fn SOCKET = function("socket", I, I, I, I);
    private static final Fn BIND = function("bind", I, I, P, I);
    private static final Fn LISTEN = function("listen", I, I, I);
    private static final Fn ACCEPT4 = function("accept4", I, I, P, P, I);
    private static final Fn GETSOCKNAME = function("getsockname", I, I, P, P);
    private static final Fn SETSOCKOPT = function("setsockopt", I, I, I, I, P, I);
    private static final Fn GETSOCKOPT = function("getsockopt", I, I, I, I, P, P);
    private static final Fn SOCKETPAIR = function("socketpair", I, I, I, I, P);
    private static final Fn SHUTDOWN = function("shutdown", I, I, I);
    private static final Fn READ = function("read", L, I, P, L);
    private static final Fn WRITE = function("write", L, I, P, L);
    private static final Fn WRITEV = function("writev", L, I, P, I);
    private static final Fn SENDMSG = function("sendmsg", L, I, P, I);
    private static final Fn RECVMSG = function("recvmsg", L, I, P, I);
    private static final Fn CLOCK_GETTIME = function("clock_gettime", I, I, P);
    private static final Fn GETRLIMIT = function("getrlimit", I, I, P);
    private static final Fn CLOSE = function("close", I, I);
    /** Variadic in C, {@code open(const char *, int, ...)}: here always with a mode (see fcntl). */
    private static final Fn OPEN = function("open", I, P, I, I);
    private static final Fn PREAD = function("pread64", L, I, P, L, L);
    /** In glibc long before the floor (2.28): a file answer's bytes, file to socket in the kernel (ADR 0071). */
    private static final Fn SENDFILE = function("sendfile64", L, I, I, P, L);
    private static final Fn SEND = function("send", L, I, P, L, I);
    /**
     * Variadic in C, {@code fcntl(int fd, int cmd, ...)}, here always with one int. A variadic
     * call on x86_64 passes the number of vector registers used in %al: jffi's fast path
     * zeroes %rax before every call, which is right for integer arguments.
     */
    private static final Fn FCNTL = function("fcntl", I, I, I, I);
    private static final Fn EPOLL_CREATE1 = function("epoll_create1", I, I);
    private static final Fn EPOLL_CTL = function("epoll_ctl", I, I, I, I, P);
    private static final Fn EPOLL_WAIT = function("epoll_wait", I, I, P, I, I);
    /** glibc 2.35 (and Linux 5.11 behind it): optional, see {@link NativePaths}. */
    private static final Fn EPOLL_PWAIT2 = optional("epoll_pwait2", I, I, P, I, P, P, L);
    private static final Fn POLL = function("poll", I, P, L, I);
    private static final Fn EVENTFD = function("eventfd", I, Type.UINT32, I);
    private static final Fn MEMFD_CREATE = function("memfd_create", I, P, Type.UINT32);
    private static final Fn POSIX_SPAWNP = function("posix_spawnp", I, P, P, P, P, P, P);
    private static final Fn FILE_ACTIONS_INIT = function("posix_spawn_file_actions_init", I, P);
    private static final Fn FILE_ACTIONS_ADDDUP2 = function("posix_spawn_file_actions_adddup2", I, P, I, I);
    /** glibc 2.34: optional, see {@link NativePaths}. */
    private static final Fn FILE_ACTIONS_ADDCLOSEFROM = optional("posix_spawn_file_actions_addclosefrom_np", I, P, I);
    private static final Fn FILE_ACTIONS_ADDCLOSE = function("posix_spawn_file_actions_addclose", I, P, I);
    private static final Fn FILE_ACTIONS_DESTROY = function("posix_spawn_file_actions_destroy", I, P);
    private static final Fn SPAWNATTR_INIT = function("posix_spawnattr_init", I, P);
    private static final Fn SPAWNATTR_SETFLAGS = function("posix_spawnattr_setflags", I, P, Type.SINT16);
    private static final Fn SPAWNATTR_SETSIGMASK = function("posix_spawnattr_setsigmask", I, P, P);
    private static final Fn SPAWNATTR_SETSIGDEFAULT = function("posix_spawnattr_setsigdefault", I, P, P);
    private static final Fn SPAWNATTR_DESTROY = function("posix_spawnattr_destroy", I, P);
    private static final Fn SIGEMPTYSET = function("sigemptyset", I, P);
    private static final Fn SIGFILLSET = function("sigfillset", I, P);
    private static final Fn WAITPID = function("waitpid", I, I, P, I);
    private static final Fn KILL = function("kill", I, I, I);
    /** {@code sighandler_t signal(int, sighandler_t)}: only ever called with SIG_DFL (0). */
    private static final Fn SIGNAL = function("signal", P, I, P);
    private static final Fn SCHED_GETAFFINITY = function("sched_getaffinity", I, I, L, P);
    private static final Fn SCHED_SETAFFINITY = function("sched_setaffinity", I, I, L, P);
    private static final Fn GETPID = function("getpid", I);
    private static final Fn GETPPID = function("getppid", I);
    /**
     * Variadic in C, {@code int prctl(int option, ...)}, which reads its second argument as an
     * unsigned long: passed register-wide (see fcntl for the variadic call).
     */
    private static final Fn PRCTL = function("prctl", I, I, L);
    /** Variadic in C, {@code long syscall(long number, ...)}, here always with two ints (see fcntl). */
    private static final Fn SYSCALL = function("syscall", L, L, I, I);
    /** {@code syscall} again, with five register-wide arguments: io_uring's calls (see fcntl). */
    private static final Fn SYSCALL5 = function("syscall", L, L, L, L, L, L, L);
    private static final Fn MMAP = function("mmap", P, P, L, I, I, I, L);
    private static final Fn MUNMAP = function("munmap", I, P, L);
    private static final Fn STRERROR = function("strerror", P, I);

    static {
        StartTrace.mark("libc bound");
    }

    int socket(int domain, int type, int protocol) {
        return INVOKE.invokeI3(SOCKET.ctx, SOCKET.address, domain, type, protocol);
    }

    int bind(int fd, long addr, int addrLen) {
        return (int) INVOKE.invokeL3(BIND.ctx, BIND.address, fd, addr, addrLen);
    }

    int listen(int fd, int backlog) {
        return INVOKE.invokeI2(LISTEN.ctx, LISTEN.address, fd, backlog);
    }

    int accept4(int fd, long addr, long addrLenPtr, int flags) {
        return (int) INVOKE.invokeL4(ACCEPT4.ctx, ACCEPT4.address, fd, addr, addrLenPtr, flags);
    }

    int getsockname(int fd, long addr, long addrLenPtr) {
        return (int) INVOKE.invokeL3(GETSOCKNAME.ctx, GETSOCKNAME.address, fd, addr, addrLenPtr);
    }

    int setsockopt(int fd, int level, int name, long value, int valueLen) {
        return (int) INVOKE.invokeL5(SETSOCKOPT.ctx, SETSOCKOPT.address, fd, level, name, value, valueLen);
    }

    int getsockopt(int fd, int level, int name, long value, long valueLenPtr) {
        return (int) INVOKE.invokeL5(GETSOCKOPT.ctx, GETSOCKOPT.address, fd, level, name, value, valueLenPtr);
    }

    int socketpair(int domain, int type, int protocol, long fds) {
        return (int) INVOKE.invokeL4(SOCKETPAIR.ctx, SOCKETPAIR.address, domain, type, protocol, fds);
    }

    int shutdown(int fd, int how) {
        return INVOKE.invokeI2(SHUTDOWN.ctx, SHUTDOWN.address, fd, how);
    }

    long read(int fd, long buf, long count) {
        return INVOKE.invokeL3(READ.ctx, READ.address, fd, buf, count);
    }

    long write(int fd, long buf, long count) {
        return INVOKE.invokeL3(WRITE.ctx, WRITE.address, fd, buf, count);
    }

    int open(long path, int flags, int mode) {
        return (int) INVOKE.invokeL3(OPEN.ctx, OPEN.address, path, flags, mode);
    }

    long pread(int fd, long buf, long count, long offset) {
        return INVOKE.invokeL4(PREAD.ctx, PREAD.address, fd, buf, count, offset);
    }

    long send(int fd, long buf, long len, int flags) {
        return INVOKE.invokeL4(SEND.ctx, SEND.address, fd, buf, len, flags);
    }

    long sendfile(int outFd, int inFd, long offsetPtr, long count) {
        return INVOKE.invokeL4(SENDFILE.ctx, SENDFILE.address, outFd, inFd, offsetPtr, count);
    }

    long writev(int fd, long iov, int iovcnt) {
        return INVOKE.invokeL3(WRITEV.ctx, WRITEV.address, fd, iov, iovcnt);
    }

    long sendmsg(int fd, long msghdr, int flags) {
        return INVOKE.invokeL3(SENDMSG.ctx, SENDMSG.address, fd, msghdr, flags);
    }

    long recvmsg(int fd, long msghdr, int flags) {
        return INVOKE.invokeL3(RECVMSG.ctx, RECVMSG.address, fd, msghdr, flags);
    }

    int clock_gettime(int clockId, long timespec) {
        return (int) INVOKE.invokeL2(CLOCK_GETTIME.ctx, CLOCK_GETTIME.address, clockId, timespec);
    }

    int getrlimit(int resource, long rlimit) {
        return (int) INVOKE.invokeL2(GETRLIMIT.ctx, GETRLIMIT.address, resource, rlimit);
    }

    int close(int fd) {
        return INVOKE.invokeI1(CLOSE.ctx, CLOSE.address, fd);
    }

    int fcntl(int fd, int cmd, int arg) {
        return INVOKE.invokeI3(FCNTL.ctx, FCNTL.address, fd, cmd, arg);
    }

    int epoll_create1(int flags) {
        return INVOKE.invokeI1(EPOLL_CREATE1.ctx, EPOLL_CREATE1.address, flags);
    }

    int epoll_ctl(int epfd, int op, int fd, long event) {
        return (int) INVOKE.invokeL4(EPOLL_CTL.ctx, EPOLL_CTL.address, epfd, op, fd, event);
    }

    int epoll_wait(int epfd, long events, int maxEvents, int timeoutMillis) {
        return (int) INVOKE.invokeL4(EPOLL_WAIT.ctx, EPOLL_WAIT.address, epfd, events, maxEvents, timeoutMillis);
    }

    /** epoll_wait with a {@code struct timespec} timeout (0: none, wait forever); glibc 2.35, Linux 5.11. */
    int epoll_pwait2(int epfd, long events, int maxEvents, long timespec, long sigmask, long sigsetSize) {
        return (int) INVOKE.invokeL6(EPOLL_PWAIT2.ctx, EPOLL_PWAIT2.address, epfd, events, maxEvents, timespec,
                sigmask, sigsetSize);
    }

    int poll(long fds, long nfds, int timeoutMillis) {
        return (int) INVOKE.invokeL3(POLL.ctx, POLL.address, fds, nfds, timeoutMillis);
    }

    int eventfd(int initval, int flags) {
        return INVOKE.invokeI2(EVENTFD.ctx, EVENTFD.address, initval, flags);
    }

    int memfd_create(String name, int flags) {
        Memory cName = cString(name);
        try {
            return (int) INVOKE.invokeL2(MEMFD_CREATE.ctx, MEMFD_CREATE.address, cName.address(), flags);
        } finally {
            Reference.reachabilityFence(cName); // its buffer is freed once the Memory is garbage
        }
    }

    int posix_spawnp(long pidPtr, String file, long fileActions, long attr, long argv, long envp) {
        Memory cFile = cString(file);
        try {
            return (int) INVOKE.invokeL6(POSIX_SPAWNP.ctx, POSIX_SPAWNP.address, pidPtr, cFile.address(), fileActions,
                    attr, argv, envp);
        } finally {
            Reference.reachabilityFence(cFile);
        }
    }

    int posix_spawn_file_actions_init(long fileActions) {
        return (int) INVOKE.invokeL1(FILE_ACTIONS_INIT.ctx, FILE_ACTIONS_INIT.address, fileActions);
    }

    int posix_spawn_file_actions_adddup2(long fileActions, int fd, int newFd) {
        return (int) INVOKE.invokeL3(FILE_ACTIONS_ADDDUP2.ctx, FILE_ACTIONS_ADDDUP2.address, fileActions, fd, newFd);
    }

    int posix_spawn_file_actions_addclosefrom_np(long fileActions, int from) {
        return (int) INVOKE.invokeL2(FILE_ACTIONS_ADDCLOSEFROM.ctx, FILE_ACTIONS_ADDCLOSEFROM.address, fileActions, from);
    }

    int posix_spawn_file_actions_addclose(long fileActions, int fd) {
        return (int) INVOKE.invokeL2(FILE_ACTIONS_ADDCLOSE.ctx, FILE_ACTIONS_ADDCLOSE.address, fileActions, fd);
    }

    int posix_spawn_file_actions_destroy(long fileActions) {
        return (int) INVOKE.invokeL1(FILE_ACTIONS_DESTROY.ctx, FILE_ACTIONS_DESTROY.address, fileActions);
    }

    int posix_spawnattr_init(long attr) {
        return (int) INVOKE.invokeL1(SPAWNATTR_INIT.ctx, SPAWNATTR_INIT.address, attr);
    }

    int posix_spawnattr_setflags(long attr, short flags) {
        return (int) INVOKE.invokeL2(SPAWNATTR_SETFLAGS.ctx, SPAWNATTR_SETFLAGS.address, attr, flags);
    }

    int posix_spawnattr_setsigmask(long attr, long sigset) {
        return (int) INVOKE.invokeL2(SPAWNATTR_SETSIGMASK.ctx, SPAWNATTR_SETSIGMASK.address, attr, sigset);
    }

    int posix_spawnattr_setsigdefault(long attr, long sigset) {
        return (int) INVOKE.invokeL2(SPAWNATTR_SETSIGDEFAULT.ctx, SPAWNATTR_SETSIGDEFAULT.address, attr, sigset);
    }

    int posix_spawnattr_destroy(long attr) {
        return (int) INVOKE.invokeL1(SPAWNATTR_DESTROY.ctx, SPAWNATTR_DESTROY.address, attr);
    }

    int sigemptyset(long sigset) {
        return (int) INVOKE.invokeL1(SIGEMPTYSET.ctx, SIGEMPTYSET.address, sigset);
    }

    int sigfillset(long sigset) {
        return (int) INVOKE.invokeL1(SIGFILLSET.ctx, SIGFILLSET.address, sigset);
    }

    int waitpid(int pid, long status, int options) {
        return (int) INVOKE.invokeL3(WAITPID.ctx, WAITPID.address, pid, status, options);
    }

    int kill(int pid, int sig) {
        return INVOKE.invokeI2(KILL.ctx, KILL.address, pid, sig);
    }

    long signal(int sig, long handler) {
        return INVOKE.invokeL2(SIGNAL.ctx, SIGNAL.address, sig, handler);
    }

    /** {@code pid} 0: the calling thread. */
    int sched_getaffinity(int pid, long size, long mask) {
        return (int) INVOKE.invokeL3(SCHED_GETAFFINITY.ctx, SCHED_GETAFFINITY.address, pid, size, mask);
    }

    /** {@code pid} 0: the calling thread. */
    int sched_setaffinity(int pid, long size, long mask) {
        return (int) INVOKE.invokeL3(SCHED_SETAFFINITY.ctx, SCHED_SETAFFINITY.address, pid, size, mask);
    }

    int getpid() {
        return INVOKE.invokeI0(GETPID.ctx, GETPID.address);
    }

    int getppid() {
        return INVOKE.invokeI0(GETPPID.ctx, GETPPID.address);
    }

    int prctl(int option, long arg) {
        return (int) INVOKE.invokeL2(PRCTL.ctx, PRCTL.address, option, arg);
    }

    /** This libc has epoll_pwait2 (glibc 2.35); the kernel may still lack it (ENOSYS). */
    static boolean hasEpollPwait2() {
        return EPOLL_PWAIT2.address != 0;
    }

    /** This libc has posix_spawn_file_actions_addclosefrom_np (glibc 2.34). */
    static boolean hasAddClosefrom() {
        return FILE_ACTIONS_ADDCLOSEFROM.address != 0;
    }

    long syscall(long number, int arg0, int arg1) {
        return INVOKE.invokeL3(SYSCALL.ctx, SYSCALL.address, number, arg0, arg1);
    }

    long syscall(long number, long arg0, long arg1, long arg2, long arg3, long arg4) {
        return INVOKE.invokeL6(SYSCALL5.ctx, SYSCALL5.address, number, arg0, arg1, arg2, arg3, arg4);
    }

    /** MAP_FAILED is -1. */
    long mmap(long addr, long length, int prot, int flags, int fd, long offset) {
        return INVOKE.invokeL6(MMAP.ctx, MMAP.address, addr, length, prot, flags, fd, offset);
    }

    int munmap(long addr, long length) {
        return (int) INVOKE.invokeL2(MUNMAP.ctx, MUNMAP.address, addr, length);
    }

    /** A buffer over native memory this package mapped (io_uring's rings), for typed and ordered access. */
    static ByteBuffer view(long address, int bytes) {
        return IO.newDirectByteBuffer(address, bytes);
    }

    /** The C library's text for {@code errnum}, or null. */
    String strerror(int errnum) {
        long s = INVOKE.invokeL1(STRERROR.ctx, STRERROR.address, errnum);
        return s == 0 ? null : new String(IO.getZeroTerminatedByteArray(s), StandardCharsets.UTF_8);
    }

    /** {@code s} NUL-terminated in native memory, for the few calls that take a C string. */
    private static Memory cString(String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        Memory m = new Memory(b.length + 1);
        ByteBuffer buf = m.buffer();
        buf.put(0, b);
        buf.put(b.length, (byte) 0);
        return m;
    }

    /** The address of a direct buffer's first byte (for {@link Memory}). */
    static long address(ByteBuffer direct) {
        return IO.getDirectBufferAddress(direct);
    }
}
