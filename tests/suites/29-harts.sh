#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Many harts (issue 29): every hart of a 64-hart QEMU virt started and
# stopped through HSM, each answering with an IPI to the boot hart; on 66
# harts, the two this build cannot index (FW_MAX_HARTS, fw_limits.h) named
# in a boot warning, never offered to S-mode (HSM says they do not exist)
# and disabled in the tree the next stage gets. The S-mode side is the
# boot-cost probe (tests/bench/bootcost): it asks HSM about every hart ID
# below 4096, starts each one that exists, waits for its IPI and for it to
# stop again. QEMU 7.2, -icount (the harts take turns, so no run depends on
# the host's speed).
. "$(dirname "$0")/../lib.sh"
build firmware bootcost
out=build/test-logs/29-harts; mkdir -p "$out"
boot() { # boot HARTS LOG [QEMU args...]
  local n=$1 log=$2; shift 2
  timeout 600 qemu-system-riscv64 -M virt -smp "$n" -m 512M -nographic -icount shift=0,sleep=off \
    -bios build/fw/tsbi_dynamic.bin -kernel build/bootcost/bootcost.elf "$@" </dev/null >"$log" 2>&1
}
val() { grep -a "^BOOTCOST" "$1" 2>/dev/null | tr ' ' '\n' | sed -n "s/^$2=//p" | head -1; }

log=$out/smp64.log; boot 64 "$log"
expect_line "harts/smp64/probe_done" "$log" "^BOOTCOST done"
expect_line "harts/smp64/banner_64" "$log" "tsbi: SBI firmware .* 64 hart(s)"
expect_eq "harts/smp64/every_hart_started_and_stopped" "$log" 63 "$(val "$log" secondaries)" "HSM-started secondaries"
expect_no_line "harts/smp64/no_start_failed" "$log" "^BOOTCOST done" "start_failed"
expect_no_line "harts/smp64/no_left_out" "$log" "^BOOTCOST done" "left out"

log=$out/smp66.log; boot 66 "$log"
expect_line "harts/smp66/probe_done" "$log" "^BOOTCOST done"
expect_line "harts/smp66/left_out_named" "$log" \
  "tsbi: WARNING: 2 hart(s) left out: hart IDs 64 and above exceed this build's FW_MAX_HARTS; left out: 64 65[[:space:]]*$"
expect_eq "harts/smp66/only_served_harts_offered" "$log" 63 "$(val "$log" secondaries)" "HSM-started secondaries"
expect_no_line "harts/smp66/no_start_failed" "$log" "^BOOTCOST done" "start_failed"
expect_eq "harts/smp66/left_out_disabled_in_tree" "$log" 2 "$(val "$log" disabled_cpus)" "cpu nodes with status \"disabled\""
expect_eq "harts/smp64/none_disabled_in_tree" "$out/smp64.log" 0 "$(val "$out/smp64.log" disabled_cpus)" "cpu nodes with status \"disabled\""

# Memory by the harts present: the firmware's region (the mmode_resv node the
# probe reads from the tree it was handed) is the image plus what cold boot
# carves for the tree's harts (firmware/core/README.md "Firmware memory"):
# at most 256 KiB with 1 and 8 harts, and at 64 harts room for 64 stacks
# after the image (_fw_end).
region_le() { # NAME LOG MAX
  local r; r=$(val "$2" reserved)
  if [ -n "$r" ] && [ "$r" -le "$3" ]; then pass "$1"
  else fail_log "$1" "$2" "expected a reserved firmware region of at most $3 bytes, got '${r:-none}'"; fi
}
for n in 1 8; do
  log=$out/smp$n.log; boot "$n" "$log"
  expect_line "harts/smp$n/probe_done" "$log" "^BOOTCOST done"
  region_le "harts/smp$n/region_at_most_256KiB" "$log" 262144
done
fw_end=$((0x$(riscv64-linux-gnu-nm build/fw/tsbi_dynamic.elf | awk '$3 == "_fw_end" {print $1}') - 0x80000000))
r64=$(val "$out/smp64.log" reserved)
if [ -n "$r64" ] && [ "$r64" -ge $((fw_end + 64 * 4096)) ]; then pass "harts/smp64/region_holds_64_stacks"
else fail_log "harts/smp64/region_holds_64_stacks" "$out/smp64.log" \
  "expected a reserved region of at least $((fw_end + 64 * 4096)) bytes (image to _fw_end, 64 x 4 KiB stacks), got '${r64:-none}'"; fi
