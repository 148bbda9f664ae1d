#!/usr/bin/env bash
# Does it matter which worker holds which client's connections (ADR 0051)? One server at 2
# workers under two clients at once, `wrk -t1 -c16` each (A, then B GAP s later). Per round: the
# server's CPU per request, and which client's connections each worker held halfway through
# (`ss` on both ends, joined on the client's port): "A16/B0 A0/B16" is paired, each worker talks to
# one client; "A8/B8 A8/B8" is crossed, every client talks to both workers.
#   prod-server/bench/crossing.sh [rounds=6] [seconds=4] [gap=0]
# ARM=m0 (default; POLICY=share|race|fountain, M0_FLAGS more of m0serve's flags), ARM=nginx (2
# workers, the reference in the same shape of load) or ARM=c-MODE (floor/hello.c, HELLO_CAP=16 so it
# splits 16/16 as share does, or HELLO_CPU=1 to steer by the incoming CPU instead; MODE as in
# kernel-floor.sh). SWITCHES=1 also counts, a request, the server's context switches (perf, over
# its processes' threads) and the machine's inter-processor interrupts (wrk's included: a wake-up
# sent to another CPU). Needs wrk, ss, the jar, gcc + liburing-dev; perf for SWITCHES.
set -euo pipefail
ROUNDS=${1:-6}; SECS=${2:-4}; GAP=${3:-0}
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
JAR="${M0SERVE_JAR:-$BENCH_DIR/../target/m0serve.jar}"
WORK=$(mktemp -d /tmp/m0-crossing.XXXXXX)
. "$BENCH_DIR/lib.sh"
trap 'bench_cleanup; rm -rf "$WORK"' EXIT
TICK=$(getconf CLK_TCK)
ARM=${ARM:-m0}; PORT=$(free_port)
case $ARM in
  m0)
    # shellcheck disable=SC2086
    m0serve_start m0 "$PORT" --workers 2 --blocking-threads 0 --accept-policy "${POLICY:-share}" ${M0_FLAGS:-}
    PID=$BENCH_PID_m0 ;;
  nginx) nginx_start nginx "$PORT" 2; PID=$BENCH_PID_nginx ;;
  c-*)
    gcc -O2 -o "$WORK/hello" "$BENCH_DIR/floor/hello.c" -luring
    # capped to 16 each, as share splits, unless HELLO_CPU steers (the two do not combine)
    if [ -n "${HELLO_CPU:-}" ] && [ "$HELLO_CPU" != 0 ]; then cap=""; else cap=16; HELLO_CPU=""; fi
    HELLO_CAP=$cap HELLO_CPU=${HELLO_CPU:-} "$WORK/hello" "$PORT" 2 "${ARM#c-}" >"$WORK/c.out" 2>"$WORK/c.err" &
    PID=$!; BENCH_PIDS+=("$PID")
    wait_children "$PID" 2 || { cat "$WORK/c.err" >&2; exit 1; }
    wait_http "$PORT" ;;
  *) echo "unknown ARM $ARM" >&2; exit 2 ;;
esac
# port -> owning pid, for the established connections on one end of PORT (ss column 4 or 3);
# one still in the accept queue has no owner yet and is left out
owners() {
  ss -tnpH state established "( $1 = :$PORT )" \
    | awk -v col="$2" 'match($0, /pid=[0-9]+/) { n = split($col, a, ":"); print a[n], substr($0, RSTART + 4, RLENGTH - 4) }' \
    | LC_ALL=C sort -k1,1
}
echo "# crossing: $ARM ${POLICY:-}${M0_FLAGS:+ $M0_FLAGS}${cap:+ HELLO_CAP=$cap}${HELLO_CPU:+ HELLO_CPU=$HELLO_CPU}, 2 workers, two wrk -t1 -c16 -d${SECS}s (B ${GAP}s after A) x$ROUNDS; $(date -u +%FT%TZ); load $(loadavg)"
wrk -t2 -c32 -d"${WARM:-10}s" "http://127.0.0.1:$PORT/" >/dev/null
for r in $(seq "$ROUNDS"); do
  t0=$(tree_ticks "$PID")
  sw=""
  if [ -n "${SWITCHES:-}" ]; then
    perf stat -x, -e context-switches -p "$(tree_pids "$PID")" -o "$WORK/switches" -- sleep "$((SECS + 1))" &
    sw=$!
    perf stat -a -x, -e ipi:ipi_send_cpu,irq_vectors:reschedule_entry -o "$WORK/ipis" -- sleep "$((SECS + 1))" &
    sw="$sw $!"
  fi
  wrk -t1 -c16 -d"${SECS}s" "http://127.0.0.1:$PORT/" >"$WORK/a.txt" & wa=$!
  sleep "$GAP"
  wrk -t1 -c16 -d"${SECS}s" "http://127.0.0.1:$PORT/" >"$WORK/b.txt" & wb=$!
  sleep "$(awk -v s="$SECS" 'BEGIN{print s / 2}')"
  owners sport 4 >"$WORK/server"; owners dport 3 >"$WORK/client"
  wait "$wa" "$wb"
  t=$(( $(tree_ticks "$PID") - t0 ))
  n=$(awk '/requests in/ {s += $1} END {print s + 0}' "$WORK/a.txt" "$WORK/b.txt")
  switches=""
  if [ -n "$sw" ]; then
    wait $sw
    switches=$(awk -F, -v n="$n" '$3 == "context-switches" {printf "  switches/req %.3f", $1 / n}' "$WORK/switches")
    switches+=$(awk -F, -v n="$n" '$3 == "ipi:ipi_send_cpu" {s = $1} $3 == "irq_vectors:reschedule_entry" {r = $1}
      END {printf "  IPIs sent/req %.3f, reschedule IPIs/req %.3f", s / n, r / n}' "$WORK/ipis")
  fi
  held=$(LC_ALL=C join "$WORK/server" "$WORK/client" | awk -v a="$wa" '{ c[$2, ($3 == a ? "A" : "B")]++; w[$2] }
    END { for (x in w) printf "A%d/B%d ", c[x, "A"], c[x, "B"] }')
  printf "round %d %9d req %7.2f us CPU/req  workers %s%s\n" "$r" "$n" \
    "$(awk -v t="$t" -v q="$n" -v hz="$TICK" 'BEGIN{print t/hz*1e6/q}')" "$held" "$switches"
done
