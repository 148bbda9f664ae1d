#!/usr/bin/env bash
# Issue 48, item 4: the fountain seed's table on m0serve (docs/adr/0022 for fountain; the seed's
# ADR-0044). Arms: m0serve --accept-policy share and fountain, WORKERS (default 4) workers each,
# side by side in one run; each round runs both, the order rotating round by round (lib.sh's
# cpu_rounds), after WARM s of unmeasured load per arm and workload (the JIT).
#
#   prod-server/bench/seed-table.sh [rounds=3] [secs=5]
#
# Rows (workload, arm):
#   hello  closed loop, wrk -t2 -c64 keep-alive, GET / on the built-in app (the default respond)
#   small  closed loop, the same, a 4 KiB file through examples' StaticFilesApp (Response.file, sendfile)
#   1m     closed loop, the same, a 1 MiB file through StaticFilesApp
#   tls    closed loop, the same, hello over https (--tls-cert/--tls-key, a throwaway ECDSA P-256
#          certificate made here; wrk speaks TLS 1.2 ECDHE-ECDSA-AES128-GCM-SHA256, as in tls.sh)
#   open   open loop, a new connection per request (h2load --h1 rate mode, Connection: close, as
#          fountain.sh section 1) at 50 % of share's connection-close capacity (wrk -t2 -c32
#          -H 'Connection: close', measured in this run, rounded to whole thousands a second)
# Columns: req/s (median of the rounds; open: the rate achieved), CPU µs/req (the server's process
# tree, supervisor and workers, utime+stime from /proc, per request; median of the rounds), p99 ms
# (wrk's; open: of h2load's request times; median of the rounds), then on fountain's row the
# fountain ÷ share ratios of req/s and of CPU/req, each the median of the per-round ratios (a
# round's two runs sat side by side, so the machine's load falls on both alike), the goal and
# whether it is met. Goals (issue 48): closed rows, req/s within ±5 % of share's (0.95–1.05);
# open row, CPU/req ≤ 0.85× share's (the seed read up to −20 %). The "round" lines above the table
# are the runs it comes from; a closed run's "split" is where the 64 connections sat halfway.
#
# WORKERS (4), WARM (10 s), PAUSE (3 s between open-loop runs: TIME_WAIT), ROWS (default
# "hello small 1m tls open"). Needs wrk, h2load (Debian nghttp2-client), openssl, curl, java,
# javac and the jar (mvn -q -pl prod-server -am package -DskipTests; or M0SERVE_JAR=...).
set -euo pipefail
ROUNDS=${1:-3}
SECS=${2:-5}
WORKERS=${WORKERS:-4}; WARM=${WARM:-10}; PAUSE=${PAUSE:-3}
ROWS=${ROWS:-"hello small 1m tls open"}
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$BENCH_DIR/../.." && pwd)
JAR="${M0SERVE_JAR:-$BENCH_DIR/../target/m0serve.jar}"
[ -f "$JAR" ] || { echo "$JAR missing: mvn -q -pl prod-server -am package -DskipTests" >&2; exit 1; }
for t in wrk h2load openssl curl java javac; do command -v "$t" >/dev/null || { echo "$t missing" >&2; exit 1; }; done
WORK=$(mktemp -d /tmp/m0-seed-table.XXXXXX)
. "$BENCH_DIR/lib.sh"
trap 'bench_cleanup; rm -rf "$WORK"' EXIT
TICK=$(getconf CLK_TCK)
ARMS=(share fountain)
row() { [[ " $ROWS " == *" $1 "* ]]; }
declare -A REQ=() TCK=() PORT=() PID=()

# start_pair TAG ARGS... : share and fountain, WORKERS each, with ARGS; PORT[arm], PID[arm]
start_pair() {
  local tag=$1 a v; shift
  for a in "${ARMS[@]}"; do
    PORT[$a]=$(free_port)
    m0serve_start "${tag}_$a" "${PORT[$a]}" --workers "$WORKERS" --accept-policy "$a" "$@"
    v="BENCH_PID_${tag}_$a"; PID[$a]=${!v}
  done
}
stop_pair() { local a; for a in "${ARMS[@]}"; do bench_stop "${PID[$a]}"; done; }

