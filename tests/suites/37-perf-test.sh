#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# perf's own test suite (issue 26, item 7): `perf test` from Debian's perf in
# Linux 6.12 on 4 harts (tests/linux/guest/perf-test.sh, initramfs "perf",
# which carries /usr/lib/perf-core), on ours and on the OpenSBI that goes
# with each QEMU, in the same run: QEMU 7.2 with Debian bookworm's OpenSBI
# 1.1, the project QEMU 10 with trixie's OpenSBI 1.6. A test that passes on
# the peer must pass on ours, and one that fails on both must be explained
# in tests/linux/perftest-notes.txt (tests/linux/perftest.py compare). The
# four boots run at once.
#
# make test runs the selection below, tests that pass on every firmware in
# the full runs and take seconds each under TCG: 2, 3 (openat counted per
# task and on all CPUs), 4 (mmap ring buffer samples, user-space reading of
# the instructions and cycles counters: scounteren and the PMU's counter
# mapping), 22 (exit events), 26 (tracking with a dummy event), 46 (event
# enabled/running times), 47 (backward ring buffer), 96 (perf stat's CSV
# summary, a shell test), 104 (perf stat of every event perf list names,
# which the kernel maps to SBI PMU events). The full list, behind the table in
# tests/linux/README.md, runs with tests/linux/perftest-run.sh (20-40 min
# per configuration). Each run of ours also checks that the README's table
# (of the full list) gives the selected tests the results this run has.
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
. tests/linux/lib.sh

SEL=${PERFTEST_SEL:-2,3,4,22,26,46,47,96,104}
if ! Q10=$(scripts/qemu10.sh path); then
  fail "perf-test: scripts/qemu10.sh path failed (project QEMU 10 not built)"; exit 1
fi
linux_prepare perf
pids=() rcs=()
for c in ours@7.2 opensbi-1.1@7.2 ours@10 opensbi-1.6@10; do
  fw=${c%@*} q=${c#*@}
  case $fw in
    ours) bios=$FW_DYN ;;
    *) if ! bios=$(scripts/opensbi.sh path "${fw#opensbi-}"); then
         echo "PEER: perf-test $c/fetch crash scripts/opensbi.sh path ${fw#opensbi-} failed"; continue
       fi ;;
  esac
  case $q in 7.2) qemu="qemu-system-riscv64" ;; 10) qemu=$Q10 ;; esac
  QEMU=$qemu linux_boot "$LINUX_LOGS/perf-test-$c.log" 600 4 "$bios" \
    "tsbi.test=perf-test tsbi.perftest=$SEL tsbi.perftest_limit=180" >"$LINUX_LOGS/perf-test-$c.boot" &
  pids+=("$!:$c")
done
for p in "${pids[@]}"; do
  wait "${p%%:*}"; rcs+=("${p#*:}=$?")
done
for r in "${rcs[@]}"; do
  c=${r%=*} rc=${r##*=} log=$LINUX_LOGS/perf-test-$c.log
  cat "$LINUX_LOGS/perf-test-$c.boot"
  case $c in
    ours@*) linux_check_ended "perf-test ${c#ours@} smp4" "$log" "$rc"
            peer=$(ls "$LINUX_LOGS"/perf-test-opensbi-*@"${c#ours@}".log 2>/dev/null | head -1)
            if [ -z "$peer" ]; then fail "perf-test ${c#ours@} smp4: a peer log to compare with [none]"; continue; fi
            python3 tests/linux/perftest.py compare "perf-test qemu${c#ours@} smp4" "$log" "$peer"
            python3 tests/linux/perftest.py readme-check "perf-test qemu${c#ours@} smp4" \
              tests/linux/README.md "$c" "$log" ;;
    *) if [ "$rc" = 0 ] && grep -aq '^TSBI-RESULT end test=perf-test rc=0' "$log"; then echo "PEER: perf-test $c smp4: ran to the end pass"
       else echo "PEER: perf-test $c smp4: ran to the end fail status $rc"; fi ;;
  esac
done
