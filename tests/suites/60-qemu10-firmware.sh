#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The firmware's payload and Linux tests on the project QEMU 10 (issue 5,
# item 6): S-mode payloads (FWFT and the SBI fuzzer too) on harts with native CTR (Smctr/Ssctr/Smcsrind/
# Smstateen) and without, the PMU payloads, every CPU model's M-mode enables
# and the boot without PMP (issue 26), Linux 6.12 booting on 4 harts with CTR
# enabled and on -cpu max and rva23s64, and the Linux perf suite (perf stat
# and perf record).
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
. tests/linux/lib.sh

if ! q=$(scripts/qemu10.sh path); then
  fail "qemu10: scripts/qemu10.sh path failed (project QEMU 10 not built)"; exit 1
fi
build firmware payloads pmu-payloads traps-payload
# /chosen/tsbi,require-pmp makes the missing PMP fatal: that boot ends only
# when `timeout` stops it after 10 s, so it starts here, in the background,
# and is checked after the payload runs.
d=build/test-logs/qemu10-require-pmp; mkdir -p "$d"; rm -f "$d/console.log" "$d/rc"
pmp_pid=
if "$q" -M virt,dumpdtb="$d/rva23s64.dtb" -cpu rva23s64 -smp 1 -m 256M -bios none -nographic \
     </dev/null >"$d/dtb.log" 2>&1 && fdtput -t s "$d/rva23s64.dtb" /chosen tsbi,require-pmp "" 2>>"$d/dtb.log"; then
  (timeout 10 "$q" -M virt -cpu rva23s64 -smp 1 -m 256M -nographic -dtb "$d/rva23s64.dtb" \
     -bios build/fw/tsbi_dynamic.bin -kernel build/payloads/base.elf </dev/null >"$d/console.log" 2>&1
   echo $? >"$d/rc") &
  pmp_pid=$!
