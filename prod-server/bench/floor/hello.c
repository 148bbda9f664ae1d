/*
 * The floor of a keep-alive hello's CPU without a JVM or a parser (ADR 0048): a prefork server
 * that answers every request with its pid, as nginx's bench config does. MODE picks how it
 * waits, reads and writes:
 *   epoll          a wait, then read(2) and write(2) a request: what nginx and m0serve do
 *   epoll-batched  the same, but a pass reads every ready connection before it writes any
 *   epoll-ringsend epoll-batched, the pass's answers sent in one io_uring_enter (MSG_DONTWAIT)
 *   uring-rw       a one-shot ring poll per idle connection replaces epoll; read(2), write(2)
 *   uring-read     the ring poll, read(2), and the answer as a send submitted to the ring
 *   uring-poll     the ring poll, then a ring recv, and the send
 *   uring          a ring recv always in flight, and the send
 * In every uring mode the sends of a batch and the wait go in one io_uring_enter, on a ring set
 * up SINGLE_ISSUER | DEFER_TASKRUN (HELLO_PLAIN=1: without them, as kernels before 6.1 run).
 * HELLO_CPU=1: connections go to worker (the CPU their SYN arrived on) mod WORKERS (see main).
 * HELLO_CAP=N: a worker holding N connections stops accepting until one closes, so 32
 * connections over 2 workers split 16/16 as m0serve's share spreads them; without it the
 * kernel's wake-ups decide, and on a burst one worker often takes all 32 (ADR 0051). Capped
 * epoll workers also wait on the listener without EPOLLEXCLUSIVE (see run_epoll).
 *
 *   hello PORT WORKERS MODE      (cc -O2 -o hello hello.c -luring; Debian liburing-dev)
 *
 * Binds 127.0.0.1:PORT, forks WORKERS children that share the listener (HELLO_CPU: one each),
 * prints "listening on 127.0.0.1:PORT" and waits for them. A bench tool, not a server: it counts ends
 * of heads instead of parsing, and has no limits, timeouts or error reporting beyond closing
 * what fails.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <linux/filter.h>
#include <liburing.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#define MAX_FD 65536
#define BUF 4096
#define OP_ACCEPT 1ULL
#define OP_RECV 2ULL
#define OP_SEND 3ULL
#define OP_POLL 4ULL

enum mode { RECV_IN_FLIGHT, POLL_THEN_RECV, POLL_THEN_READ, POLL_THEN_READ_WRITE };
static enum mode mode;

static char response[256];
static int response_len;
static char *bufs[MAX_FD];

/* Requests whose heads ended in these bytes; wrk sends one at a time, a pipeline would count many. */
static int heads(const char *b, int n) {
    int k = 0;
    for (int i = 3; i < n; i++)
        if (b[i] == '\n' && b[i - 1] == '\r' && b[i - 2] == '\n' && b[i - 3] == '\r') k++;
    return k;
}

static void answer_setup(void) {
    char body[32];
    int bl = snprintf(body, sizeof body, "%d\n", getpid());
    response_len = snprintf(response, sizeof response,
        "HTTP/1.1 200 OK\r\nContent-Type: text/plain\r\nContent-Length: %d\r\nConnection: keep-alive\r\n\r\n%s", bl, body);
}

static void nodelay(int fd) { int one = 1; setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one); }

static int cap;       /* HELLO_CAP: the most connections a worker holds; 0: no cap */
static int held;      /* connections this worker holds */
static int listening = 1;
static int ep = -1, listener = -1;

static void arm_accept(void);

/* Every close of a connection goes through here, so a capped worker listens again. */
static void drop(int fd) {
    close(fd);
    held--;
    if (cap && !listening && held < cap) arm_accept();
}

static int batched;  /* epoll-batched: a pass reads every ready connection, then writes every answer */
static int ringsend; /* epoll-ringsend: as batched, but the pass's answers go in one io_uring_enter */
static struct io_uring ring;

