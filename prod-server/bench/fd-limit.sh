#!/usr/bin/env bash
# At the descriptor limit (issue 9): m0serve and nginx, 2 workers each, both started under
# `prlimit --nofile=LIMIT:LIMIT`, while a hostile client holds HOLD idle connections (and opens a
# new one whenever the server closes one). Per server, two windows of SECS seconds:
#   held   : worker CPU (mean per worker, utime+stime from /proc) and log bytes/s
# m0serve runs twice: as shipped (--max-connections derived from the limit) and with the cap
# out of the way (m0-nocap: accept4 reaches EMFILE, as nginx's does).
#   + wrk  : the same with `wrk -t2 -c64` keep-alive on / running beside; wrk req/s and errors
#
#   prod-server/bench/fd-limit.sh [seconds=10] [hold=1000] [limit=256]
#
# Needs: wrk, nginx (apt-get install -y nginx-light wrk), prlimit (util-linux), python3, the jar
# (mvn -q -pl prod-server -am package -DskipTests). Both servers keep their default timeouts.
set -euo pipefail
SECS=${1:-10}
HOLD=${2:-1000}
LIMIT=${3:-256}
HERE=$(cd "$(dirname "$0")/.." && pwd)
BENCH_DIR="$HERE/bench"
JAR="${M0SERVE_JAR:-$HERE/target/m0serve.jar}"
command -v wrk >/dev/null || { echo "wrk missing: apt-get install -y wrk" >&2; exit 1; }
command -v prlimit >/dev/null || { echo "prlimit missing (util-linux)" >&2; exit 1; }
NGINX_BIN=$(command -v nginx || echo /usr/sbin/nginx)
[ -x "$NGINX_BIN" ] || { echo "nginx missing: apt-get install -y nginx-light" >&2; exit 1; }
[ -f "$JAR" ] || { echo "$JAR missing: mvn -q -pl prod-server -am package -DskipTests" >&2; exit 1; }
[ "$(ulimit -n)" -gt $((HOLD + 100)) ] || { echo "this shell's own fd limit is below $HOLD + 100" >&2; exit 1; }
TICK=$(getconf CLK_TCK)
WORK=$(mktemp -d /tmp/m0-fdlimit.XXXXXX)
. "$BENCH_DIR/lib.sh"
HOLDER=""
cleanup() {
  [ -n "$HOLDER" ] && kill -TERM "$HOLDER" 2>/dev/null || true
  bench_cleanup
  rm -rf "$WORK"
}
trap cleanup EXIT

# Both servers under the same limit, set before exec so that every worker inherits it.
M0_JAVA=(prlimit "--nofile=$LIMIT:$LIMIT" java -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Xmx64m -XX:-UsePerfData)
printf '#!/bin/sh\nexec prlimit --nofile=%s:%s %s "$@"\n' "$LIMIT" "$LIMIT" "$NGINX_BIN" >"$WORK/nginx-limited"
chmod +x "$WORK/nginx-limited"
NGINX="$WORK/nginx-limited"

# The hostile client: HOLD connections that send nothing; a closed one is opened again at once.
cat >"$WORK/hold.py" <<'PY'
import selectors, socket, sys, time
port, n, secs = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
sel = selectors.DefaultSelector()
def open_one():
    s = socket.socket(); s.setblocking(False)
    try: s.connect(("127.0.0.1", port))
    except BlockingIOError: pass
    sel.register(s, selectors.EVENT_READ)
for _ in range(n): open_one()
reopened = 0; end = time.time() + secs
while time.time() < end:
    for key, _ in sel.select(timeout=0.5):
        s = key.fileobj
        try: data = s.recv(4096)
        except OSError: data = b""
        if not data:
            sel.unregister(s); s.close(); open_one(); reopened += 1
print(reopened)
PY

