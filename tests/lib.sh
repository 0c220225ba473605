# SPDX-License-Identifier: BSD-2-Clause
# Helpers for test suites (sourced). See tests/run_all.sh for the protocol.
. "$(dirname "${BASH_SOURCE[0]}")/../scripts/common.sh"
cd "$TSBI_ROOT"
pass() { echo "PASS: $*"; }
fail() { echo "FAIL: $*"; }
# check NAME CMD...: PASS if the command succeeds, else FAIL.
check() { local n=$1; shift; if "$@"; then pass "$n"; else fail "$n"; fi; }
# build TARGET...: build with make, one job per core (the build is most of
# a suite's time on a fresh clone); on failure print a FAIL line and exit 1.
build() {
  if ! make -s -j"$(nproc)" "$@" >"build/test-logs/make-$$.log" 2>&1; then
    cat "build/test-logs/make-$$.log"; fail "build: make $*"; exit 1
  fi
}
mkdir -p build/test-logs

# --- Evidence for FAIL lines (issue 25, items 5 and 6) -----------------------
# A FAIL must say what was expected, what came, and show the log it read, so
# a failure can be understood from the suite's output alone. The excerpt's
# lines start with "  | " so that run_all.sh never counts them as results.
# log_tail LOG: the last TSBI_FAIL_LINES (15) lines of LOG, indented, with
# carriage returns and terminal escapes removed and long lines cut.
log_tail() {
  if [ ! -e "$1" ]; then echo "  | (no such file)"; return; fi
  if [ ! -s "$1" ]; then echo "  | (empty)"; return; fi
  tail -n "${TSBI_FAIL_LINES:-15}" "$1" | tr -d '\r' | sed -e 's/\x1b\[[0-9;?]*[A-Za-z]//g' \
    -e 's/[[:cntrl:]]//g' | cut -c1-200 | sed 's/^/  | /'
}
# log_name LOG: where LOG is to be read after the run (relative to the tree);
# a suite whose logs move at exit (tests/linux/lib.sh) redefines it.
log_name() { echo "${1#"$TSBI_ROOT"/}"; }
# fail_log NAME LOG [WHY]: "FAIL: NAME: WHY (log: LOG)" and the log's last lines.
fail_log() { fail "$1${3:+: $3} (log: $(log_name "$2"))"; log_tail "$2"; }
# check_log NAME LOG CMD...: PASS if CMD succeeds, else fail_log with CMD.
check_log() {
  local n=$1 log=$2; shift 2
  if "$@"; then pass "$n"; else fail_log "$n" "$log" "expected \`$*\` to succeed"; fi
}
# has_line LOG PATTERN: LOG has a line matching the basic regex PATTERN
# (logs of QEMU runs may hold binary bytes: -a).
has_line() { grep -aq -- "$2" "$1" 2>/dev/null; }
# numa_args SIZE:CPUS...: run.py's QEMU arguments for one NUMA node (a QEMU
# virt socket, whose hart IDs hartid-bases sets: hw_models/qemu patch 0012)
# per argument, one per line: mapfile -t numa < <(numa_args 128M:0 128M:1).
numa_args() {
  local i=0 s
  for s in "$@"; do
    printf '%s\n' --qemu-arg=-object "--qemu-arg=memory-backend-ram,id=m$i,size=${s%%:*}" \
      --qemu-arg=-numa "--qemu-arg=node,memdev=m$i,cpus=${s#*:}"
    i=$((i + 1))
  done
}
# expect_line NAME LOG PATTERN: PASS if a line of LOG matches PATTERN.
expect_line() {
  if has_line "$2" "$3"; then pass "$1"
  else fail_log "$1" "$2" "expected a line matching '$3', none came"; fi
}
# expect_no_line NAME LOG RAN PATTERN: PASS if no line of LOG matches
# PATTERN, provided that the program ran: its log has a line matching RAN (a
# banner, a result line). An absence proves nothing in an empty log.
expect_no_line() {
  local n=$1 log=$2 ran=$3 pat=$4 hit
  if ! has_line "$log" "$ran"; then
    fail_log "$n" "$log" "the program did not run (no line matching '$ran'), so the absence of '$pat' means nothing"
  elif has_line "$log" "$pat"; then
    hit=$(grep -a -m1 -- "$pat" "$log" | tr -d '\r' | cut -c1-160)
    fail_log "$n" "$log" "expected no line matching '$pat', came: '$hit'"
  else pass "$n"; fi
}
# expect_eq NAME LOG WANT GOT [WHAT]: PASS if GOT equals WANT; WHAT names the
# value (e.g. "exit status") in the FAIL line.
expect_eq() {
  if [ "$3" = "$4" ]; then pass "$1"
  else fail_log "$1" "$2" "expected ${5:-value} $3, got '$4'"; fi
}
# expect_exit NAME LOG WANT GOT PATTERN: the program exited with status WANT
# (GOT is the status it had) and LOG has a line matching PATTERN.
expect_exit() {
  if [ "$3" != "$4" ]; then fail_log "$1" "$2" "expected exit status $3, got $4"
  else expect_line "$1" "$2" "$5"; fi
}

# --- M-mode stack high-water marks (issue 29) --------------------------------
# tests/payloads/run.py --stack-report FILE appends "TAG PAYLOAD smp=N hart=H
# used=BYTES of SIZE" per hart (and checks the margin itself, case
# <payload>/stack_margin). stack_summary FILE: the deepest use of the boot
# stack (cold boot and the boot hart's own set-up) and of the harts' stacks
# (run time), with the run that reached it (informational lines, not results).
stack_summary() {
  [ -s "$1" ] || return 0
  echo "M-mode stack high-water marks ($(log_name "$1"), $(wc -l <"$1") harts):"
  awk '{ split($5, u, "="); r = ($4 == "hart=boot") ? "boot stack (cold boot)" : ($4 == "hart=0") ? "hart 0 (run time)" : "other harts (run time)";
         if (!(r in m) || u[2] + 0 > m[r]) { m[r] = u[2] + 0; w[r] = $1 " " $2 " " $4; size[r] = $7 } }
       END { for (r in m) printf "  %-36s %5d of %d bytes (%s)\n", r, m[r], size[r], w[r] }' "$1" | sort
}
