#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Instructions per SBI PMU call (the S-mode ecall loop included) on QEMU 7.2
# with -icount shift=0, this firmware against Debian's OpenSBI 1.1. One line
# per call with both numbers; PASS when ours is at most a third of OpenSBI's
# (the issue's aim) and, for the start+stop pair, at most 370 instructions.
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
build firmware pmu-payloads
declare -A ours theirs
collect() { # fw array
  local out
  out=$(python3 tests/payloads/run.py --fw "$1" --icount -v build/pmu/pmu_bench.elf 2>&1)
  if ! grep -q 'BENCH: ' <<<"$out"; then
    echo "$out" | tail -5; fail "pmu-bench/$1 no BENCH lines"; exit 1
  fi
  while read -r _ _ name n; do eval "$2[$name]=$n"; done < <(grep '^| BENCH: ' <<<"$out")
}
collect ours ours
collect opensbi theirs
printf '%-24s %10s %12s %7s\n' call tsbi opensbi-1.1 ratio
for name in base_get_spec_version base_probe_pmu pmu_num_counters pmu_get_info \
            pmu_config_matching pmu_fw_read pmu_start_stop_pair time_set_timer; do
  o=${ours[$name]:-?} t=${theirs[$name]:-?}
  printf '%-24s %10s %12s %7s\n' "$name" "$o" "$t" "$(python3 -c "print('%.2f' % ($o / $t))" 2>/dev/null)"
done
for name in pmu_num_counters pmu_get_info pmu_config_matching pmu_fw_read pmu_start_stop_pair; do
  o=${ours[$name]} t=${theirs[$name]}
  if python3 -c "import sys; sys.exit(0 if $o * 3 <= $t else 1)"; then
    pass "pmu-bench/$name/third_of_opensbi ($o vs $t)"
  else
    fail "pmu-bench/$name/third_of_opensbi $o > $t / 3 (the trap entry/dispatch alone costs ${ours[base_get_spec_version]})"
  fi
done
o=${ours[pmu_start_stop_pair]}
if python3 -c "import sys; sys.exit(0 if $o <= 370 else 1)"; then
  pass "pmu-bench/pmu_start_stop_pair/at_most_370 ($o)"
else
  fail "pmu-bench/pmu_start_stop_pair/at_most_370 ($o)"
fi