# closed NAME PATH : WARM s of wrk -c64 per arm, then ROUNDS rounds into $WORK/NAME.tsv
# (BENCH_SCHEME and OPENSSL_CONF from the caller)
closed() {
  local name=$1 a sides=()
  for a in "${ARMS[@]}"; do
    wrk -t2 -c64 -d"${WARM}s" "${BENCH_SCHEME:-http}://127.0.0.1:${PORT[$a]}$2" >/dev/null
    sides+=("$a:${PORT[$a]}:${PID[$a]}")
  done
  echo "## $name: wrk -t2 -c64 -d${SECS}s ${BENCH_SCHEME:-http}://...$2, $WORKERS workers ($(loadavg))"
  : >"$WORK/$name.tsv"
  WRK_CONNS=64 SPLIT_WORKERS=$WORKERS BENCH_PATH=$2 ROUNDS_TSV="$WORK/$name.tsv" cpu_rounds "$ROUNDS" "$SECS" "${sides[@]}"
}

# same_body ARM PATH FILE : the arm serves FILE's bytes at PATH, or no row
same_body() {
  curl -sk "${BENCH_SCHEME:-http}://127.0.0.1:${PORT[$1]}$2" | cmp -s - "$3" \
    || { echo "$1 does not serve $3 at $2" >&2; exit 1; }
}

REV=$(git -C "$BENCH_DIR" rev-parse --short HEAD 2>/dev/null || echo unknown)
echo "# seed table; $(date -u +%FT%TZ); commit $REV; $(nproc) cores; $WORKERS workers; rounds $ROUNDS x ${SECS}s, warm ${WARM}s; load $(loadavg)"

