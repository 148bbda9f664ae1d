#!/bin/bash
# ADR 0071's figures: CPU per response of one worker (utime+stime over wrk's count), arms
# interleaved in one run, 1 worker, wrk -t1 -c4 -d8s after a 3 s warm-up.
#   BEFORE=/path/to/an/older/prod-server/target/m0serve bench/large-bodies/run.sh ROUNDS app|main|file PATH
# app: MemApp (/1m, /64k); main: MainApp under --main (/1m, /fis); file: FileApp (/1m.bin, /4k.bin)
# against nginx (sendfile on), and BEFORE if set. Classes are compiled into $WORK (default /tmp/m0-large-bodies).
# app and main also run a jetty arm: MainApp (the same 1 MiB, same bytes, at /1m) under plain `java` on
# Jetty's HttpServer provider (jetty-http-spi 12.1.14, JETTY_LIB or the jdkhttp bench's jars), the whole
# JVM's CPU; for m0serve the worker's (the supervisor only waits). /1m only; NOJETTY=1 leaves it out.
# Each round also prints wrk's CPU, the pair's (worker + wrk) and the machine's (every CPU's busy
# time, meaningful only on an otherwise quiet machine); the end prints after ÷ the reference arm.
set -e
rounds=${1:-3}; kind=${2:-app}; path=${3:-/1m}
here=$(cd "$(dirname "$0")" && pwd); root=$(cd "$here/../.." && pwd)
work=${WORK:-/tmp/m0-large-bodies}; mkdir -p "$work/classes" "$work/www"
[ -f "$work/www/1m.bin" ] || head -c 1048576 /dev/urandom > "$work/www/1m.bin"
[ -f "$work/www/4k.bin" ] || head -c 4096 /dev/urandom > "$work/www/4k.bin"
javac -d "$work/classes" -cp "$root/app-api/target/classes" "$here"/*.java
after=$root/prod-server/target/m0serve
hz=$(getconf CLK_TCK)
jetty=" jetty"; [ -z "${NOJETTY:-}" ] || jetty=""
case $kind in
  app) args="--app MemApp"; arms="${BEFORE:+before }after$jetty";;
  main) args="--blocking-threads 1 --main MainApp"; arms="${BEFORE:+before }after$jetty";;
  file) args="--app FileApp"; arms="${BEFORE:+before }after nginx";;
esac
# a failed round says why and the script stops, leaving no server behind
sup=; jp=; ng=
trap 'for p in $sup $jp $ng; do kill -TERM "$p" 2>/dev/null || true; done' EXIT
# Every CPU's busy ticks (user nice system irq softirq, /proc/stat): with the machine otherwise
# quiet, the whole cost of a response on loopback, ksoftirqd's share included, whoever was charged.
machine_ticks() { awk '/^cpu /{print $2+$3+$4+$7+$8; exit}' /proc/stat; }
measure() { # arm pid port
  [ -r "/proc/$2/stat" ] || { echo "round $r $1: no process to measure (pid '$2')" >&2; exit 1; }
  wrk -t1 -c4 -d3s "http://127.0.0.1:$3$path" >/dev/null 2>&1 || true
  t0=$(awk '{print $14+$15}' "/proc/$2/stat"); mt0=$(machine_ticks)
  # wrk's own CPU too: on loopback the receive path's softirq is charged to whichever side is on
  # the CPU, so the worker's figure alone moves with timing; worker + client is the pair's cost.
  local TIMEFORMAT='%U %S'
  { time wrk -t1 -c4 -d8s "http://127.0.0.1:$3$path" >"$work/wrk.out" 2>&1; } 2>"$work/wrk.time" || true
  t1=$(awk '{print $14+$15}' "/proc/$2/stat"); mt1=$(machine_ticks)
  res=$(cat "$work/wrk.out")
  n=$(echo "$res" | grep -o "[0-9]* requests in" | grep -o "^[0-9]*") || { echo "round $r $1: wrk counted nothing: $res" >&2; exit 1; }
  awk -v a="$1" -v r="$r" -v n="$n" -v t=$((t1-t0)) -v hz="$hz" -v p="$path" -v c="$(awk '{print $1+$2}' "$work/wrk.time")" \
    -v m=$((mt1-mt0)) 'BEGIN{printf "round %d %-6s %s responses %7d  worker CPU %6.2f s  %6.1f us/response  client %6.1f us/response  pair %6.1f us/response  machine %6.1f us/response\n", r, a, p, n, t/hz, t/hz*1e6/n, c*1e6/n, (t/hz+c)*1e6/n, m/hz*1e6/n}' | tee -a "$work/rounds.txt"
}
: >"$work/rounds.txt"
if [[ $arms == *jetty* ]]; then
  JETTY_LIB=${JETTY_LIB:-/tmp/m0-jetty-spi-12.1.14}; . "$root/prod-server/bench/jdkhttp/common.sh"; jetty_lib
fi
for r in $(seq 1 "$rounds"); do
  for arm in $arms; do
    if [ "$arm" = nginx ]; then
      sed "s|@WWW@|$work/www|; s|@WORK@|$work|g" "$here/nginx.conf" > "$work/nginx.conf"
      nginx -c "$work/nginx.conf" -p "$work" & ng=$!; sleep 1
      measure nginx "$(cat /proc/$ng/task/*/children | tr ' ' '\n' | grep -v '^$' | head -1)" 18471
      kill -QUIT $ng; wait $ng 2>/dev/null || true; ng=; continue
    fi
    if [ "$arm" = jetty ]; then
      java -Dcom.sun.net.httpserver.HttpServerProvider=$JETTY_PROVIDER -cp "$work/classes:$JETTY_CP" \
        MainApp 18472 >"$work/jetty.out" 2>&1 & jp=$!
      for i in $(seq 1 300); do grep -q "MainApp: serving" "$work/jetty.out" && break; sleep 0.1; done
      grep -q "JettyHttpServer" "$work/jetty.out" || { echo "jetty arm is not Jetty's server:" >&2; cat "$work/jetty.out" >&2; kill $jp; exit 1; }
      measure jetty $jp 18472
      kill -TERM $jp; wait $jp 2>/dev/null || true; jp=; continue
    fi
    bin=$after; [ "$arm" = before ] && bin=${BEFORE:?set BEFORE to the older m0serve}
    out=$work/$arm.out
    # shellcheck disable=SC2086
    M0_TEST_WWW=$work/www "$bin" --bind 127.0.0.1:0 --workers 1 $args --app-classpath "$work/classes" >"$out" 2>&1 & sup=$!
    for i in $(seq 1 300); do grep -q "ready:" "$out" && break; sleep 0.1; done
    grep -q "ready:" "$out" || { echo "round $r $arm: not ready in 30 s:" >&2; cat "$out" >&2; exit 1; }
    port=$(grep -o "listening on http://127.0.0.1:[0-9]*" "$out" | grep -o "[0-9]*$")
    measure "$arm" "$(cat /proc/$sup/task/*/children | tr ' ' '\n' | grep -v '^$' | head -1)" "$port"
    kill -TERM $sup; wait $sup 2>/dev/null || true; sup=
  done
done
# after ÷ the reference arm (nginx for file, jetty otherwise), round by round, and the median of
# the per-round ratios: the figure to quote on a shared machine
ref=nginx; [ "$kind" = file ] || ref=jetty
[[ " $arms " == *" $ref "* ]] || exit 0
awk -v ref="$ref" '
  { k = $3 "," $2; w[k] = $11; p[k] = $17; m[k] = $20 }
  function med(a, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
    return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
  END { n = 0; for (r = 1; ("after," r) in w && (ref "," r) in w; r++) { n++
      rw[n] = w["after," r] / w[ref "," r]; rp[n] = p["after," r] / p[ref "," r]; rm[n] = m["after," r] / m[ref "," r]
      lw = lw sprintf(" %.2f", rw[n]); lp = lp sprintf(" %.2f", rp[n]); lm = lm sprintf(" %.2f", rm[n]) }
    if (n == 0) exit
    printf "after / %s, worker:  median %.2f (rounds:%s)\n", ref, med(rw, n), lw
    printf "after / %s, pair:    median %.2f (rounds:%s)\n", ref, med(rp, n), lp
    printf "after / %s, machine: median %.2f (rounds:%s)\n", ref, med(rm, n), lm }' "$work/rounds.txt"