static void run_epoll(int lfd) {
    ep = epoll_create1(0);
    listener = lfd;
    /* A capped worker leaves the listener's wait queue; with EPOLLEXCLUSIVE a connection whose
     * wake-up went to it could then sit in the backlog, so capped workers are all woken. */
    struct epoll_event ev = {.events = EPOLLIN | (cap ? 0 : EPOLLEXCLUSIVE), .data.fd = lfd};
    epoll_ctl(ep, EPOLL_CTL_ADD, lfd, &ev);
    struct epoll_event evs[512];
    char buf[BUF];
    static int owed[MAX_FD], due[512];
    int ndue = 0;
    for (;;) {
        int n = epoll_wait(ep, evs, 512, -1);
        for (int i = 0; i < n; i++) {
            int fd = evs[i].data.fd;
            if (fd == lfd) {
                int c;
                while ((!cap || held < cap) && (c = accept4(lfd, NULL, NULL, SOCK_NONBLOCK)) >= 0) {
                    if (c >= MAX_FD) { close(c); continue; }  /* past the tables: not served */
                    held++;
                    nodelay(c);
                    struct epoll_event ce = {.events = EPOLLIN | EPOLLRDHUP | EPOLLET, .data.fd = c};
                    epoll_ctl(ep, EPOLL_CTL_ADD, c, &ce);
                }
                if (cap && held >= cap) { epoll_ctl(ep, EPOLL_CTL_DEL, lfd, NULL); listening = 0; }
                continue;
            }
            int r = read(fd, buf, BUF);
            if (r <= 0) { if (r == 0 || errno != EAGAIN) drop(fd); continue; }
            int k = heads(buf, r);
            if (batched) { owed[fd] += k; if (k) due[ndue++] = fd; continue; }
            for (; k > 0; k--) write(fd, response, response_len);
        }
        if (ringsend && ndue > 0) {
            int queued = 0;
            for (int i = 0; i < ndue; i++) {
                for (; owed[due[i]] > 0; owed[due[i]]--) {
                    struct io_uring_sqe *s = io_uring_get_sqe(&ring);
                    if (!s) { io_uring_submit_and_wait(&ring, queued); s = io_uring_get_sqe(&ring); }
                    io_uring_prep_send(s, due[i], response, response_len, MSG_DONTWAIT | MSG_NOSIGNAL);
                    queued++;
                }
            }
            io_uring_submit_and_wait(&ring, queued);  /* MSG_DONTWAIT: each completes now, sent or EAGAIN */
            struct io_uring_cqe *cqe;
            unsigned head, seen = 0;
            io_uring_for_each_cqe(&ring, head, cqe) { seen++; }
            io_uring_cq_advance(&ring, seen);
        }
        for (int i = 0; i < ndue; i++) {
            for (; owed[due[i]] > 0; owed[due[i]]--) write(due[i], response, response_len);
        }
        ndue = 0;
    }
}

static struct io_uring_sqe *sqe(void) {
    struct io_uring_sqe *s = io_uring_get_sqe(&ring);
    if (!s) { io_uring_submit(&ring); s = io_uring_get_sqe(&ring); }
    return s;
}

static int uring_accepts;  /* the listener is accepted through the ring, not epoll */

/* Listen again: a multishot accept in the ring (a one-shot when capped, so the cap is checked
 * at each), or the listener back in the epoll set. */
static void arm_accept(void) {
    listening = 1;
    if (!uring_accepts) {
        struct epoll_event ev = {.events = EPOLLIN, .data.fd = listener};
        epoll_ctl(ep, EPOLL_CTL_ADD, listener, &ev);
        return;
    }
    struct io_uring_sqe *s = sqe();
    if (cap) io_uring_prep_accept(s, listener, NULL, NULL, 0);
    else io_uring_prep_multishot_accept(s, listener, NULL, NULL, 0);
    io_uring_sqe_set_data64(s, OP_ACCEPT << 32);
}

