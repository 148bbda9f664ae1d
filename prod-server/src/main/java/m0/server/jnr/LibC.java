package m0.server.jnr;

import jnr.ffi.annotations.Variadic;

/**
 * The libc calls m0serve needs and the JDK lacks, declared for jnr-ffi (x86_64 Linux, glibc).
 *
 * <p>Every pointer is a plain {@code long} address into memory this package preallocated
 * (direct buffers; see {@link Memory}): no per-call marshalling, and jnr-ffi's struct layout
 * (which gets the packed {@code epoll_event} wrong) is never used. On x86_64 a pointer, a
 * {@code size_t} and a {@code long} travel in the same register. Public only because jnr-ffi
 * defines its implementation in another class loader; the rest of the server uses the typed
 * wrappers beside it, never this. errno is saved after every call
 * (jnr-ffi's default) and read by {@link Native#errno()}.
 */
public interface LibC {

    int socket(int domain, int type, int protocol);

    int bind(int fd, long addr, int addrLen);

    int listen(int fd, int backlog);

    int accept4(int fd, long addr, long addrLenPtr, int flags);

    int getsockname(int fd, long addr, long addrLenPtr);

    int setsockopt(int fd, int level, int name, long value, int valueLen);

    int getsockopt(int fd, int level, int name, long value, long valueLenPtr);

    int socketpair(int domain, int type, int protocol, long fds);

    int shutdown(int fd, int how);

    long read(int fd, long buf, long count);

    long write(int fd, long buf, long count);

    long writev(int fd, long iov, int iovcnt);

    long sendmsg(int fd, long msghdr, int flags);

    int clock_gettime(int clockId, long timespec);

    long recvmsg(int fd, long msghdr, int flags);

    int getrlimit(int resource, long rlimit);

    int close(int fd);

    /** Variadic in C: without fixedCount the third argument is passed wrongly. */
    @Variadic(fixedCount = 2)
    int fcntl(int fd, int cmd, int arg);

    int epoll_create1(int flags);

    int epoll_ctl(int epfd, int op, int fd, long event);

    int epoll_wait(int epfd, long events, int maxEvents, int timeoutMillis);

    /** epoll_wait with a {@code struct timespec} timeout (0: none, wait forever); glibc 2.35, Linux 5.11. */
    int epoll_pwait2(int epfd, long events, int maxEvents, long timespec, long sigmask, long sigsetSize);

    int poll(long fds, long nfds, int timeoutMillis);

    int eventfd(int initval, int flags);

    int memfd_create(String name, int flags);

    int posix_spawnp(long pidPtr, String file, long fileActions, long attr, long argv, long envp);

    int posix_spawn_file_actions_init(long fileActions);

    int posix_spawn_file_actions_adddup2(long fileActions, int fd, int newFd);

    int posix_spawn_file_actions_addclosefrom_np(long fileActions, int from);

    int posix_spawn_file_actions_destroy(long fileActions);

    int posix_spawnattr_init(long attr);

    int posix_spawnattr_setflags(long attr, short flags);

    int posix_spawnattr_setsigmask(long attr, long sigset);

    int posix_spawnattr_setsigdefault(long attr, long sigset);

    int posix_spawnattr_destroy(long attr);

    int sigemptyset(long sigset);

    int sigfillset(long sigset);

    int waitpid(int pid, long status, int options);

    int kill(int pid, int sig);

    /** Only ever called with SIG_DFL (0): the handler argument is a pointer-sized integer. */
    long signal(int sig, long handler);

    int getpid();

    int getppid();

    @Variadic(fixedCount = 1)
    long syscall(long number, int arg0, int arg1);

    String strerror(int errnum);
}
