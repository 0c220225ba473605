#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Many harts (issue 29). The boot-cost probe (tests/bench/bootcost) on a
# 64-hart QEMU virt: it asks HSM about every hart ID below 4096, starts each
# one that exists, waits for its IPI and for it to stop again (QEMU 7.2,
# -icount: the harts take turns, so no run depends on the host's speed).
# Then the harts payload (tests/payloads/harts.cpp) on 64, 65, 128 and 512
# harts, RV64 and RV32: every hart started and stopped through HSM, IPIs and
# remote fences to the highest hart and across the word boundary of the
# firmware's hart bitmaps (harts 63 and 64; 31 and 32 on RV32), a PMU
# firmware counter on the last hart. Without -icount: in QEMU's round-robin
# icount mode a spinning waiter keeps the CPU for up to 2^31 instructions
# before the hart it waits for runs, so the payload's waits time out; its
# checks do not depend on timing. On RV64 the per-hart memory of about 260
# harts fits below a next stage at +2 MiB: at 512 it goes to the harts'
# region at the top of RAM (firmware/core/README.md "Harts and their
# memory"), reserved no-map in the tree and closed by its own PMP entry
# (the payload's loads from it fault). A device tree with sparse hart IDs
# (0, 1, 64, 127: the others disabled in QEMU 7.2's dense numbering) and a
# hart with ID 5000 (left out, named) runs the harts and ipi payloads too.
# Then real sparse hart IDs up to 4095 on the project's QEMU 10 (virt's
# hartid-bases, hw_models/qemu patch 0012): the payloads on RV64 and RV32,
# and Linux on harts 0 and 4095.
. "$(dirname "$0")/../lib.sh"
build firmware bootcost payloads
build firmware payloads FW_XLEN=32 PL_XLEN=32
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

# The harts payload. harts_run TAG LOG [run.py args...]
harts_run() {
  local tag=$1 log=$2; shift 2
  rm -f "$log"
  tests/payloads/run.py --timeout 300 --tag "$tag" --log "$log" "$@" ${HARTS_PAYLOADS:-harts}
}
for n in 64 65 128; do
  harts_run "harts-smp$n" "$out/harts-smp$n.log" --smp $n --qemu-arg=-append --qemu-arg="harts=$n"
  expect_no_line "harts/smp$n/none_left_out" "$out/harts-smp$n.log" "TSBI-DONE" "left out"
done
# 512 harts on RV32: every hart fits below the next stage (+4 MiB).
harts_run "harts-rv32-smp512" "$out/harts-rv32-smp512.log" --xlen 32 --smp 512 \
  --qemu-arg=-append --qemu-arg="harts=512"
expect_no_line "harts/rv32-smp512/none_left_out" "$out/harts-rv32-smp512.log" "TSBI-DONE" "left out"
# 512 harts on RV64: every hart served, its stack and state in the harts'
# region (4 MiB at the top of the 256 MiB of RAM, below the tree QEMU puts
# in the last 2 MiB), which the payload finds reserved no-map and closed.
log=$out/harts-smp512.log
harts_run "harts-smp512" "$log" --smp 512 --qemu-arg=-append --qemu-arg="harts=512"
expect_no_line "harts/smp512/none_left_out" "$log" "TSBI-DONE" "left out"
expect_line "harts/smp512/served_in_banner" "$log" "tsbi: SBI firmware .* 512 hart(s)"
expect_line "harts/smp512/harts_region_in_banner" "$log" \
  "tsbi: the harts' stacks and state at 0x8f800000-0x8fc00000 (reserved, PMP-protected)"