static void recv_on(int fd) {
    struct io_uring_sqe *s = sqe();
    io_uring_prep_recv(s, fd, bufs[fd], BUF, 0);
    io_uring_sqe_set_data64(s, OP_RECV << 32 | (unsigned) fd);
}

/* What an idle connection waits on: a recv in flight, or a poll that takes no bytes. */
static void idle_on(int fd) {
    if (mode == RECV_IN_FLIGHT) { recv_on(fd); return; }
    struct io_uring_sqe *s = sqe();
    io_uring_prep_poll_add(s, fd, POLLIN);
    io_uring_sqe_set_data64(s, OP_POLL << 32 | (unsigned) fd);
}

static void answer(int fd, int n) {
    if (mode == POLL_THEN_READ_WRITE) {
        for (int k = heads(bufs[fd], n); k > 0; k--) write(fd, response, response_len);
        idle_on(fd);
        return;
    }
    for (int k = heads(bufs[fd], n); k > 0; k--) {
        struct io_uring_sqe *s = sqe();
        io_uring_prep_send(s, fd, response, response_len, 0);
        io_uring_sqe_set_data64(s, OP_SEND << 32 | (unsigned) fd);
        s->flags |= IOSQE_CQE_SKIP_SUCCESS;
    }
    idle_on(fd);
}

static void run_uring(int lfd) {
    struct io_uring_params p = {.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN};
    if (getenv("HELLO_PLAIN")) p.flags = 0;
    if (io_uring_queue_init_params(1024, &ring, &p) < 0) {
        memset(&p, 0, sizeof p);  /* an older kernel: plain task work */
        if (io_uring_queue_init_params(1024, &ring, &p) < 0) { perror("io_uring"); exit(1); }
        fprintf(stderr, "hello: no DEFER_TASKRUN\n");
    }
    listener = lfd;
    uring_accepts = 1;
    arm_accept();
    for (;;) {
        io_uring_submit_and_wait(&ring, 1);
        struct io_uring_cqe *cqe;
        unsigned head, seen = 0;
        io_uring_for_each_cqe(&ring, head, cqe) {
            seen++;
            unsigned long long op = cqe->user_data >> 32;
            int fd = (int) (cqe->user_data & 0xffffffffu), res = cqe->res;
            if (op == OP_ACCEPT) {
                if (res >= 0 && res < MAX_FD) {
                    held++;
                    nodelay(res);
                    if (!bufs[res]) bufs[res] = malloc(BUF);
                    idle_on(res);
                } else if (res >= 0) {
                    close(res);  /* past the table: not served */
                }
                if (!(cqe->flags & IORING_CQE_F_MORE)) {  /* the multishot ended, or a capped one-shot */
                    listening = 0;
                    if (!cap || held < cap) arm_accept();
                }
            } else if (op == OP_RECV) {
                if (res <= 0) { drop(fd); continue; }
                answer(fd, res);
            } else if (op == OP_POLL) {
                if (res < 0) { drop(fd); continue; }
                if (mode == POLL_THEN_RECV) { recv_on(fd); continue; }
                int r = read(fd, bufs[fd], BUF);
                if (r <= 0) { if (r == 0 || errno != EAGAIN) drop(fd); else idle_on(fd); continue; }
                answer(fd, r);
            }
            /* OP_SEND: only a failed send completes (CQE_SKIP_SUCCESS); its recv sees the close */
        }
        io_uring_cq_advance(&ring, seen);
    }
}

