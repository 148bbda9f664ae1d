#!/usr/bin/env bash
# The jcstress CI run for m0: every test of this module in quick mode (about 5 s a test),
# inside target/ (jcstress writes its results into the working directory).
#
# Fails (non-zero) when jcstress reports a FORBIDDEN outcome or an error, AND when a test it
# meant to run did not run: a -t that matches nothing prints "No matching tests" and exits 0,
# and a javac that skipped the annotation processor leaves no tests at all.
#
# Needs target/jcstress.jar:  mvn -q -pl jcstress-tests package   (from the repository root)
# Or run it all through Maven:  mvn -pl jcstress-tests -P jcstress verify
#
# Environment (all optional):
#   M0_JCSTRESS_TESTS     anchored regex of the tests to run   (default: every m0 test)
#   M0_JCSTRESS_EXPECTED  how many tests that must be          (default: 20 for the default regex)
#   M0_JCSTRESS_MODE      quick | default | tough              (default: quick)
#   M0_JCSTRESS_SPLIT     true | false: -sc, split compilation (default: false in quick mode)
#   M0_JCSTRESS_REQUIRE_INTERESTING=1  fail when a mutant test shows no interesting outcome
#                                      (default: a warning; quick runs on a loaded box can miss one)
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
target=$here/target
jar=$target/jcstress.jar
default_regex='^m0\.jcstress\.'
regex=${M0_JCSTRESS_TESTS:-$default_regex}
mode=${M0_JCSTRESS_MODE:-quick}
# Split compilation (actors compiled apart) multiplies the configurations: off for the CI run.
split=${M0_JCSTRESS_SPLIT:-$([[ $mode == quick ]] && echo false || echo true)}
# -jvmArgs runs one JVM configuration (the CI run); a long run keeps jcstress's own matrix
# (interpreter, C1, C2 with its randomizers) and only prepends the heap cap.
jvm_opt=$([[ $mode == quick ]] && echo -jvmArgs || echo -jvmArgsPrepend)
if [[ -n ${M0_JCSTRESS_EXPECTED:-} ]]; then
  expected=$M0_JCSTRESS_EXPECTED
elif [[ $regex == "$default_regex" ]]; then
  expected=20 # keep in step with the @JCStressTest classes under src/main/java
else
  expected= # whatever the jar's TestList says the regex matches, but at least one
fi

fail() { echo "run-ci.sh: FAIL: $*" >&2; exit 1; }

# -m sanity ran a deliberately wrong expectation and still exited 0 (PLATFORM.md).
[[ $mode == sanity ]] && fail "-m sanity proves nothing; use quick, default or tough"

[[ -f $jar ]] || { echo "run-ci.sh: $jar is missing; build it: mvn -q -pl jcstress-tests package" >&2; exit 2; }

# The tests the jar holds that the regex selects. TestList lines are "JCTEST<len>S<name>...".
# grep -E stands in for jcstress's Java regex (find semantics): fine for anchored dotted names.
test_list() { # the jar's META-INF/TestList on stdout; unzip where there is one, else the JDK's jar
  if command -v unzip >/dev/null; then
    unzip -p "$jar" META-INF/TestList
  else
    local tmp
    tmp=$(mktemp -d)
    (cd "$tmp" && jar xf "$jar" META-INF/TestList && cat META-INF/TestList)
    rm -rf "$tmp"
  fi
}
mapfile -t wanted < <(
  test_list |
    while IFS= read -r line; do
      [[ $line == JCTEST* ]] || continue
      rest=${line#JCTEST}
      len=${rest%%S*}
      rest=${rest#*S}
      printf '%s\n' "${rest:0:len}"
    done | grep -E -- "$regex" | sort -u || true
)
(( ${#wanted[@]} > 0 )) || fail "the jar's TestList has no test matching '$regex' (annotation processor skipped?)"
if [[ -n $expected ]] && (( ${#wanted[@]} != expected )); then
  fail "the jar holds ${#wanted[@]} tests matching '$regex', expected $expected"
fi

log=$target/jcstress-ci.log
cd "$target"
rm -rf results jcstress-results-*.bin.gz "$log"
echo "run-ci.sh: ${#wanted[@]} tests, -m $mode -sc $split $jvm_opt -Xmx256m, in $target"
start=$(date +%s)
set +e
# -v: the final summary then prints every test's table, not only the interesting ones.
java -jar "$jar" -v -m "$mode" -sc "$split" "$jvm_opt" "-Xmx256m" -t "$regex" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
set -e
elapsed=$(( $(date +%s) - start ))

# Per-test summary of the interesting outcomes, from the final "across all configurations" tables.
echo
echo "run-ci.sh: samples per test, and the interesting outcomes among them:"
awk '
  /^RUN RESULTS:/ { final = 1 }
  !final { next }
  /\] m0\./ { name = $NF; skip = (name in total); next }
  /^ +RESULT +SAMPLES/ { if (!skip) { table = 1; total[name] = 0 }; next }
  table && NF == 0 { table = 0; next }
  table {
    n = split($0, f, /  +/)
    s = f[3]; gsub(/,/, "", s)
    total[name] += s
    if (f[5] == "Interesting") { hits[name] = hits[name] sprintf("%s: %s; ", f[2], f[3]) }
  }
  END { for (t in total) printf "  %-52s %11d samples  %s\n", t, total[t], (t in hits) ? "interesting " hits[t] : "" }
' "$log" | sort

# The mutants (release/acquire, opaque, split add, pending first) should show their outcome; how
# often depends on the machine and its load, so a miss is a warning unless asked to be strict.
# A test declares an interesting outcome only as a mutant; jcstress lists declared outcomes
# even at 0 samples, so a mutant that went unseen shows an Interesting row with 0.
mapfile -t quiet < <(awk '
  /^RUN RESULTS:/ { final = 1 }
  !final { next }
  /\] m0\./ { name = $NF; next }
  name != "" && /%  +Interesting  / { split($0, f, /  +/); s = f[3]; gsub(/,/, "", s); declared[name] = 1; seen[name] += s }
  END { for (t in declared) if (seen[t] == 0) print t }
' "$log")
if (( ${#quiet[@]} > 0 )); then
  echo "run-ci.sh: WARNING: no interesting outcome seen in: ${quiet[*]}" >&2
  [[ ${M0_JCSTRESS_REQUIRE_INTERESTING:-0} == 1 ]] && fail "M0_JCSTRESS_REQUIRE_INTERESTING=1 and a mutant went unseen"
fi

(( rc == 0 )) || fail "jcstress exited $rc (a FORBIDDEN outcome or an error; see $log)"
grep -q "No matching tests" "$log" && fail "jcstress found no test matching '$regex'"
grep -q "Failed tests: No matches" "$log" || fail "jcstress lists failed tests (see $log)"
grep -q "Error tests: No matches" "$log" || fail "jcstress lists tests in error (see $log)"

missing=()
for t in "${wanted[@]}"; do
  # Each test that ran has its own page in results/ and an [OK] line in the final summary.
  if [[ ! -f results/$t.html ]] || ! grep -q "\[OK\] $t\$" "$log"; then
    missing+=("$t")
  fi
done
(( ${#missing[@]} == 0 )) || fail "${#missing[@]} expected tests did not run: ${missing[*]}"

echo "run-ci.sh: OK: ${#wanted[@]} of ${#wanted[@]} tests ran, none FORBIDDEN, in ${elapsed} s (results: $target/results/index.html)"
