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
#          (the client's session_reused). At STORM_WORKERS (default "2 4"), three parts:
#          - "storm cold": each arm's first storm pair on its freshly started workers (a storm after
#            a deploy meets cold workers), with the m0 arms' JIT: the part of the CPU their C1 and
#            C2 compiler threads spent inside the storm.
#          - warm-up, unmeasured: each m0 arm runs storm pairs until the compilers' CPU over each
#            of the last WARM_QUIET (default 2) pairs (each with the 1 s pause after it) is under
#            WARM_JIT_MS (default 20) ms, at least WARM_STORMS (default 2) and at most
#            WARM_STORMS_MAX (default 40) pairs (one quiet pair was seen followed by 165 ms of C2
#            in the round); nginx runs as many pairs as the m0 arm that needed most. Printed per
#            arm: pairs run, the last pair's JIT and every pair's.
#            (A fresh worker's C2 spends ~1 s over its first ~2,500 handshakes: ADR 0073's
#            addendum. Other rows warm with WARM seconds of load; a storm row is warm when its
#            JIT is.)
#          - "storm": ROUNDS pairs per arm, rotating; each round's line shows its JIT beside its
#            CPU/handshake, and "storm JIT" lines sum it per m0 arm over the rounds.
#   land   LAND (64) keep-alive connections opened and handshaken at once, then, all still open,
#          each asks /pid: answers per worker, largest first; exact is 32/32 at 2 workers.
#          ROUNDS rounds per arm at LAND_WORKERS (default "2 4").
#   ka     keep-alive hello over TLS (wrk -t2 -c32 https, lib.sh's rounds_vs_nginx) at
#          KA_WORKERS (default "1 2"): CPU per request and its ratio to nginx's.
#   mib    1 MiB over TLS: a 1 MiB file, nginx's `root` against m0serve's StaticFilesApp
#          (examples/, compiled here; a file answer), wrk -t2 -c32, at MIB_WORKERS (default 1).
# ARMS (default "nginx share race fountain"): share, race and fountain are m0serve's
# --accept-policy; POLICY+TAG is that policy with the m0serve arguments in $ARGS_TAG, e.g.
# ARMS="nginx share share+t10" ARGS_t10="--worker-java-opts -XX:TrimNativeHeapInterval=10000"; MIB_ARMS (default "nginx share"). WARM (default 5) s of unmeasured wrk per arm
# before ka and mib rounds; the storm's warm-up is above. KEY=ec (default, ECDSA P-256) or rsa (RSA-2048).
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
export WARM=${WARM:-5}; WARM_STORMS=${WARM_STORMS:-2}; WARM_STORMS_MAX=${WARM_STORMS_MAX:-40}
WARM_JIT_MS=${WARM_JIT_MS:-20}; WARM_QUIET=${WARM_QUIET:-2}
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
    *) local policy=${arm%%+*} more=()
       # POLICY+TAG: the policy's arm with the arguments in $ARGS_TAG (an A/B beside the plain arm)
       if [ "$policy" != "$arm" ]; then local v="ARGS_${arm#*+}"; read -r -a more <<<"${!v:?set $v for arm $arm}"; fi
       m0serve_start "$name" "$port" --workers "$w" --blocking-threads 0 --accept-policy "$policy" \
         --tls-cert "$WORK/cert.pem" --tls-key "$WORK/key.pem" ${more[@]+"${more[@]}"} "$@" ;;
  esac
}

# start_arms WORKERS TAG ARM... : PORT[arm], PID[arm]
start_arms() {
  local w=$1 tag=$2 a v; shift 2
  declare -gA PORT=() PID=()
  for a in "$@"; do
    PORT[$a]=$(free_port)
    start_arm "$a" "${tag}_${a//+/_}_$w" "${PORT[$a]}" "$w" ${APP_ARGS[@]+"${APP_ARGS[@]}"}
    v="BENCH_PID_${tag}_${a//+/_}_$w"; PID[$a]=${!v}
  done
}
stop_arms() { local a; for a in "$@"; do bench_stop "${PID[$a]}"; done; }

storm_client() { OPENSSL_CONF="$WORK/tls13.cnf" timeout 300 python3 "$BENCH_DIR/tls_storm.py" "$@" 2>>"$WORK/client.err"; }
is_m0() { [ "$1" != nginx ]; }
# jit_ms ARM : the C1+C2 compiler threads' CPU of ARM's server since the last jit_ms ARM, in ms
jit_ms() {
  python3 "$BENCH_DIR/tls_storm.py" jit "${PID[$1]}" "$WORK/jit_${PID[$1]}.json" | awk '{printf "%.1f", $1 / 1e6}'
}

