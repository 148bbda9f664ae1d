#!/usr/bin/env bash
# Issue 26: one HttpHandler app (Bench.java beside this script, compiled here with javac) served,
# side by side in one run, by
#   jdk        the JDK's built-in server, default executor   java -cp app.jar Bench 127.0.0.1:PORT
#   jdk_fixed  the JDK's built-in server, newFixedThreadPool(4) as executor (... Bench ... fixed)
#   jdk_nodelay the JDK's built-in server with -Dsun.net.httpserver.nodelay=true (Nagle off, as m0
#              and Jetty run): ARMS="jdk_nodelay jetty m0_w1 m0_w2" REF=jdk_nodelay LOADS=ka picks it
#   jetty      Jetty's provider (org.eclipse.jetty:jetty-http-spi 12.1.14,
#              -Dcom.sun.net.httpserver.HttpServerProvider=org.eclipse.jetty.http.spi.JettyHttpServerProvider)
#   m0_w1      m0serve --workers 1 --blocking-threads 2 --main Bench
#   m0_w1_old  the same on OLD_JAR (another build of m0serve.jar, for a before/after in one run)
#   m0_w2      m0serve --workers 2 --main Bench
# (the JDK and Jetty arms are plain `java`, the JVM's default options; m0serve's workers get its own).
# Three loads, each: WARM=15 s of unmeasured load per arm (the JIT), then ROUNDS rounds of SECS s
# per arm, the order rotated round by round; server CPU per request from /proc ticks (the whole
# process tree), req/s, and wrk's socket errors and non-2xx responses per arm:
#   ka     GET /hello, wrk -t2 -c32 (keep-alive)
#   close  GET /hello, wrk -t2 -c32 -H 'Connection: close', PAUSE=3 s before each run (TIME_WAIT)
#   mib    GET /mib (1 MiB, chunked), wrk -t2 -c8 (keep-alive)
# Waits first until the 1-minute load average is below 1.5 (polled every 20 s, 10 min at most).
# Run from the worktree root after `mvn -q -o -pl prod-server -am package -DskipTests`:
#   prod-server/bench/jdkhttp/jdkhttp-compare.sh [rounds=4] [seconds=5]
# Env: M0SERVE_JAR (default prod-server/target/m0serve.jar), OLD_JAR (the m0_w1_old arm's), WAIT_LOAD (the load
# to wait for, default 1.5), JETTY_LIB (a directory of the Jetty
# jars; default: fetched once into /tmp/m0-jetty-spi-12.1.14 with mvn), LOADS="ka close mib", WARM, PAUSE.
# Takes ~ 3 x 5 x (WARM + ROUNDS x SECS) s plus the pauses: ~13 min at 4 x 5 s.
set -euo pipefail
ROUNDS=${1:-4}; SECS=${2:-5}
WARM=${WARM:-15}; PAUSE=${PAUSE:-3}
BENCH_DIR=$(cd "$(dirname "$0")/.." && pwd)
JAR=${M0SERVE_JAR:-$BENCH_DIR/../target/m0serve.jar}
[ -f "$JAR" ] || { echo "$JAR missing: mvn -q -o -pl prod-server -am package -DskipTests" >&2; exit 1; }
WORK=$(mktemp -d /tmp/m0-jdkhttp.XXXXXX)
. "$BENCH_DIR/lib.sh"
. "$BENCH_DIR/jdkhttp/common.sh"
ALL_PIDS=()
trap 'bench_cleanup; check_gone ${ALL_PIDS[@]+"${ALL_PIDS[@]}"}; rm -rf "$WORK"' EXIT
trap 'exit 143' TERM; trap 'exit 130' INT
TICK=$(getconf CLK_TCK)
build_app
jetty_lib