expect_line "harts/smp512/two_reserved_regions" "$log" "INFO: harts/harts .*2 reserved no-map regions"
expect_line "harts/smp512/harts_region_closed" "$log" "PASS: harts/reserved/0x8fbffff8/load_faults"
# With 64 MiB of RAM the harts' region has no room above the next stage's
# first 64 MiB: the harts whose memory fits after the image are served (the
# lowest IDs), the others named and disabled in the tree.
log=$out/harts-smp512-64M.log
harts_run "harts-smp512-64M" "$log" --smp 512 --mem 64M
fit=$(grep -a "per-hart memory of [0-9]* harts fits below the next stage" "$log" | sed 's/.*memory of \([0-9]*\) harts.*/\1/' | head -1)
expect_line "harts/smp512-64M/left_out_named" "$log" \
  "tsbi: WARNING: $((512 - ${fit:-0})) hart(s) left out: .*; left out: ${fit:-x} $((${fit:-0} + 1)) "
expect_line "harts/smp512-64M/payload_sees_the_served" "$log" "INFO: harts/harts ${fit:-x} harts, highest hart ID $((${fit:-0} - 1)),"
# A floor, not the count: what fits in the 2 MiB below the next stage is
# the image's end and about 7.2 KiB a hart (its stack, its blocks and the
# subsystems' per-hart state: firmware/core/README.md "Harts and their
# memory"), 254 on 2026-11-28 (258 before CTR's feed state and the AIA
# drivers grew both).
if [ -n "$fit" ] && [ "$fit" -ge 250 ]; then pass "harts/smp512-64M/at_least_250_fit ($fit)"
else fail_log "harts/smp512-64M/at_least_250_fit" "$log" "expected the memory of at least 250 harts to fit, got '${fit:-none}'"; fi

# Sparse hart IDs: QEMU virt's 128-hart tree with harts 0, 1, 64 and 127
# enabled (table mode of core/hartmap.hpp), and cpu@2 renamed hart 5000
# (above FW_HARTID_LIMIT: named, left out; QEMU's hart 2 is parked).
dtb=$out/sparse.dtb
qemu-system-riscv64 -M virt,dumpdtb="$dtb" -smp 128 -m 256M -nographic >/dev/null 2>&1
for i in $(seq 3 126); do [ "$i" = 64 ] || echo "/cpus/cpu@$i"; done | xargs -I{} fdtput -t s "$dtb" {} status disabled
fdtput -t i "$dtb" /cpus/cpu@2 reg 5000
log=$out/harts-sparse.log
HARTS_PAYLOADS="harts ipi" harts_run "harts-sparse" "$log" --smp 128 --qemu-arg=-dtb --qemu-arg="$dtb" \
  --qemu-arg=-append --qemu-arg="harts=4"
expect_line "harts/sparse/ids_0_1_64_127" "$log" "INFO: harts/harts 4 harts, highest hart ID 127,"
expect_line "harts/sparse/hole_is_invalid" "$log" "PASS: harts/hole/hart_get_status"
expect_line "harts/sparse/id_5000_left_out_named" "$log" "tsbi: WARNING: 1 hart(s) left out: .*; left out: 5000[[:space:]]*$"

