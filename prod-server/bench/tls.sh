#!/usr/bin/env bash
# TLS, issue 47's benchmarks: m0serve under each accept policy beside nginx with `ssl` on, the
# same certificate (made here with openssl), protocol and suite, side by side in one run; arms
# rotate round by round, so the machine's own load falls on every arm alike.
#
#   prod-server/bench/tls.sh [rounds=3] [seconds=4]
#
# SECTIONS (default all, in this order, per worker count):
#   storm  STORM (256) new connections at once (tls_storm.py, a barrier), each asking one hello
#          with Connection: close: full handshakes, then as many again each offering the session
#          its slot got (a TLS 1.3 ticket). p50/p99 time to the answer (pooled over the rounds),
#          server CPU per handshake (its processes' threads' /proc schedstat, in ns: 10 ms stat
#          ticks cannot resolve nginx's), the resumed share
#          (the client's session_reused). At STORM_WORKERS (default "2 4").
#   land   LAND (64) keep-alive connections opened and handshaken at once, then, all still open,
#          each asks /pid: answers per worker, largest first; exact is 32/32 at 2 workers.
#          ROUNDS rounds per arm at LAND_WORKERS (default "2 4").
#   ka     keep-alive hello over TLS (wrk -t2 -c32 https, lib.sh's rounds_vs_nginx) at
#          KA_WORKERS (default "1 2"): CPU per request and its ratio to nginx's.
#   mib    1 MiB over TLS: a 1 MiB file, nginx's `root` against m0serve's StaticFilesApp
#          (examples/, compiled here; a file answer), wrk -t2 -c32, at MIB_WORKERS (default 1).
# ARMS (default "nginx share race fountain"): share, race and fountain are m0serve's
# --accept-policy; MIB_ARMS (default "nginx share"). WARM (default 5) s of unmeasured wrk per arm
# before ka and mib rounds, and WARM_STORMS (default 2) unmeasured storms per arm before the storm
# rows (the JIT). KEY=ec (default, ECDSA P-256) or rsa (RSA-2048).
#
# Protocol and suite are pinned on the client side, so both servers choose among one offer:
# OPENSSL_CONF names a client configuration for the storm and landing clients (TLS 1.3 only,
# TLS_AES_128_GCM_SHA256, X25519) and for wrk (this wrk cannot speak TLS 1.3: TLS 1.2 only,
# ECDHE-ECDSA-AES128-GCM-SHA256 (ECDHE-RSA- with KEY=rsa), X25519 then P-256, which a P-256
# certificate needs under TLS 1.2). The servers get neither file; each row prints what was
# negotiated. nginx: the same number of workers, ssl_session_tickets on (its workers share the
# ticket keys their master made); m0serve's workers share the ticket keys its supervisor made
# (docs/adr/0073), so a resumed session resumes on any worker.
# Needs wrk, nginx, python3, openssl, java and the jar (mvn -q -pl prod-server -am package -DskipTests).
set -euo pipefail
ROUNDS=${1:-3}
SECS=${2:-4}
SECTIONS=${SECTIONS:-"storm land ka mib"}
ARMS=${ARMS:-"nginx share race fountain"}
MIB_ARMS=${MIB_ARMS:-"nginx share"}
STORM_WORKERS=${STORM_WORKERS:-"2 4"}; LAND_WORKERS=${LAND_WORKERS:-"2 4"}
KA_WORKERS=${KA_WORKERS:-"1 2"}; MIB_WORKERS=${MIB_WORKERS:-1}
STORM=${STORM:-256}; LAND=${LAND:-64}; KEY=${KEY:-ec}
export WARM=${WARM:-5}; WARM_STORMS=${WARM_STORMS:-2}
BENCH_DIR=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$BENCH_DIR/../.." && pwd)
JAR="${M0SERVE_JAR:-$BENCH_DIR/../target/m0serve.jar}"
[ -f "$JAR" ] || { echo "$JAR missing: mvn -q -pl prod-server -am package -DskipTests" >&2; exit 1; }
for t in wrk nginx python3 openssl java javac ss curl; do command -v "$t" >/dev/null || { echo "$t missing" >&2; exit 1; }; done
WORK=$(mktemp -d /tmp/m0-tls.XXXXXX)
. "$BENCH_DIR/lib.sh"
trap 'bench_cleanup; rm -rf "$WORK"' EXIT
TICK=$(getconf CLK_TCK)
section() { [[ " $SECTIONS " == *" $1 "* ]]; }
in_list() { [[ " $2 " == *" $1 "* ]]; }