# pooled percentile of the ms in FILE
pctl() { sort -n "$1" | awk -v p="$2" '{v[NR] = $1} END { if (NR == 0) { print "nan"; exit }
  i = int(p / 100 * (NR - 1) + 0.5) + 1; printf "%.1f", v[i] }'; }
per_hs() { awk -v t="$1" -v n="$2" 'BEGIN{print n ? t/1e6/n : 0}'; } # NS COUNT -> ms each (unrounded: ratios use it)

# storm_pair TAG ARM LABEL : one storm pair on ARM, full then resumed, a line each (the JIT: the
# compilers' share of the CPU, m0 arms only); times appended to $WORK/ms_TAG_ARM_{full,resume},
# sums kept in storm_rows' OK, T, JT, RE under TAG.ARM.KIND
storm_pair() {
  local tag=$1 a=$2 label=$3 kind n ok p50 p99 t jt nre proto cipher jit
  while read -r kind n ok p50 p99 t jt nre proto cipher; do
    jit=-; if is_m0 "$a"; then jit=$(awk -v j="$jt" 'BEGIN{printf "%.1f", j/1e6}'); fi
    printf "%s %-9s %-6s %3s/%s answered  p50 %7s ms  p99 %7s ms  %6.2f ms CPU/handshake  JIT %6s ms  resumed %3s  %s %s\n" \
      "$label" "$a" "$kind" "$ok" "$n" "$p50" "$p99" "$(per_hs "$t" "$ok")" "$jit" "$nre" "$proto" "$cipher"
    OK[$tag.$a.$kind]=$(( ${OK[$tag.$a.$kind]:-0} + ok )); T[$tag.$a.$kind]=$(( ${T[$tag.$a.$kind]:-0} + t ))
    JT[$tag.$a.$kind]=$(( ${JT[$tag.$a.$kind]:-0} + jt )); RE[$tag.$a.$kind]=$(( ${RE[$tag.$a.$kind]:-0} + nre ))
  done < <(storm_client storm "${PORT[$a]}" "$STORM" "${PID[$a]}" "$WORK/ms_${tag}_$a")
}

# warm_arm ARM [PAIRS] : unmeasured storm pairs, 1 s apart. An m0 arm runs at least WARM_STORMS,
# then on until its compilers' CPU over each of the last WARM_QUIET pairs (each with the pause
# after it) is under WARM_JIT_MS, or WARM_STORMS_MAX pairs are spent; given PAIRS, exactly that
# many. Sets WARMED, WARM_JIT (the last pair's ms) and WARM_SEQ (every pair's ms, the decay).
warm_arm() {
  local a=$1 want=${2:-} n=0 quiet=0
  WARM_JIT=-; WARM_SEQ=""
  if is_m0 "$a"; then jit_ms "$a" >/dev/null; fi
  while :; do
    n=$((n + 1))
    storm_client storm "${PORT[$a]}" "$STORM" "${PID[$a]}" >/dev/null
    sleep 1
    if is_m0 "$a"; then
      WARM_JIT=$(jit_ms "$a"); WARM_SEQ="$WARM_SEQ $WARM_JIT"
      if awk -v j="$WARM_JIT" -v t="$WARM_JIT_MS" 'BEGIN{exit !(j < t)}'; then quiet=$((quiet + 1)); else quiet=0; fi
    fi
    if [ -n "$want" ]; then
      if (( n >= want )); then break; fi
    elif (( n >= WARM_STORMS_MAX )) || (( n >= WARM_STORMS && quiet >= WARM_QUIET )); then break
    fi
  done
  WARMED=$n
}

# storm_summary PREFIX TAG W ALL ARM... : per kind and arm, the pooled p50/p99 of TAG's storms, CPU
# per handshake and the ratios to nginx's. The cold rows end with their JIT; the warm rows
# (PREFIX "storm") keep the format docs/bench.md quotes.
storm_summary() {
  local prefix=$1 tag=$2 w=$3 all=$4 kind a np50 np99 ncpu jit; shift 4
  for kind in full resume; do
    np50=$(pctl "$WORK/ms_${tag}_nginx_$kind" 50); np99=$(pctl "$WORK/ms_${tag}_nginx_$kind" 99)
    ncpu=$(per_hs "${T[$tag.nginx.$kind]:-0}" "${OK[$tag.nginx.$kind]:-0}")
    for a in "$@"; do
      jit=""
      if [ "$tag" = cold ]; then
        jit="  JIT -"; if is_m0 "$a"; then jit=$(awk -v j="${JT[$tag.$a.$kind]:-0}" 'BEGIN{printf "  JIT %.1f ms", j/1e6}'); fi
      fi
      awk -v pre="$prefix" -v a="$a" -v k="$kind" -v w="$w" -v p50="$(pctl "$WORK/ms_${tag}_${a}_$kind" 50)" \
        -v p99="$(pctl "$WORK/ms_${tag}_${a}_$kind" 99)" -v np50="$np50" -v np99="$np99" -v ncpu="$ncpu" \
        -v t="${T[$tag.$a.$kind]:-0}" -v n="${OK[$tag.$a.$kind]:-0}" -v re="${RE[$tag.$a.$kind]:-0}" \
        -v all="$all" -v jit="$jit" 'BEGIN{
        c = n ? t/1e6/n : 0
        r50 = (np50 > 0) ? p50/np50 : 0; r99 = (np99 > 0) ? p99/np99 : 0; rc = (ncpu > 0) ? c/ncpu : 0
        printf "%s %-6s %dw %-9s p50 %7.1f ms (%.2f x nginx)  p99 %7.1f ms (%.2f x nginx)  %5.2f ms CPU/handshake (%.2f x nginx)  resumed %d/%d (%.0f %%)  answered %d/%d%s\n",
          pre, k, w, a, p50, r50, p99, r99, c, rc, re, n, (n ? 100*re/n : 0), n, all, jit }'
    done
  done
}

