#!/usr/bin/env python3
"""tls.sh's client: TLS connections opened at once (a barrier releases every thread together).

    tls_storm.py storm PORT N SERVER_PID [LOG]    N new connections, one request each (Connection: close),
        full handshakes; then N more, each offering the session the same slot's first connection
        got (its ticket). Per storm one line:
        "full|resume N ok P50_MS P99_MS CPU_NS JIT_NS RESUMED PROTOCOL CIPHER"
        CPU_NS: CPU time of SERVER_PID's and its children's threads (/proc schedstat), read before the barrier and
        0.5 s after the last answer (the closes that follow the answers are counted too); JIT_NS: the
        part of it spent by HotSpot's C1 and C2 compiler threads (0 for a server without them). LOG:
        each answered connection's time in ms is appended to LOG_full and LOG_resume.
    tls_storm.py jit SERVER_PID STATE   the C1+C2 compiler threads' CPU (ns) of SERVER_PID and its
        children since the call that wrote STATE (a file of per-thread times it rewrites; no STATE
        yet: since the threads started). tls.sh warms an arm until this is small over a storm pair.
    tls_storm.py land PORT N WORKERS ROUNDS   N keep-alive connections at once, each handshaken;
        then, all still open, each asks /pid. One line per round: the answers per pid, largest
        first, padded to WORKERS ("32/32").

Time to the answer: from the barrier's release to the answer's last byte (connect, handshake,
request). The protocol, suites and groups are the client's OpenSSL configuration's (tls.sh sets
OPENSSL_CONF); PROTOCOL CIPHER are those the first connection negotiated. Every wait is bounded
(sockets 20 s, barriers 60 s); a connection that fails is left out of the percentiles and of ok.
"""
import json
import os
import socket
import ssl
import sys
import threading
import time

TIMEOUT = 20.0
threading.stack_size(256 * 1024)


def context():
    c = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    c.check_hostname = False
    c.verify_mode = ssl.CERT_NONE  # the certificate is made at run time; the server is ours
    return c


JIT_THREADS = ("C1 CompilerThre", "C2 CompilerThre")  # HotSpot's names, cut to comm's 15 bytes


def server_threads(pid):
    """{tid: [ns on a CPU, is a JIT compiler thread]} for pid's threads and its children's: each
    task's schedstat (its first field, time on a CPU, user and system), finer than stat's 10 ms
    ticks, which a storm of 256 nginx handshakes (tens of ms) would not resolve."""
    out = {}
    kids = []
    try:
        for t in os.listdir(f"/proc/{pid}/task"):
            with open(f"/proc/{pid}/task/{t}/children") as f:
                kids += f.read().split()
    except OSError:
        pass
    for p in [str(pid)] + kids:
        try:
            tasks = os.listdir(f"/proc/{p}/task")
        except OSError:
            continue
        for t in tasks:
            try:
                with open(f"/proc/{p}/task/{t}/schedstat") as f:
                    ns = int(f.read().split()[0])
                with open(f"/proc/{p}/task/{t}/comm") as f:
                    jit = f.read().startswith(JIT_THREADS)
                out[t] = [ns, jit]
            except (OSError, IndexError, ValueError):
                pass
    return out


def cpu_ns(before, after):
    """(all, jit) CPU ns between two server_threads reads, thread by thread: one that starts
    between them counts from zero; one that ends between them drops out (its share since the first
    read is lost, but its earlier time is not subtracted). HotSpot may stop an idle compiler thread."""
    total = jit = 0
    for t, (ns, is_jit) in after.items():
        d = ns - before.get(t, [0, False])[0]
        total += d
        if is_jit:
            jit += d
    return total, jit


def read_answer(s):
    """Reads one HTTP/1.1 answer with a Content-Length; returns its body."""
    buf = b""
    while b"\r\n\r\n" not in buf:
        chunk = s.recv(65536)
        if not chunk:
            raise ConnectionError("closed before the head")
        buf += chunk
    head, body = buf.split(b"\r\n\r\n", 1)
    length = 0
    for line in head.split(b"\r\n")[1:]:
        k, _, v = line.partition(b":")
        if k.strip().lower() == b"content-length":
            length = int(v)
    while len(body) < length:
        chunk = s.recv(65536)
        if not chunk:
            raise ConnectionError("closed inside the body")
        body += chunk
    if not head.startswith(b"HTTP/1.1 200"):
        raise ConnectionError(head.split(b"\r\n")[0].decode(errors="replace"))
    return body