fi
CTR_CPU=smctr=true,ssctr=true,smcsrind=true,smstateen=true,sscofpmf=true
PAYLOADS="base time ipi rfence hsm dbcn legacy srst fwft susp dbtr sse"
for cfg in "ctr:$CTR_CPU" "noctr:sscofpmf=true,smctr=false,ssctr=false"; do
  tag=${cfg%%:*}; cpu=${cfg#*:}
  tests/payloads/run.py --qemu "$q" --timeout 30 --fw ours --smp 4 --cpu "$cpu" \
    --tag "qemu10-$tag-smp4" $PAYLOADS
  [ $? -le 1 ] || fail "qemu10-$tag: payload runner failed"
done

# SUSP and DBTR (QEMU 10's trigger module) on one hart too.
tests/payloads/run.py --qemu "$q" --timeout 30 --fw ours --smp 1 --tag qemu10-smp1 susp dbtr
[ $? -le 1 ] || fail "qemu10-smp1: payload runner failed"

# FWFT with every feature QEMU 10 can back (misaligned delegation, Zicfilp,
# Zicfiss, Ssdbltrp, Svadu with Svade: PTE_AD_HW_UPDATING toggles only with
# both, Smnpm pointer masking) and with the default CPU, and the SBI fuzzer
# on both, 1 and 4 harts.
FWFT_CPU=zimop=true,zcmop=true,zicfilp=true,zicfiss=true,smnpm=true,ssnpm=true,ssdbltrp=true,svadu=true,svade=true
for smp in 1 4; do
  for cfg in "fwft:$FWFT_CPU" "default:"; do
    tag=${cfg%%:*}; cpu=${cfg#*:}
    tests/payloads/run.py --qemu "$q" --timeout 30 --fw ours --smp $smp ${cpu:+--cpu "$cpu"} \
      --tag "qemu10-$tag-smp$smp" fwft sse fuzz
    [ $? -le 1 ] || fail "qemu10-$tag-smp$smp: payload runner failed"
  done
done

# The PMU payloads, overflow interrupt included (needs the project QEMU's
# LCOFI fixes, hw_models/qemu/patches/0003-* and 0004-*), with and without CTR.
tests/payloads/run.py --qemu "$q" --timeout 60 --fw ours --smp 1 --cpu sscofpmf=true \
  --tag qemu10-smp1 build/pmu/pmu.elf
tests/payloads/run.py --qemu "$q" --timeout 60 --fw ours --smp 4 --cpu "$CTR_CPU" \
  --tag qemu10-ctr-smp4 build/pmu/pmu_smp.elf

# QEMU 10's T-Head C906 with its CPU node saying so: the image chooses the
# T-Head PMU overflow quirk at run time (boot log), and since QEMU models
# none of the C9xx PMU CSRs (target/riscv/th_csr.c has th.sxstatus only) the
# PMU service finds mcounterinten absent and keeps to the standard counters:
# the PMU payload passes whole (no Sscofpmf: filter flags are hints).
t=build/test-logs/qemu10-c906; mkdir -p "$t"; rm -f "$t/console.log"
"$q" -M virt,dumpdtb=$t/c906.dtb -bios none -cpu thead-c906 -smp 1 -m 256M -nographic </dev/null >/dev/null 2>&1
fdtput -t s $t/c906.dtb /cpus/cpu@0 compatible "thead,c906" "riscv" ||
  fail "qemu10-c906/device_tree: fdtput could not edit $t/c906.dtb"
tests/payloads/run.py --qemu "$q" --timeout 60 --fw ours --smp 1 --cpu-model thead-c906 \
  --no-payload-cpu --tag qemu10-c906 --qemu-arg=-dtb --qemu-arg=$t/c906.dtb --log "$t/console.log" \
  build/pmu/pmu.elf
[ $? -le 1 ] || fail "qemu10-c906: payload runner failed"
expect_line "qemu10-c906/thead_pmu_quirk_chosen" "$t/console.log" "^tsbi: vendor quirks: thead-c9xx-pmu$"

# Every CPU model (issue 26 item 2). -cpu max: the M-mode enables of the
# extensions S-mode uses (seed with mseccfg.SSEED, cbo.* with menvcfg,
# counter delegation with menvcfg.CDE: Smcdeleg/Ssccfg), and
# with Smdbltrp (which max leaves off: mstatus.MDT resets to 1) the firmware's
# own expected traps (probes, unprivileged accesses, emulation) are no double
# traps. The profile CPUs have no PMP: the firmware boots unprotected and
# says so (bootarg pmp=0 tells the base payload), and no mvendorid & co.
tests/payloads/run.py --qemu "$q" --timeout 30 --fw ours --smp 2 --cpu-model max \
  --tag qemu10-max-smp2 base
[ $? -le 1 ] || fail "qemu10-max: payload runner failed"
# The same base payload on OpenSBI 1.6 (PEER lines): its device tree keeps
# smcdeleg/ssccfg and its CDE makes the counter-delegation checks pass too.
if peer_fw=$(scripts/opensbi.sh path 1.6); then
  tests/payloads/run.py --qemu "$q" --timeout 30 --peer --fw "$peer_fw" --smp 2 --cpu-model max \
    --tag qemu10-max-opensbi-1.6-smp2 base
else
  echo "PEER: qemu10-max-opensbi-1.6/fetch crash scripts/opensbi.sh path 1.6 failed"
fi
# The SBI PMU beside counter delegation: -cpu max has Smcdeleg, so the
# firmware sets menvcfg.CDE and every counter is delegated (the base payload
# above reads and writes them through siselect/sireg*); the PMU payload
# passes as on rv64 (firmware/pmu/README.md "Counter delegation").
tests/payloads/run.py --qemu "$q" --timeout 60 --fw ours --smp 1 --cpu-model max \
  --known tests/payloads/known-differences/qemu10-max.txt --tag qemu10-max-smp1 build/pmu/pmu.elf
[ $? -le 1 ] || fail "qemu10-max-smp1: payload runner failed"
tests/payloads/run.py --qemu "$q" --timeout 30 --fw ours --smp 2 --cpu-model max --cpu smdbltrp=true \
  --tag qemu10-max-smdbltrp-smp2 base legacy hsm fwft build/traps/traps.elf
[ $? -le 1 ] || fail "qemu10-max-smdbltrp: payload runner failed"
tests/payloads/run.py --qemu "$q" --timeout 30 --fw ours --smp 2 --cpu-model rva23s64 --no-payload-cpu \
  --known tests/payloads/known-differences/qemu10-profile-cpus.txt --qemu-arg=-append --qemu-arg=pmp=0 \
  --tag qemu10-rva23s64-smp2 base hsm
[ $? -le 1 ] || fail "qemu10-rva23s64: payload runner failed"
# The boot with /chosen/tsbi,require-pmp (started above).
if [ -n "$pmp_pid" ]; then
  wait "$pmp_pid"
  rc=$(cat "$d/rc" 2>/dev/null)
  fatal="tsbi: fatal: fewer than two PMP entries.*tsbi,require-pmp"
  expect_line "qemu10-rva23s64/require_pmp/says_why" "$d/console.log" "$fatal"
  # Stopped: QEMU still running when timeout killed it (124), not reset or
  # powered off; only evidence once the firmware said why it stops.
  if ! has_line "$d/console.log" "$fatal"; then
    fail_log "qemu10-rva23s64/require_pmp/stops" "$d/console.log" "the firmware did not say why (no '$fatal'), so its stop proves nothing"
  else
    expect_eq "qemu10-rva23s64/require_pmp/stops" "$d/console.log" 124 "$rc" "exit status (timeout's 124: QEMU still running after 10 s)"
  fi
  expect_no_line "qemu10-rva23s64/require_pmp/no_payload_ran" "$d/console.log" "^tsbi: " TSBI-START
else
  fail_log "qemu10-rva23s64/require_pmp: cannot make the device tree" "$d/dtb.log"
fi

QEMU=$q
linux_prepare boot
n="linux qemu10 ctr smp4"
log=$LINUX_LOGS/boot-qemu10-ctr-smp4.log
linux_boot "$log" 120 4 "$FW_DYN" "tsbi.test=boot" -cpu "rv64,$CTR_CPU"; rc=$?
linux_check_ended "$n" "$log" "$rc"
linux_check_sbi "$n" "$log" 4

# Debian's kernel on -cpu max (reads seed in random_init_early: an Oops
# before the firmware set mseccfg.SSEED) and on the RVA23 profile CPU (no
# PMP), 2 harts each (issue 26).
for cpu in max rva23s64; do
  n="linux qemu10 $cpu smp2"
  log=$LINUX_LOGS/boot-qemu10-$cpu-smp2.log
  linux_boot "$log" 120 2 "$FW_DYN" "tsbi.test=boot" -cpu "$cpu"; rc=$?
  linux_check_ended "$n" "$log" "$rc"
  linux_check_grep "$n: all 2 CPUs online" "$log" "smp: Brought up 1 node, 2 CPUs"
done
linux_check_grep "linux qemu10 rva23s64 smp2: firmware warns it is unprotected" \
  "$LINUX_LOGS/boot-qemu10-rva23s64-smp2.log" "^tsbi: WARNING: 0 PMP entries: the firmware is unprotected from S-mode"
# An absence, so only once the firmware ran: its banner line.
expect_no_line "linux qemu10 max smp2: no unprotected warning with PMP" \
  "$LINUX_LOGS/boot-qemu10-max-smp2.log" "^tsbi: " "unprotected"

# The Linux perf tests (tests/suites/35-perf.sh) on this QEMU, names
# prefixed: the full perf run on 4 harts and 3 repeated boots (QEMU 7.2 runs
# 2 and 4 harts and 5 boots in suite 35; the 2-hart run adds no coverage
# here).
QEMU=$q PERF_SMPS=4 PERF_BOOTS=3 tests/suites/35-perf.sh 2>&1 | sed -E 's/^(PASS|FAIL): /\1: qemu10 /'
[ "${PIPESTATUS[0]}" = 0 ] || fail "qemu10 perf suite exited non-zero"