# storm_rows W ARM... : the cold row (each arm's first storm pair on its fresh workers), the
# warm-up (warm_arm; nginx as many pairs as the m0 arm that needed most), then ROUNDS storm pairs
# per arm, arms rotating, with the pooled p50/p99, CPU per handshake and the ratios to nginx's
storm_rows() {
  local w=$1 r k a kind most=0; shift
  local arms=("$@")
  declare -A OK=() T=() JT=() RE=()
  for a in nginx "${arms[@]}"; do for kind in full resume; do : >"$WORK/ms_cold_${a}_$kind"; : >"$WORK/ms_warm_${a}_$kind"; done; done
  echo
  echo "## handshake storm, $w workers: $STORM connections at once, one hello each, x$ROUNDS, full then resumed ($(loadavg))"
  echo "# cold: each arm's first storm pair on its freshly started workers ($(loadavg))"
  for a in "${arms[@]}"; do sleep 1; storm_pair cold "$a" cold; done
  storm_summary "storm cold" cold "$w" "$STORM" "${arms[@]}"
  echo "# warm-up: m0 arms until $WARM_QUIET pairs in a row each spend < $WARM_JIT_MS ms of C1+C2 CPU (at least $WARM_STORMS pairs, at most $WARM_STORMS_MAX); nginx as many as the m0 arm that needed most"
  for a in "${arms[@]}"; do
    is_m0 "$a" || continue
    warm_arm "$a"
    printf "warm %-9s %2d storm pairs, JIT in the last %s ms (%s); per pair, ms:%s\n" "$a" "$WARMED" "$WARM_JIT" \
      "$(if (( WARMED < WARM_STORMS_MAX )); then echo quiet; else echo "WARM_STORMS_MAX spent before $WARM_QUIET quiet pairs in a row"; fi)" "$WARM_SEQ"
    if (( WARMED > most )); then most=$WARMED; fi
  done
  if (( most == 0 )); then most=$WARM_STORMS; fi
  for a in "${arms[@]}"; do
    if ! is_m0 "$a"; then warm_arm "$a" "$most"; printf "warm %-9s %2d storm pairs\n" "$a" "$WARMED"; fi
  done
  for r in $(seq "$ROUNDS"); do
    for k in "${!arms[@]}"; do
      a=${arms[$(( (k + r - 1) % ${#arms[@]} ))]}
      sleep 1
      storm_pair warm "$a" "round $r"
    done
  done
  storm_summary storm warm "$w" "$(( STORM * ROUNDS ))" "${arms[@]}"
  for a in "${arms[@]}"; do
    is_m0 "$a" || continue
    awk -v a="$a" -v w="$w" -v f="${JT[warm.$a.full]:-0}" -v rs="${JT[warm.$a.resume]:-0}" -v r="$ROUNDS" 'BEGIN{
      printf "storm JIT    %dw %-9s full %6.1f ms  resume %6.1f ms  (C1+C2 CPU inside the x%d rounds, part of the CPU/handshake above)\n", w, a, f/1e6, rs/1e6, r }'
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
echo "# tls; $(date -u +%FT%TZ); commit $REV; $(nproc) cores; load $(loadavg); rounds $ROUNDS x ${SECS}s, warm ${WARM}s, warm storms until $WARM_QUIET pairs with JIT < ${WARM_JIT_MS} ms ($WARM_STORMS..$WARM_STORMS_MAX); key $KEY; $(nginx -v 2>&1 | sed 's/.*: //'); $(openssl version | cut -d' ' -f1-2); $(java -version 2>&1 | head -1)"

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