log_bytes() { cat "$@" 2>/dev/null | wc -c; }
workers_ticks() { # sum over the server's worker processes (children of its master/supervisor)
  local total=0 p
  for p in $(pgrep -P "$1" || true); do
    [ -r "/proc/$p/stat" ] || continue
    total=$(( total + $(sed 's/.*) //' "/proc/$p/stat" | awk '{print $12 + $13}') ))
  done
  echo "$total"
}

# measure NAME PORT MASTER_PID LOGFILES... -> one table row per window
measure() {
  local name=$1 port=$2 pid=$3; shift 3
  local logs=("$@") t0 t1 l0 l1 nw reopened wout
  nw=$(pgrep -P "$pid" | wc -l)
  python3 "$WORK/hold.py" "$port" "$HOLD" $((2 * SECS + 10)) >"$WORK/$name.hold" &
  HOLDER=$!
  sleep 5 # the holder's connects land and the workers reach their limit
  t0=$(workers_ticks "$pid"); l0=$(log_bytes "${logs[@]}")
  sleep "$SECS"
  t1=$(workers_ticks "$pid"); l1=$(log_bytes "${logs[@]}")
  row "$name" held "$nw" $((t1 - t0)) $((l1 - l0)) - - -
  t0=$(workers_ticks "$pid"); l0=$(log_bytes "${logs[@]}")
  wout="$WORK/$name.wrk"
  wrk -t2 -c64 -d"${SECS}s" --timeout 2s "http://127.0.0.1:$port/" >"$wout" 2>&1 || true
  t1=$(workers_ticks "$pid"); l1=$(log_bytes "${logs[@]}")
  row "$name" "+wrk -c64" "$nw" $((t1 - t0)) $((l1 - l0)) "$(wrk_rps "$wout")" "$(wrk_errors "$wout")"
  grep -E "requests in|Socket errors|Non-2xx" "$wout" | sed 's/^ */  wrk: /' || true
  wait "$HOLDER" || true
  HOLDER=""
}

row() { # name window workers ticks logbytes rps errors
  printf "%-8s %-10s %8s %14s %10s %10s %10s\n" "$1" "$2" "$3" \
    "$(awk -v t="$4" -v hz="$TICK" -v s="$SECS" -v n="$3" 'BEGIN{printf "%.1f", 100*t/hz/s/n}')" \
    "$(awk -v b="$5" -v s="$SECS" 'BEGIN{printf "%.0f", b/s}')" "${6:-}" "${7:-}"
}

echo "fd limit $LIMIT, $HOLD idle connections held (re-opened when closed), windows of ${SECS}s; load $(loadavg)"
printf "%-8s %-10s %8s %14s %10s %10s %10s\n" server window workers "cpu%/worker" "log B/s" "wrk req/s" "wrk errors"

# m0serve as shipped (its cap derived from the limit), then with the cap out of the way, so that
# accept4 itself reaches EMFILE as nginx's does (worker_connections 4096 is above the limit).
M0PORT=$(free_port)
m0serve_start m0 "$M0PORT" --workers 2
measure m0serve "$M0PORT" "$BENCH_PID_m0" "$WORK/m0.err" "$WORK/m0.out"
grep -m2 -E "EMFILE|max-connections" "$WORK/m0.err" | sed 's/^/  m0serve log: /' || true

M1PORT=$(free_port)
m0serve_start m1 "$M1PORT" --workers 2 --max-connections 100000
measure m0-nocap "$M1PORT" "$BENCH_PID_m1" "$WORK/m1.err" "$WORK/m1.out"
grep -m2 -E "EMFILE|max-connections" "$WORK/m1.err" | sed 's/^/  m0-nocap log: /' || true

NGPORT=$(free_port)
nginx_start ng "$NGPORT" 2
measure nginx "$NGPORT" "$BENCH_PID_ng" "$WORK/ng/error.log"
grep -m2 -E "Too many|not enough" "$WORK/ng/error.log" | sed 's/^/  nginx log: /' || true
echo "load after: $(loadavg)"