int main(int argc, char **argv) {
    int uring = argc == 4 && !strncmp(argv[3], "uring", 5);
    ringsend = argc == 4 && !strcmp(argv[3], "epoll-ringsend");
    batched = argc == 4 && (!strcmp(argv[3], "epoll-batched") || ringsend);
    if (argc != 4 || (strcmp(argv[3], "epoll") && strcmp(argv[3], "epoll-batched") && strcmp(argv[3], "epoll-ringsend") && strcmp(argv[3], "uring") && strcmp(argv[3], "uring-poll")
                      && strcmp(argv[3], "uring-read") && strcmp(argv[3], "uring-rw"))) {
        fprintf(stderr, "usage: hello PORT WORKERS epoll|epoll-batched|epoll-ringsend|uring-rw|uring-read|uring-poll|uring\n");
        return 2;
    }
    mode = !strcmp(argv[3], "uring-poll") ? POLL_THEN_RECV : !strcmp(argv[3], "uring-read") ? POLL_THEN_READ
         : !strcmp(argv[3], "uring-rw") ? POLL_THEN_READ_WRITE : RECV_IN_FLIGHT;
    int port = atoi(argv[1]), workers = atoi(argv[2]);
    /* HELLO_CPU=1: a listener per worker in one SO_REUSEPORT group and a classic BPF program that
     * picks the listener by the CPU the connection's SYN arrived on (on loopback, the connecting
     * client thread's), modulo the workers: a client thread's connections meet one worker
     * (ADR 0051). Workers are not pinned, so that the scheduler may keep a worker beside its
     * client thread. The parent keeps every listener open: a
     * dead worker's stays in the group. Otherwise one listener. */
    const char *steer = getenv("HELLO_CPU");
    int by_cpu = steer && *steer && strcmp(steer, "0"), nl = by_cpu ? workers : 1, lfds[64], one = 1;
    if (workers < 1 || nl > 64) {
        fprintf(stderr, "hello: WORKERS must be 1 to 64 (HELLO_CPU: a listener each)\n");
        return 2;
    }
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port)};
    inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
    for (int i = 0; i < nl; i++) {
        lfds[i] = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
        setsockopt(lfds[i], SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        if (by_cpu) setsockopt(lfds[i], SOL_SOCKET, SO_REUSEPORT, &one, sizeof one);
        if (bind(lfds[i], (struct sockaddr *) &a, sizeof a) || listen(lfds[i], 4096)) {
            fprintf(stderr, "hello: 127.0.0.1:%d: %s\n", port, strerror(errno));
            return 1;
        }
    }
    if (by_cpu) {
        struct sock_filter code[] = {
            {BPF_LD | BPF_W | BPF_ABS, 0, 0, SKF_AD_OFF + SKF_AD_CPU},
            {BPF_ALU | BPF_MOD | BPF_K, 0, 0, (unsigned) workers},
            {BPF_RET | BPF_A, 0, 0, 0},
        };
        struct sock_fprog prog = {.len = sizeof code / sizeof *code, .filter = code};
        if (setsockopt(lfds[0], SOL_SOCKET, SO_ATTACH_REUSEPORT_CBPF, &prog, sizeof prog)) { perror("reuseport cbpf"); return 1; }
    }
    signal(SIGPIPE, SIG_IGN);
    if (getenv("HELLO_CAP") && atoi(getenv("HELLO_CAP")) > 0) cap = atoi(getenv("HELLO_CAP"));
    if (by_cpu && cap) {
        /* a capped worker's own listener would hold its backlog: nobody else accepts from it */
        fprintf(stderr, "hello: HELLO_CAP and HELLO_CPU do not combine\n");
        return 2;
    }
    for (int w = 0; w < workers; w++) {
        if (fork() == 0) {
            int lfd = lfds[by_cpu ? w : 0];
            for (int i = 0; i < nl; i++) if (lfds[i] != lfd) close(lfds[i]);
            answer_setup();
            if (ringsend) {
                struct io_uring_params p = {.flags = IORING_SETUP_SINGLE_ISSUER | IORING_SETUP_DEFER_TASKRUN};
                if (io_uring_queue_init_params(1024, &ring, &p) < 0) { perror("io_uring"); _exit(1); }
            }
            if (uring) run_uring(lfd); else run_epoll(lfd);
            _exit(0);
        }
    }
    printf("listening on 127.0.0.1:%d (%s, %d workers)\n", port, argv[3], workers);
    fflush(stdout);
    while (wait(NULL) > 0) {}
    return 0;
}
