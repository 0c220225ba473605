# SPDX-License-Identifier: BSD-2-Clause
# Helpers for test suites (sourced). See tests/run_all.sh for the protocol.
. "$(dirname "${BASH_SOURCE[0]}")/../scripts/common.sh"
cd "$TSBI_ROOT"
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; }
# check NAME CMD...: PASS if the command succeeds, else FAIL.
check() { local n=$1; shift; if "$@"; then pass "$n"; else fail "$n"; fi; }
# build TARGET...: build with make; on failure print a FAIL line and exit 1.
build() {
  if ! make -s "$@" >"build/test-logs/make-$$.log" 2>&1; then
    cat "build/test-logs/make-$$.log"; fail "build: make $*"; exit 1
  fi
}
mkdir -p build/test-logs
