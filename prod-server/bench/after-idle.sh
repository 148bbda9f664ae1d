#!/usr/bin/env bash
# What the first rounds after an idle spell cost (docs/adr/0047): m0serve warmed under a
# connection-close hello, left idle, then ROUNDS rounds of the same load, each round's server CPU
# per request (utime, stime of the whole tree) printed on its own. A first round far above the
# later ones is the JIT recompiling what the change of load shape deoptimized.
#   prod-server/bench/after-idle.sh [workers=4] [idle-seconds=10] [rounds=3]
# M0SERVE_JAR picks the build (run two in alternation to compare); POLICY=share|race|fountain;
# WARM=10 seconds of load first. M0SERVE_WORKER_JAVA_OPTS, when set, adds to the workers' defaults.
set -euo pipefail
W=${1:-4}; IDLE=${2:-10}; ROUNDS=${3:-3}
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
JAR="${M0SERVE_JAR:-$BENCH_DIR/../target/m0serve.jar}"
WORK=$(mktemp -d /tmp/m0-after-idle.XXXXXX)
. "$BENCH_DIR/lib.sh"
trap 'bench_cleanup; rm -rf "$WORK"' EXIT
TICK=$(getconf CLK_TCK)
PORT=$(free_port)
m0serve_start m0 "$PORT" --workers "$W" --blocking-threads 0 --accept-policy "${POLICY:-share}"
echo "# after idle: $W workers, ${POLICY:-share}, $JAR; warm ${WARM:-10}s, idle ${IDLE}s, wrk -t2 -c32 close x$ROUNDS x4s; $(date -u +%FT%TZ); load $(loadavg)"
wrk -t2 -c32 -d"${WARM:-10}s" -H 'Connection: close' "http://127.0.0.1:$PORT/" >/dev/null
sleep "$IDLE"
for r in $(seq "$ROUNDS"); do
  read -r u0 s0 < <(tree_split "$BENCH_PID_m0")
  n=$(wrk -t2 -c32 -d4s -H 'Connection: close' "http://127.0.0.1:$PORT/" | awk '/requests in/ {print $1}')
  read -r u1 s1 < <(tree_split "$BENCH_PID_m0")
  awk -v u=$((u1 - u0)) -v s=$((s1 - s0)) -v n="$n" -v hz="$TICK" -v r="$r" \
    'BEGIN{printf "round %d %7d req  user %6.2f  system %6.2f  all %6.2f us/req\n", r, n, u/hz*1e6/n, s/hz*1e6/n, (u+s)/hz*1e6/n}'
  sleep 3
done