# Real sparse hart IDs: the project's QEMU 10 gives each NUMA socket's harts
# the hart IDs hartid-bases names (hw_models/qemu/README.md "Sparse hart
# IDs"), so mhartid, the cpu nodes, the CLINTs, PLICs and trace encoders'
# cpus all carry them. Three sockets: harts 0 and 1, the XLEN word boundary
# (63 and 64; 31 and 32 on RV32), 4094 and 4095. The harts payload on both
# XLENs, the ipi payload on RV64 (its storm of six harts is the slow part),
# with the trace components kept by the firmware (tsbi,trace-owner =
# "m-mode"), so the trace service runs on harts 4094 and 4095 too.
if q=$(scripts/qemu10.sh path) && q32=$(scripts/qemu10.sh path32); then
  mapfile -t numa < <(numa_args 128M:0-1 64M:2-3 64M:4-5)
  for x in 64 32; do
    lo=$((x - 1)) log=$out/harts-ids4095-rv$x.log
    QEMU=$([ $x = 64 ] && echo "$q" || echo "$q32") HARTS_PAYLOADS="harts$([ $x = 64 ] && echo " ipi")" \
      harts_run "harts-ids4095-rv$x" "$log" --xlen $x --smp 6 --machine "virt,hartid-bases=0:$lo:4094" \
      "${numa[@]}" --chosen tsbi,trace-owner=m-mode --qemu-arg=-append --qemu-arg=harts=6
    expect_line "harts/ids4095/rv$x/highest_4095" "$log" "INFO: harts/harts 6 harts, highest hart ID 4095, boot hart 0"
    expect_line "harts/ids4095/rv$x/hart_4095_started" "$log" "INFO: harts/highest .*hart 4095 of 6"
    expect_line "harts/ids4095/rv$x/word_boundary_$lo" "$log" "^PASS: harts/boundary/ipi/delivered"
    expect_line "harts/ids4095/rv$x/trace_4094_4095" "$log" "INFO: harts/harts .*trace of harts 4094 and 4095: [1-9]"
    if [ $x = 64 ]; then
      expect_line "harts/ids4095/rv$x/ipi_from_4095" "$log" "^PASS: ipi/from_hart4095/to_hart4095/delivered"
    fi
  done
  # The property's own checks: overlapping sockets are refused.
  r=$(timeout 60 "$q" -M virt,hartid-bases=5:5,dumpdtb="$out/overlap.dtb" -smp 2 -m 256M \
      -object memory-backend-ram,id=a,size=128M -object memory-backend-ram,id=b,size=128M \
      -numa node,memdev=a,cpus=0 -numa node,memdev=b,cpus=1 -nographic -bios none </dev/null 2>&1 | head -3)
  case $r in *"hart IDs of socket0 and socket1 overlap"*) pass "harts/ids4095/overlap_refused" ;;
             *) fail "harts/ids4095/overlap_refused: expected QEMU to refuse hartid-bases=5:5, got '$r'" ;; esac
else
  fail "harts/ids4095 (scripts/qemu10.sh path/path32 failed)"
fi

# The project's QEMU 10 (TSBI_QEMU10=1, as suite 20): one run across the
# word boundary.
if [ -n "${TSBI_QEMU10:-}" ]; then
  if q=$(scripts/qemu10.sh path); then
    QEMU=$q harts_run "harts-qemu10-smp65" "$out/harts-qemu10-smp65.log" --smp 65 --qemu-arg=-append --qemu-arg="harts=65"
  else
    fail "harts/qemu10 (scripts/qemu10.sh path failed)"
  fi
fi

# Linux (Debian's kernel, tests/linux) on real sparse hart IDs: two NUMA
# sockets, one hart each, hart IDs 0 and 4095 (the project's QEMU 10, as
# above). tsbi.test=harts: every CPU online, the guest's /proc/cpuinfo hart
# IDs, a task on each CPU, CPU 1 (hart 4095) offline and back through HSM.
# Last in this suite: linux_prepare exits when it cannot fetch the kernel.
. tests/linux/lib.sh
if q=$(scripts/qemu10.sh path); then
  QEMU=$q
  linux_prepare boot
  n="harts/ids4095/linux"
  log=$LINUX_LOGS/harts-ids4095.log
  linux_boot "$log" 120 2 "$FW_DYN" "tsbi.test=harts" -M virt,hartid-bases=0:4095 \
    -object memory-backend-ram,id=m0,size=256M -object memory-backend-ram,id=m1,size=256M \
    -numa node,memdev=m0,cpus=0 -numa node,memdev=m1,cpus=1; rc=$?
  linux_check_ended "$n" "$log" "$rc"
  linux_expect_result "$n: guest sees CPUs 0-1 online" "$log" cpus_online 0-1
  linux_expect_result "$n: CPUs 0 and 1 are harts 0 and 4095" "$log" hartids 0,4095
  linux_expect_result "$n: a task ran on each of 2 CPUs" "$log" taskset_cpus 2
  linux_expect_result "$n: CPU 1 (hart 4095) offline and back through HSM" "$log" hotplug_last ok
else
  fail "harts/ids4095/linux (scripts/qemu10.sh path failed)"
fi
