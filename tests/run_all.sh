#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Runs a tier of suites and ends with the line "N passed, N failed".
#
#   run_all.sh [suites|check|bench]     (make test, make check, make bench)
#
# suites: every tests/suites/*.sh (make test, what CI runs); check: the suites
# whose header says "# tier: check" or "# tier: check-only" (make check, the
# edit loop: host tests and a payload smoke on each extension); bench:
# tests/bench/*.sh. TSBI_ONLY=<substring> keeps the suites whose name has it.
#
# A suite is an executable that prints one line per test case,
#   PASS: <name>    or    FAIL: <name> <what was expected, what came>
# where a name says its configuration (harts, CPU, image). Other lines:
#   PEER: <name> pass|fail|known [details]   a peer firmware's result: listed
#       in build/test-logs/peers.md, never counted (no peer can fail the run)
#   INFO: <prefix> doctest: N test cases, M assertions    (added up below)
# A suite that exits non-zero without a FAIL line, prints no PASS line, or
# is not executable counts as one failure: a crash or a missing tool is never
# a silent skip. Each suite runs under a time limit with stdin from
# /dev/null, except those whose header says "# stdin: terminal": they run
# with a pty as stdin, as typed at a terminal (tests never depend on either).
set -uo pipefail
. "$(dirname "$0")/../scripts/common.sh"
cd "$TSBI_ROOT"
kind=${1:-suites}
case $kind in
  suites|check) dir=tests/suites ;;
  bench) dir=tests/bench ;;
  *) echo "run_all.sh: unknown tier $kind (suites, check, bench)" >&2; exit 2 ;;
esac
logs=build/test-logs; mkdir -p "$logs"
only=${TSBI_ONLY:-}
limit=${TSBI_SUITE_LIMIT:-2400}   # seconds per suite before it is killed (a hang)

# What is tested never depends on the caller's environment: these names
# select firmware, QEMU or machine in the scripts the suites share, so they
# are dropped (and said so); the knobs the suites do read are printed.
echo "=== tsbi $kind: $(git log -1 --format='%h %s' 2>/dev/null | cut -c1-60), $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores"
for v in QEMU FW FW_JUMP SMP CPU; do
  if [ -n "${!v+x}" ]; then echo "env: $v=${!v} ignored (the suites choose their own)"; unset "$v"; fi
done
for v in TSBI_ONLY TSBI_QEMU10 TSBI_PAYLOAD_TIMEOUT PERF_BOOTS TSBI_CACHE TSBI_DEBIAN_MIRROR TSBI_SUITE_LIMIT; do
  if [ -n "${!v+x}" ]; then echo "env: $v=${!v}"; fi
done

# tier_of SUITE: "check" (in make check and make test), "check-only" (make
# check alone: it repeats what make test covers more fully) or "test".
tier_of() { sed -n 's/^# tier: *\([a-z-]*\).*/\1/p' "$1" | head -1 | grep . || echo test; }

passed=0; failed=0; asserts=0; cases=0
times=(); fails=(); ran=()
t0=$SECONDS
for s in "$dir"/*.sh; do
  name=$(basename "$s" .sh)
  if [ -n "$only" ] && [[ $name != *$only* ]]; then continue; fi
  if [ "$kind" != bench ]; then
    t=$(tier_of "$s")
    if [ "$kind" = check ] && [ "$t" = test ]; then continue; fi
    if [ "$kind" = suites ] && [ "$t" = check-only ]; then continue; fi
  fi
  log=$logs/$name.log; ran+=("$log")
  echo "=== $kind/$name"
  start=$SECONDS
  if [ ! -x "$s" ]; then
    echo "FAIL: $name (suite is not executable: chmod +x $s)" | tee "$log"; rc=0
  elif grep -q '^# stdin: terminal' "$s"; then
    # The suites that start QEMU themselves run as from a person's terminal
    # (a pty from `script` is their stdin and controlling terminal), so a
    # QEMU started without its own stdin stops on SIGTTOU and fails here,
    # not only on a person's machine. script's stdin is held open (at end of
    # input it would end the session).
    exec {hold}< <(exec sleep "$limit"); holdpid=$!
    timeout -k 30 "$limit" script -qefc "$s" /dev/null <&$hold 2>&1 | tr -d '\r' | tee "$log"
    rc=${PIPESTATUS[0]}
    exec {hold}<&-; kill "$holdpid" 2>/dev/null
  else
    timeout -k 30 "$limit" "$s" </dev/null 2>&1 | tee "$log"
    rc=${PIPESTATUS[0]}
    [ "$rc" = 124 ] && echo "FAIL: $name (suite killed after $limit s)" | tee -a "$log"
  fi
  p=$(grep -ac '^PASS: ' "$log")
  f=$(grep -ac '^FAIL: ' "$log")
  if [ "$rc" != 0 ] && [ "$f" = 0 ]; then
    echo "FAIL: $name (suite exited $rc)" | tee -a "$log"; f=1
  fi
  if [ "$kind" != bench ] && [ "$p" = 0 ] && [ "$f" = 0 ]; then
    echo "FAIL: $name (suite ran no test)" | tee -a "$log"; f=1
  fi
  while IFS= read -r line; do fails+=("$line   [log: $log]"); done < <(grep -a '^FAIL: ' "$log")
  a=$(sed -n 's/^INFO: .* doctest: \([0-9]*\) test cases, \([0-9]*\) assertions$/\1 \2/p' "$log" |
      awk '{c += $1; a += $2} END {print c + 0, a + 0}')
  cases=$((cases + ${a% *})); asserts=$((asserts + ${a#* }))
  echo "--- $name: $p passed, $f failed ($((SECONDS - start)) s)"
  times+=("$(printf '%-22s %6d s %7d passed %4d failed' "$name" $((SECONDS - start)) "$p" "$f")")
  passed=$((passed + p)); failed=$((failed + f))
done


echo
echo "=== summary ($kind)"
printf '%s\n' "${times[@]}"
echo "total time: $((SECONDS - t0)) s"
# Distinct checks, the peer table (every PEER line) and JUnit XML.
distinct=$(python3 tests/report.py --peers "$logs/peers.md" --junit "$logs/junit.xml" "${ran[@]}") ||
  { distinct="?"; echo "FAIL: run_all/report (tests/report.py failed)"; failed=$((failed + 1)); }
echo "distinct checks: $distinct (PASS/FAIL names less their configuration, tests/report.py); host doctest: $cases test cases, $asserts assertions; JUnit XML: $logs/junit.xml"
grep -q '^| ' "$logs/peers.md" 2>/dev/null && echo "peer firmware results (not counted): $logs/peers.md"
if ((${#fails[@]})); then
  echo "failures (${#fails[@]}):"
  printf '  %s\n' "${fails[@]}"
fi
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
