#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Runs every suite in tests/suites (or tests/bench with "bench"), in name order.
# A suite is an executable that prints one line per test case:
#   PASS: <name>        or        FAIL: <name> [reason]
# and may print anything else. A suite that exits non-zero without a FAIL line
# counts as one failure, so a crash or a missing tool is never a silent skip.
# Ends with the line "N passed, N failed".
set -uo pipefail
. "$(dirname "$0")/../scripts/common.sh"
kind=${1:-suites}
dir=$TSBI_ROOT/tests/$kind
logs=$TSBI_ROOT/build/test-logs; mkdir -p "$logs"
passed=0; failed=0
only=${TSBI_ONLY:-}
for s in "$dir"/*.sh; do
  [ -x "$s" ] || continue
  name=$(basename "$s" .sh)
  if [ -n "$only" ] && [[ $name != *$only* ]]; then continue; fi
  echo "=== $kind/$name"
  start=$SECONDS
  "$s" 2>&1 | tee "$logs/$name.log"
  rc=${PIPESTATUS[0]}
  p=$(grep -c '^PASS: ' "$logs/$name.log")
  f=$(grep -c '^FAIL: ' "$logs/$name.log")
  if [ "$rc" != 0 ] && [ "$f" = 0 ]; then
    echo "FAIL: $name (suite exited $rc)"; f=1
  fi
  if [ "$kind" = suites ] && [ "$p" = 0 ] && [ "$f" = 0 ]; then
    echo "FAIL: $name (suite ran no test)"; f=1
  fi
  echo "--- $name: $p passed, $f failed ($((SECONDS - start)) s)"
  passed=$((passed + p)); failed=$((failed + f))
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