def pct(values, p):
    if not values:
        return float("nan")
    v = sorted(values)
    return v[min(len(v) - 1, int(round(p / 100 * (len(v) - 1))))]


def storm(ctx, port, n, pid, sessions):
    """One storm; returns (times_ms, reused count, new sessions, protocol, cipher, cpu ns, jit ns)."""
    barrier = threading.Barrier(n + 1, timeout=60)
    times = [None] * n
    reused = [False] * n
    got = [None] * n
    seen = []
    req = b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n"

    def one(i):
        try:
            barrier.wait()
        except threading.BrokenBarrierError:
            return
        t0 = time.perf_counter()
        try:
            raw = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
            with ctx.wrap_socket(raw, session=sessions[i] if sessions else None) as s:
                s.sendall(req)
                read_answer(s)
                times[i] = (time.perf_counter() - t0) * 1000
                reused[i] = s.session_reused
                got[i] = s.session
                if not seen:
                    seen.append((s.version(), s.cipher()[0]))
        except (OSError, ssl.SSLError, ConnectionError, ValueError) as e:
            print(f"  connection {i}: {e}", file=sys.stderr)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    before = server_threads(pid)
    barrier.wait()
    for t in threads:
        t.join(TIMEOUT * 3)
    time.sleep(0.5)
    cpu, jit = cpu_ns(before, server_threads(pid))
    ok = [x for x in times if x is not None]
    proto, cipher = seen[0] if seen else ("-", "-")
    return ok, sum(reused), got, proto, cipher, cpu, jit


def do_storm(port, n, pid, log):
    ctx = context()
    sessions = None
    for kind in ("full", "resume"):
        ok, nre, got, proto, cipher, cpu, jit = storm(ctx, port, n, pid, sessions)
        if log:
            with open(f"{log}_{kind}", "a") as f:
                f.writelines(f"{x:.3f}\n" for x in ok)
        print(f"{kind} {n} {len(ok)} {pct(ok, 50):.2f} {pct(ok, 99):.2f} {cpu} {jit} {nre} {proto} {cipher}", flush=True)
        sessions = got


def do_jit(pid, state):
    now = server_threads(pid)
    try:
        with open(state) as f:
            before = json.load(f)
    except (OSError, ValueError):
        before = {}
    with open(state, "w") as f:
        json.dump(now, f)
    print(cpu_ns(before, now)[1], flush=True)


def do_land(port, n, workers, rounds):
    ctx = context()
    for _ in range(rounds):
        opened = threading.Barrier(n + 1, timeout=60)
        asked = threading.Barrier(n + 1, timeout=60)
        answers = [None] * n

        def one(i):
            s = None
            try:
                opened.wait()
                raw = socket.create_connection(("127.0.0.1", port), timeout=TIMEOUT)
                s = ctx.wrap_socket(raw)
            except (OSError, ssl.SSLError, threading.BrokenBarrierError) as e:
                print(f"  connection {i}: {e}", file=sys.stderr)
            try:
                asked.wait()  # every connection open (handshaken) before any asks
                if s is not None:
                    s.sendall(b"GET /pid HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                    answers[i] = read_answer(s).split()[0].decode()
            except (OSError, ssl.SSLError, ConnectionError, ValueError, threading.BrokenBarrierError) as e:
                print(f"  connection {i}: {e}", file=sys.stderr)
            return s

        held = []
        threads = [threading.Thread(target=lambda i=i: held.append(one(i))) for i in range(n)]
        for t in threads:
            t.start()
        opened.wait()
        asked.wait()
        for t in threads:
            t.join(TIMEOUT * 3)
        for s in held:  # closed only once every answer is in: all were open while asked
            if s is not None:
                s.close()
        counts = {}
        for a in answers:
            if a is not None:
                counts[a] = counts.get(a, 0) + 1
        c = sorted(counts.values(), reverse=True)
        c += [0] * (workers - len(c))
        missing = n - sum(c)
        print("/".join(map(str, c)) + (f" ({missing} failed)" if missing else ""), flush=True)
        time.sleep(0.3)


def main(argv):
    if len(argv) in (5, 6) and argv[1] == "storm":
        do_storm(int(argv[2]), int(argv[3]), int(argv[4]), argv[5] if len(argv) == 6 else None)
    elif len(argv) == 4 and argv[1] == "jit":
        do_jit(int(argv[2]), argv[3])
    elif len(argv) == 6 and argv[1] == "land":
        do_land(int(argv[2]), int(argv[3]), int(argv[4]), int(argv[5]))
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