if row hello || row open; then
  start_pair hello
  printf 'hello\n' >"$WORK/hello.txt"  # what the built-in app answers at /
  for a in "${ARMS[@]}"; do same_body "$a" / "$WORK/hello.txt"; done
  if row hello; then closed hello /; fi
  if row open; then
    for a in "${ARMS[@]}"; do
      wrk -t2 -c32 -d"${WARM}s" -H 'Connection: close' "http://127.0.0.1:${PORT[$a]}/" >/dev/null; sleep "$PAUSE"
    done
    wrk -t2 -c32 -d"${SECS}s" -H 'Connection: close' "http://127.0.0.1:${PORT[share]}/" >"$WORK/cap.txt"
    CAP=$(wrk_rps "$WORK/cap.txt" | awk '{printf "%.0f", $1}')
    [ "${CAP:-0}" -gt 0 ] || { echo "share's capacity run measured nothing: $(cat "$WORK/cap.txt")" >&2; exit 1; }
    rate=$(offered 50)
    echo "## open: a new connection per request, h2load at $rate/s (50 % of share's connection-close capacity $CAP req/s), $WORKERS workers ($(loadavg))"
    sleep "$PAUSE"
    : >"$WORK/open.tsv"
    for r in $(seq "$ROUNDS"); do
      for k in "${!ARMS[@]}"; do
        a=${ARMS[$(( (k + r - 1) % ${#ARMS[@]} ))]}
        read -r n t got e < <(openloop "${PORT[$a]}" "${PID[$a]}" "$rate" "$WORK/log-$a-$r")
        read -r p50 p99 < <(percentiles "$WORK/log-$a-$r")
        us=$(awk -v t="$t" -v q="$n" -v hz="$TICK" 'BEGIN{printf "%.2f", (q > 0 ? t/hz*1e6/q : 0)}')
        printf "round %s %-8s %10s req %8s us CPU/req, achieved %s/s, p50/p99 %s/%s ms, errors %s; load %s\n" \
          "$r" "$a" "$n" "$us" "$got" "$p50" "$p99" "$e" "$(loadavg)"
        printf "%s\t%s\t%s\t%s\t%s\t%s\t%s\n" "$a" "$r" "$n" "$(awk -v n="$n" -v g="$got" 'BEGIN{print (g > 0 ? n/g : 1)}')" \
          "$us" "$p50" "$p99" >>"$WORK/open.tsv"
        sleep "$PAUSE"
      done
    done
  fi
  stop_pair
fi

if row small || row 1m; then
  # StaticFilesApp, as a team would serve a directory (examples/), compiled against the jar
  mkdir -p "$WORK/classes" "$WORK/www"
  javac -d "$WORK/classes" -cp "$JAR" -sourcepath "$ROOT/examples/src/main/java" \
    "$ROOT/examples/src/main/java/m0/examples/files/StaticFilesApp.java"
  head -c 4096 /dev/urandom >"$WORK/www/4k.bin"; head -c 1048576 /dev/urandom >"$WORK/www/1m.bin"
  export M0_STATIC_ROOT="$WORK/www"
  start_pair files --app m0.examples.files.StaticFilesApp --app-classpath "$WORK/classes"
  for a in "${ARMS[@]}"; do same_body "$a" /4k.bin "$WORK/www/4k.bin"; same_body "$a" /1m.bin "$WORK/www/1m.bin"; done
  if row small; then closed small /4k.bin; fi
  if row 1m; then closed 1m /1m.bin; fi
  stop_pair
fi

if row tls; then
  # the certificate, made here (no private key is committed); PKCS#8, as --tls-key takes
  openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$WORK/key.pem" 2>/dev/null
  openssl req -x509 -key "$WORK/key.pem" -out "$WORK/cert.pem" -days 2 -subj /CN=localhost \
    -addext subjectAltName=DNS:localhost,IP:127.0.0.1 2>/dev/null
  # this wrk cannot speak TLS 1.3: pin its offer as tls.sh does (the server gets no such file)
  printf '%s\n' "openssl_conf = init" "[init]" "ssl_conf = ssl" "[ssl]" "system_default = tls" "[tls]" \
    "MinProtocol = TLSv1.2" "MaxProtocol = TLSv1.2" "CipherString = ECDHE-ECDSA-AES128-GCM-SHA256" \
    "Groups = X25519:P-256" >"$WORK/tls12.cnf"
  start_pair tls --tls-cert "$WORK/cert.pem" --tls-key "$WORK/key.pem"
  printf 'hello\n' >"$WORK/hello.txt"
  for a in "${ARMS[@]}"; do BENCH_SCHEME=https same_body "$a" / "$WORK/hello.txt"; done
  BENCH_SCHEME=https OPENSSL_CONF="$WORK/tls12.cnf" closed tls /
  stop_pair
fi

# The table: per workload and arm, medians over the rounds; on fountain's row the medians of the
# per-round fountain ÷ share ratios, the goal and whether it is met.
echo
echo "| workload | arm | req/s | CPU µs/req | p99 ms | fountain ÷ share req/s | fountain ÷ share CPU/req | goal | met |"
echo "|---|---|---|---|---|---|---|---|---|"
for w in hello small 1m tls open; do
  [ -s "$WORK/$w.tsv" ] || continue
  awk -F'\t' -v w="$w" -v workers="$WORKERS" '
    function med(s,   a, n, i, j, x) { n = split(s, a, " "); if (n == 0) return "-"
      for (i = 2; i <= n; i++) { x = a[i] + 0; for (j = i - 1; j >= 1 && a[j] + 0 > x; j--) a[j + 1] = a[j]; a[j + 1] = x }
      return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
    { rps[$1, $2] = $3 / $4; us[$1, $2] = $5; p99[$1, $2] = $7; rounds[$2] = 1 }
    END {
      for (arm = 1; arm <= 2; arm++) {
        a = (arm == 1) ? "share" : "fountain"; R = U = P = RR = RU = ""
        for (r in rounds) {
          R = R " " rps[a, r]; U = U " " us[a, r]; P = P " " p99[a, r]
          if (rps["share", r] > 0 && us["share", r] > 0) {
            RR = RR " " rps["fountain", r] / rps["share", r]; RU = RU " " us["fountain", r] / us["share", r] }
        }
        if (a == "share") { printf "| %s | %s | %.0f | %.2f | %.2f | | | | |\n", w, a, med(R), med(U), med(P); continue }
        rr = med(RR); ru = med(RU)
        if (w == "open") { goal = "CPU/req ≤ 0.85×"; ok = (ru != "-" && ru <= 0.85) }
        else { goal = "req/s 0.95–1.05×"; ok = (rr != "-" && rr >= 0.95 && rr <= 1.05) }
        printf "| %s | %s | %.0f | %.2f | %.2f | %.3f | %.3f | %s | %s |\n", w, a, med(R), med(U), med(P), rr, ru, goal, ok ? "met" : "not met"
      }
    }' "$WORK/$w.tsv"
done
echo
echo "# done; load $(loadavg)"