ARMS=${ARMS:-"jdk jdk_fixed jetty m0_w1 m0_w2"}
declare -A PORT PID
for a in $ARMS; do PORT[$a]=$(free_port); done
# start_arm ARM: its server on PORT[ARM]; a fresh port and another try when it fails to start
# (another run on this machine may take the port between free_port and the bind)
start_arm() {
  local a=$1 try
  for try in 1 2 3; do
    case $a in
      jdk) app_start jdk "${PORT[jdk]}" -cp "$APP_JAR" Bench "127.0.0.1:${PORT[jdk]}" ;;
      jdk_nodelay) app_start jdk_nodelay "${PORT[jdk_nodelay]}" -Dsun.net.httpserver.nodelay=true -cp "$APP_JAR" Bench \
        "127.0.0.1:${PORT[jdk_nodelay]}" ;;
      jdk_fixed) app_start jdk_fixed "${PORT[jdk_fixed]}" -cp "$APP_JAR" Bench "127.0.0.1:${PORT[jdk_fixed]}" fixed ;;
      jetty) app_start jetty "${PORT[jetty]}" -Dcom.sun.net.httpserver.HttpServerProvider=$JETTY_PROVIDER \
        -cp "$APP_JAR:$JETTY_CP" Bench "127.0.0.1:${PORT[jetty]}" ;;
      m0_w1) m0_start m0_w1 "${PORT[m0_w1]}" --workers 1 --blocking-threads 2 ;;
      m0_w2) m0_start m0_w2 "${PORT[m0_w2]}" --workers 2 ;;
      m0_w1_old) JAR=${OLD_JAR:?m0_w1_old needs OLD_JAR} m0_start m0_w1_old "${PORT[m0_w1_old]}" --workers 1 --blocking-threads 2 ;;
    esac && return 0
    local v=BENCH_PID_$a; bench_stop "${!v}"
    PORT[$a]=$(free_port)
    echo "# $a did not start (try $try); again on port ${PORT[$a]}" >&2
  done
  return 1
}
for a in $ARMS; do start_arm "$a"; done
grep -q 'JettyHttpServer' "$WORK/jetty.out" || { echo "jetty arm is not Jetty's server:" >&2; cat "$WORK/jetty.out" >&2; exit 1; }
for a in $ARMS; do
  v=BENCH_PID_$a; PID[$a]=${!v}
  ALL_PIDS+=("${PID[$a]}" $(pgrep -P "${PID[$a]}" || true))
  code=$(curl -s -m 5 -o /dev/null -w '%{http_code}' "http://127.0.0.1:${PORT[$a]}/hello")
  [ "$code" = 200 ] || { echo "$a: /hello answered $code" >&2; exit 1; }
  printf '# %-9s port %s pid %s: %s\n' "$a" "${PORT[$a]}" "${PID[$a]}" "$(grep -h 'Bench: serving' "$WORK/$a.out" | head -1)"
done
echo "# $(java -version 2>&1 | head -1); $(nproc) cores; $(date -u +%FT%TZ)"
wait_load "${WAIT_LOAD:-1.5}"