# The certificate, made here: no private key is committed. PKCS#8 (genpkey's), as --tls-key takes.
case $KEY in
  ec) openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$WORK/key.pem" 2>/dev/null
      SUITE12=ECDHE-ECDSA-AES128-GCM-SHA256 ;;
  rsa) openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out "$WORK/key.pem" 2>/dev/null
      SUITE12=ECDHE-RSA-AES128-GCM-SHA256 ;;
  *) echo "KEY: ec or rsa" >&2; exit 2 ;;
esac
openssl req -x509 -key "$WORK/key.pem" -out "$WORK/cert.pem" -days 2 -subj /CN=localhost \
  -addext subjectAltName=DNS:localhost,IP:127.0.0.1 2>/dev/null
client_conf() { # FILE PROTOCOL SUITE-LINE GROUPS
  printf '%s\n' "openssl_conf = init" "[init]" "ssl_conf = ssl" "[ssl]" "system_default = tls" "[tls]" \
    "MinProtocol = $2" "MaxProtocol = $2" "$3" "Groups = $4" >"$1"
}
client_conf "$WORK/tls13.cnf" TLSv1.3 "Ciphersuites = TLS_AES_128_GCM_SHA256" X25519
client_conf "$WORK/tls12.cnf" TLSv1.2 "CipherString = $SUITE12" X25519:P-256
# the 1 MiB file; nginx's workers run as nobody when started as root: they must reach it
mkdir -p "$WORK/www"; head -c 1048576 /dev/urandom >"$WORK/www/1m.bin"
chmod o+x "$WORK"; chmod -R o+rX "$WORK/www"

wait_https() {
  for _ in $(seq 300); do
    curl -sk -o /dev/null "https://127.0.0.1:$1/" && return 0
    sleep 0.1
  done
  echo "nothing answers TLS on port $1" >&2; return 1
}

# nginx_tls_start NAME PORT WORKERS : `ssl` on the listener; / answers hello, /pid its pid,
# /1m.bin the file (no sendfile under TLS without kTLS: nginx reads and encrypts)
nginx_tls_start() {
  local name=$1 port=$2 workers=$3 pid
  nginx_run "$name" "$workers" "listen 127.0.0.1:$port ssl backlog=4096;
    ssl_certificate $WORK/cert.pem;
    ssl_certificate_key $WORK/key.pem;
    ssl_protocols TLSv1.2 TLSv1.3;
    ssl_session_tickets on;
    location = /pid { default_type text/plain; return 200 \"\$pid\\n\"; }
    location = /1m.bin { root $WORK/www; default_type application/octet-stream; }
    location / { default_type text/plain; return 200 \"hello\\n\"; }"
  pid=BENCH_PID_$name
  wait_children "${!pid}" "$workers" && wait_https "$port"
}

# start_arm ARM NAME PORT WORKERS [APP-ARGS...]
start_arm() {
  local arm=$1 name=$2 port=$3 w=$4; shift 4
  case $arm in
    nginx) nginx_tls_start "$name" "$port" "$w" ;;
    *) m0serve_start "$name" "$port" --workers "$w" --blocking-threads 0 --accept-policy "$arm" \
         --tls-cert "$WORK/cert.pem" --tls-key "$WORK/key.pem" "$@" ;;
  esac
}

# start_arms WORKERS TAG ARM... : PORT[arm], PID[arm]
start_arms() {
  local w=$1 tag=$2 a v; shift 2
  declare -gA PORT=() PID=()
  for a in "$@"; do
    PORT[$a]=$(free_port)
    start_arm "$a" "${tag}_${a}_$w" "${PORT[$a]}" "$w" ${APP_ARGS[@]+"${APP_ARGS[@]}"}
    v="BENCH_PID_${tag}_${a}_$w"; PID[$a]=${!v}
  done
}
stop_arms() { local a; for a in "$@"; do bench_stop "${PID[$a]}"; done; }

storm_client() { OPENSSL_CONF="$WORK/tls13.cnf" timeout 300 python3 "$BENCH_DIR/tls_storm.py" "$@" 2>>"$WORK/client.err"; }

