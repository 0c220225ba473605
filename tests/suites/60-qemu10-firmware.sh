#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The firmware's payload and Linux tests on the project QEMU 10 (issue 5,
# item 6): S-mode payloads (FWFT and the SBI fuzzer too) on harts with native CTR (Smctr/Ssctr/Smcsrind/
# Smstateen) and without, the PMU payloads, and Linux 6.12 booting on 4 harts
# with CTR enabled, and the Linux perf suite (perf stat and perf record).
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
. tests/linux/lib.sh

if ! q=$(scripts/qemu10.sh path); then
  fail "qemu10: scripts/qemu10.sh path failed (project QEMU 10 not built)"; exit 1
fi
build firmware payloads pmu-payloads
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
# Zicfiss, Ssdbltrp, Svadu, Smnpm pointer masking) and with the default CPU,
# and the SBI fuzzer on both, 1 and 4 harts.
FWFT_CPU=zimop=true,zcmop=true,zicfilp=true,zicfiss=true,smnpm=true,ssnpm=true,ssdbltrp=true,svadu=true
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

QEMU=$q
linux_prepare boot
n="linux qemu10 ctr smp4"
log=$LINUX_LOGS/boot-qemu10-ctr-smp4.log
linux_boot "$log" 120 4 "$FW_DYN" "tsbi.test=boot" -cpu "rv64,$CTR_CPU"; rc=$?
linux_check_ended "$n" "$log" "$rc"
linux_check_sbi "$n" "$log" 4

# The Linux perf tests (tests/suites/35-perf.sh) on this QEMU, names
# prefixed: the full perf run on 4 harts and 3 repeated boots (QEMU 7.2 runs
# 2 and 4 harts and 5 boots in suite 35; the 2-hart run adds no coverage
# here).
QEMU=$q PERF_SMPS=4 PERF_BOOTS=3 tests/suites/35-perf.sh 2>&1 | sed -E 's/^(PASS|FAIL): /\1: qemu10 /'
[ "${PIPESTATUS[0]}" = 0 ] || fail "qemu10 perf suite exited non-zero"
