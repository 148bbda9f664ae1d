#!/usr/bin/env python3
"""Hostile clients for bench/hostile.sh.

  hostile.py flood PORT SECONDS        pipelined GET / in 1 MiB writes, never reading; prints MiB sent
  hostile.py trickle PORT N SECONDS    N connections each sending one LF every 4 s; prints, per
                                       connection closed by the server, the seconds from its first
                                       byte to the close, then 'open K' for those still open
"""
import selectors
import socket
import sys
import time


def flood(port, secs):
    s = socket.create_connection(("127.0.0.1", port))
    s.setblocking(False)
    req = b"GET / HTTP/1.1\r\nHost: b\r\n\r\n"
    mib = req * ((1 << 20) // len(req))
    sent, view, end = 0, memoryview(mib), time.time() + secs
    while time.time() < end:
        try:
            n = s.send(view)
            sent += n
            view = view[n:] if n < len(view) else memoryview(mib)
        except BlockingIOError:
            time.sleep(0.05)  # the server stopped reading: our buffers are full
        except OSError as e:
            print(f"flood: {e}", file=sys.stderr)
            break
    s.close()
    print(f"{sent / (1 << 20):.1f}")


def trickle(port, n, secs):
    sel = selectors.DefaultSelector()
    socks = []
    for _ in range(n):
        s = socket.create_connection(("127.0.0.1", port))
        s.setblocking(False)
        socks.append(s)
        sel.register(s, selectors.EVENT_READ)
    start = {s: time.time() for s in socks}
    for s in socks:
        s.send(b"\n")
    closed = {}
    end, next_lf = time.time() + secs, time.time() + 4
    while time.time() < end and len(closed) < n:
        for key, _ in sel.select(timeout=0.2):
            s = key.fileobj
            try:
                data = s.recv(65536)
            except OSError:
                data = b""
            if not data:
                closed[s] = time.time() - start[s]
                sel.unregister(s)
        if time.time() >= next_lf:
            next_lf += 4
            for s in socks:
                if s not in closed:
                    try:
                        s.send(b"\n")
                    except OSError:
                        pass
    for t in sorted(closed.values()):
        print(f"{t:.2f}")
    print(f"open {n - len(closed)}")
    for s in socks:
        s.close()


if __name__ == "__main__":
    mode, port = sys.argv[1], int(sys.argv[2])
    if mode == "flood":
        flood(port, float(sys.argv[3]))
    else:
        trickle(port, int(sys.argv[3]), float(sys.argv[4]))