# run_load LOAD PATH CONNS PAUSE WRK_ARGS... : warm-up, rotated rounds, table
run_load() {
  local load=$1 path=$2 conns=$3 pause=$4 r k a n b t out reqs se nx
  shift 4
  local -a wargs=("$@") arms=($ARMS)
  local -A REQ=() TCK=() SE=() NX=()
  echo
  echo "## $load: GET $path, wrk -t2 -c$conns ${wargs[*]} -d${SECS}s x $ROUNDS rounds (warm-up ${WARM}s per arm)"
  echo "# load before warm-up: $(loadavg)"
  for a in "${arms[@]}"; do
    if [ "$pause" != 0 ]; then sleep "$pause"; fi
    timeout $((WARM + 30)) wrk -t2 -c"$conns" ${wargs[@]+"${wargs[@]}"} -d"${WARM}s" "http://127.0.0.1:${PORT[$a]}$path" >"$WORK/warm-$load-$a.txt" || true
    sleep 2
  done
  echo "# load before rounds: $(loadavg)"
  n=${#arms[@]}
  for r in $(seq "$ROUNDS"); do
    for k in $(seq 0 $((n - 1))); do
      a=${arms[$(( (k + r - 1) % n ))]}
      if [ "$pause" != 0 ]; then sleep "$pause"; fi
      out=$WORK/$load-$a-$r.txt
      b=$(tree_ticks "${PID[$a]}")
      timeout $((SECS + 30)) wrk -t2 -c"$conns" ${wargs[@]+"${wargs[@]}"} -d"${SECS}s" "http://127.0.0.1:${PORT[$a]}$path" >"$out" || true
      t=$(( $(tree_ticks "${PID[$a]}") - b ))
      reqs=$(awk '/requests in/ {print $1}' "$out"); reqs=${reqs:-0}
      se=$(awk '/Socket errors:/ { gsub(/,/, ""); n += $4 + $6 + $8 + $10 } END { print n + 0 }' "$out")
      nx=$(awk '/Non-2xx/ { n += $NF } END { print n + 0 }' "$out")
      REQ[$a]=$(( ${REQ[$a]:-0} + reqs )); TCK[$a]=$(( ${TCK[$a]:-0} + t ))
      SE[$a]=$(( ${SE[$a]:-0} + se )); NX[$a]=$(( ${NX[$a]:-0} + nx ))
      printf "round %s %-9s %9s req %8s us CPU/req  errors %s%s\n" "$r" "$a" "$reqs" \
        "$(awk -v t="$t" -v q="$reqs" -v hz="$TICK" 'BEGIN{if (q > 0) printf "%.2f", t/hz*1e6/q; else print "-"}')" \
        "$se" "$( [ "$nx" = 0 ] || echo " non-2xx $nx")"
    done
  done
  echo "# load after rounds: $(loadavg)"
  local uj ue
  local ref=${REF:-jdk}
  uj=$(awk -v t="${TCK[$ref]:-0}" -v q="${REQ[$ref]:-0}" -v hz="$TICK" 'BEGIN{print (q > 0 ? t/hz*1e6/q : 0)}')
  ue=$(awk -v t="${TCK[jetty]}" -v q="${REQ[jetty]:-0}" -v hz="$TICK" 'BEGIN{print (q > 0 ? t/hz*1e6/q : 0)}')
  echo "| arm | µs CPU/req | ÷ $ref | ÷ jetty | req/s | socket errors | non-2xx |"
  echo "|---|---|---|---|---|---|---|"
  for a in "${arms[@]}"; do
    awk -v a="$a" -v t="${TCK[$a]}" -v q="${REQ[$a]:-0}" -v hz="$TICK" -v j="$uj" -v e="$ue" \
        -v s="$SECS" -v r="$ROUNDS" -v se="${SE[$a]}" -v nx="${NX[$a]}" 'BEGIN{
      if (q == 0) { printf "| %s | no requests | | | 0 | %s | %s |\n", a, se, nx; exit }
      u = t/hz*1e6/q
      printf "| %s | %.2f | %s | %s | %.0f | %s | %s |\n", a, u, (j > 0 ? sprintf("%.3f", u/j) : "-"),
        (e > 0 ? sprintf("%.3f", u/e) : "-"), q/s/r, se, nx }'
  done
}

for load in ${LOADS:-ka close mib}; do
  case $load in
    ka) run_load ka /hello 32 0 ;;
    close) run_load close /hello 32 "$PAUSE" -H 'Connection: close' ;;
    mib) run_load mib /mib 8 0 ;;
    *) echo "unknown load $load (ka close mib)" >&2; exit 2 ;;
  esac
done
echo
echo "# load at the end: $(loadavg)"
for a in $ARMS; do
  if grep -qiE 'exception|error' "$WORK/$a.err" 2>/dev/null; then
    echo "# $a stderr: $(grep -ciE 'exception|error' "$WORK/$a.err") lines with exception/error; first: $(grep -iE -m1 'exception|error' "$WORK/$a.err")"
  fi
done