# pooled percentile of the ms in FILE
pctl() { sort -n "$1" | awk -v p="$2" '{v[NR] = $1} END { if (NR == 0) { print "nan"; exit }
  i = int(p / 100 * (NR - 1) + 0.5) + 1; printf "%.1f", v[i] }'; }

# storm_rows W ARM... : ROUNDS storms per arm (full, then resumed), arms rotating; then per arm
# the pooled p50/p99, CPU per handshake and the ratios to nginx's
storm_rows() {
  local w=$1 r k a kind n ok p50 p99 t nre proto cipher; shift
  local arms=("$@")
  declare -A OK=() T=() RE=()
  echo
  echo "## handshake storm, $w workers: $STORM connections at once, one hello each, x$ROUNDS, full then resumed ($(loadavg))"
  for a in "${arms[@]}"; do
    for _ in $(seq "$WARM_STORMS"); do storm_client storm "${PORT[$a]}" "$STORM" "${PID[$a]}" >/dev/null; sleep 1; done
    : >"$WORK/ms_${a}_full"; : >"$WORK/ms_${a}_resume"
  done
  for r in $(seq "$ROUNDS"); do
    for k in "${!arms[@]}"; do
      a=${arms[$(( (k + r - 1) % ${#arms[@]} ))]}
      sleep 1
      while read -r kind n ok p50 p99 t nre proto cipher; do
        printf "round %s %-9s %-6s %3s/%s answered  p50 %7s ms  p99 %7s ms  %6.2f ms CPU/handshake  resumed %3s  %s %s\n" \
          "$r" "$a" "$kind" "$ok" "$n" "$p50" "$p99" "$(awk -v t="$t" -v n="$ok" 'BEGIN{print n ? t/1e6/n : 0}')" \
          "$nre" "$proto" "$cipher"
        OK[$a.$kind]=$(( ${OK[$a.$kind]:-0} + ok )); T[$a.$kind]=$(( ${T[$a.$kind]:-0} + t ))
        RE[$a.$kind]=$(( ${RE[$a.$kind]:-0} + nre ))
      done < <(storm_client storm "${PORT[$a]}" "$STORM" "${PID[$a]}" "$WORK/ms_$a")
    done
  done
  for kind in full resume; do
    local np50 np99 ncpu
    np50=$(pctl "$WORK/ms_nginx_$kind" 50); np99=$(pctl "$WORK/ms_nginx_$kind" 99)
    ncpu=$(awk -v t="${T[nginx.$kind]:-0}" -v n="${OK[nginx.$kind]:-0}" 'BEGIN{print n ? t/1e6/n : 0}')
    for a in "${arms[@]}"; do
      awk -v a="$a" -v k="$kind" -v w="$w" -v p50="$(pctl "$WORK/ms_${a}_$kind" 50)" -v p99="$(pctl "$WORK/ms_${a}_$kind" 99)" \
        -v np50="$np50" -v np99="$np99" -v ncpu="$ncpu" -v t="${T[$a.$kind]:-0}" -v n="${OK[$a.$kind]:-0}" \
        -v re="${RE[$a.$kind]:-0}" -v all="$(( STORM * ROUNDS ))" 'BEGIN{
        c = n ? t/1e6/n : 0
        r50 = (np50 > 0) ? p50/np50 : 0; r99 = (np99 > 0) ? p99/np99 : 0; rc = (ncpu > 0) ? c/ncpu : 0
        printf "storm %-6s %dw %-9s p50 %7.1f ms (%.2f x nginx)  p99 %7.1f ms (%.2f x nginx)  %5.2f ms CPU/handshake (%.2f x nginx)  resumed %d/%d (%.0f %%)  answered %d/%d\n",
          k, w, a, p50, r50, p99, r99, c, rc, re, n, (n ? 100*re/n : 0), n, all }'
    done
  done
}

# land_rows W ARM... : ROUNDS landings of LAND connections per arm, arms rotating
land_rows() {
  local w=$1 r k a c; shift
  local arms=("$@")
  declare -A EX=()
  echo
  echo "## where a storm of keep-alive clients lands, $w workers: $LAND TLS connections at once, each asks /pid while all are open ($(loadavg))"
  for r in $(seq "$ROUNDS"); do
    for k in "${!arms[@]}"; do
      a=${arms[$(( (k + r - 1) % ${#arms[@]} ))]}
      c=$(storm_client land "${PORT[$a]}" "$LAND" "$w" 1)
      printf "round %s %-9s %s\n" "$r" "$a" "$c"
      EX[$a]=$(( ${EX[$a]:-0} + $(exact "${c%% *}" "$w" "$LAND") ))
      sleep 0.5
    done
  done
  for a in "${arms[@]}"; do printf "land %dw %-9s exact in %d of %d rounds\n" "$w" "$a" "${EX[$a]}" "$ROUNDS"; done
}

# cpu_rows TITLE W ARM... : rounds_vs_nginx over https under the TLS 1.2 client configuration
cpu_rows() {
  local title=$1 w=$2; shift 2
  declare -gA REQ=() TCK=()
  echo
  echo "## $title, $w workers: wrk -t2 -c32 -d${SECS}s https://...${BENCH_PATH:-/} x$ROUNDS, TLS 1.2 $SUITE12 ($(loadavg))"
  OPENSSL_CONF="$WORK/tls12.cnf" rounds_vs_nginx "$ROUNDS" "$SECS" "" "$@"
}

# what each arm negotiates with wrk's configuration (printed once per server set)
negotiated12() {
  local a
  for a in "$@"; do
    printf "  %s: %s\n" "$a" "$(OPENSSL_CONF="$WORK/tls12.cnf" openssl s_client -connect "127.0.0.1:${PORT[$a]}" </dev/null 2>/dev/null \
      | awk '/^New,/ {print $2, $NF}' | tr -d ,)"
  done
}

REV=$(git -C "$BENCH_DIR" rev-parse --short HEAD 2>/dev/null || echo unknown)
echo "# tls; $(date -u +%FT%TZ); commit $REV; $(nproc) cores; load $(loadavg); rounds $ROUNDS x ${SECS}s, warm ${WARM}s, $WARM_STORMS warm storms; key $KEY; $(nginx -v 2>&1 | sed 's/.*: //'); $(openssl version | cut -d' ' -f1-2); $(java -version 2>&1 | head -1)"

# shellcheck disable=SC2086
read -r -a arms <<<"$ARMS"
APP_ARGS=()
for w in $(printf '%s\n' $STORM_WORKERS $LAND_WORKERS $KA_WORKERS | sort -nu); do
  need=""
  if section storm && in_list "$w" "$STORM_WORKERS"; then need="$need storm"; fi
  if section land && in_list "$w" "$LAND_WORKERS"; then need="$need land"; fi
  if section ka && in_list "$w" "$KA_WORKERS"; then need="$need ka"; fi
  [ -n "$need" ] || continue
  start_arms "$w" tls "${arms[@]}"
  if [[ $need == *storm* ]]; then storm_rows "$w" "${arms[@]}"; fi
  if [[ $need == *land* ]]; then land_rows "$w" "${arms[@]}"; fi
  if [[ $need == *ka* ]]; then
    BENCH_SCHEME=https cpu_rows "keep-alive hello over TLS" "$w" "${arms[@]}"
    negotiated12 "${arms[@]}"
  fi
  stop_arms "${arms[@]}"
done

if section mib; then
  # StaticFilesApp, as a team would serve a directory (examples/), compiled against the jar
  mkdir -p "$WORK/classes"
  javac -d "$WORK/classes" -cp "$JAR" -sourcepath "$ROOT/examples/src/main/java" "$ROOT/examples/src/main/java/m0/examples/files/StaticFilesApp.java"
  export M0_STATIC_ROOT="$WORK/www"
  read -r -a marms <<<"$MIB_ARMS"
  APP_ARGS=(--app m0.examples.files.StaticFilesApp --app-classpath "$WORK/classes")
  for w in $MIB_WORKERS; do
    start_arms "$w" mib "${marms[@]}"
    for a in "${marms[@]}"; do # the same 1 MiB from each, or no row
      got=$(curl -sk "https://127.0.0.1:${PORT[$a]}/1m.bin" | cmp - "$WORK/www/1m.bin" >/dev/null && echo same || echo DIFFERENT)
      [ "$got" = same ] || { echo "$a does not serve the 1 MiB file" >&2; exit 1; }
    done
    BENCH_SCHEME=https BENCH_PATH=/1m.bin cpu_rows "1 MiB file over TLS" "$w" "${marms[@]}"
    negotiated12 "${marms[@]}"
    stop_arms "${marms[@]}"
  done
fi
echo
echo "# done; load $(loadavg)"
