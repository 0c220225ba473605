#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# RV32 (issue 16): the RV32 images (build/fw-generic-rv32) and the S-mode
# payloads built for RV32 from the same sources (build/payloads-rv32) on
# QEMU 7.2's qemu-system-riscv32 virt, 1 and 4 harts, with the variants that
# select other firmware paths (no Sstc, no H, fw_jump), the traps payload,
# then the same payloads against Debian trixie's OpenSBI 1.6 RV32 (the RV32
# peer: PEER lines, never counted; its differences in
# tests/payloads/known-differences/opensbi-1.6-rv32.txt are marked "known"),
# and a run on the project's QEMU 10
# (its riscv32-softmmu target).
. "$(dirname "$0")/../lib.sh"
build firmware FW_XLEN=32
build payloads traps-payload pmu-payloads PL_XLEN=32
build PL_XLEN=32 build/ctr/pl-rv32/ctr_csr_ratified.elf build/ctr/pl-rv32/ctr_csr_draft.elf \
  build/ctr/pl-rv32/ctr_csr_both.elf build/ctr/pl-rv32/ctr_follow.elf
build firmware payloads
ALL="base time ipi rfence hsm dbcn legacy srst fwft susp dbtr sse reboot"
KNOWN=tests/payloads/known-differences/opensbi-1.6-rv32.txt
# The runs of this firmware also check every hart's M-mode stack kept a
# margin (run.py --stack-report: case <payload>/stack_margin).
STACKS=build/test-logs/stacks-23-rv32.txt; rm -f "$STACKS"
run() {
  tests/payloads/run.py --xlen 32 --timeout "${TSBI_PAYLOAD_TIMEOUT:-15}" "$@"
  local rc=$?
  [ $rc -le 1 ] || fail "payload-runner ($*) exited $rc"
}
for smp in 1 4; do run --fw ours --smp $smp --tag rv32-ours-smp$smp --stack-report "$STACKS" $ALL; done
run --fw ours --smp 2 --cpu sstc=false --tag rv32-ours-smp2-nosstc time hsm
run --fw ours --smp 2 --cpu h=false --tag rv32-ours-smp2-noh rfence
run --fw ours-jump --smp 4 --tag rv32-ours-jump-smp4 base hsm reboot
run --fw ours --smp 1 --tag rv32-ours-traps --stack-report "$STACKS" build/traps-rv32/traps.elf
run --fw ours --smp 1 --cpu sscofpmf=true --tag rv32-ours-traps-sscofpmf --stack-report "$STACKS" build/traps-rv32/traps.elf
# RAM above 4 GiB (-m 5G): RV32 S-mode can name it with base_addr_hi, the
# firmware cannot reach it and must refuse it (dbcn.cpp above_4g); RV64 for
# comparison (there the range across 4 GiB is plain RAM).
run --fw ours --smp 1 --mem 5G --tag rv32-ours-5g dbcn
tests/payloads/run.py --fw ours --smp 1 --mem 5G --tag rv64-ours-5g dbcn
[ $? -le 1 ] || fail "payload-runner (rv64 dbcn -m 5G) crashed"
# PMU (tests/pmu/payloads) on RV32: SET_INIT_VALUE and event data in two
# registers, counters with their h halves, counter_fw_read_hi, overflow (OF
# in mhpmeventNh with Sscofpmf). The overflow cases that race QEMU's overflow
# timer (armed on every half write) run under -icount, as in suite 25.
pmu() { run --timeout 60 --stack-report "$STACKS" "$@"; }
pmu --fw ours --tag rv32-pmu build/pmu-rv32/pmu.elf
pmu --fw ours --smp 4 --tag rv32-pmu-smp4 build/pmu-rv32/pmu.elf build/pmu-rv32/pmu_smp.elf
pmu --fw ours --cpu sscofpmf=true --icount --tag rv32-pmu-sscofpmf-icount build/pmu-rv32/pmu.elf
pmu --fw ours --smp 4 --cpu sscofpmf=true --tag rv32-pmu-sscofpmf-smp4 build/pmu-rv32/pmu_smp.elf
# CTR (emulated on QEMU 7.2) per profile given through the device tree: on
# RV32 the ratified sctrctl shows bits 31:0, the draft's upper half is
# sctrcontrolh/vsctrcontrolh (mctrcontrolh M-only), emulated on RV32 only.
mkdir -p build/ctr/dtb
for prof in ratified draft both; do
  dtb=build/ctr/dtb/rv32-q72-$prof.dtb log=build/test-logs/ctr-rv32-$prof.log
  if ! tests/ctr/mkdtb.sh qemu-system-riscv32 rv32 "$prof" "$dtb" 2>"$log"; then
    fail_log "rv32-ctr-$prof: device tree" "$log" "tests/ctr/mkdtb.sh failed"; continue
  fi
  : >"$log"
  # ctr_follow: entry accesses in a row, served in one trap (32-bit words).
  run --fw ours --qemu-arg=-dtb --qemu-arg="$dtb" --tag rv32-ctr-$prof --log "$log" --stack-report "$STACKS" \
    build/ctr/pl-rv32/ctr_csr_$prof.elf $([ "$prof" = ratified ] && echo build/ctr/pl-rv32/ctr_follow.elf)
  expect_line "rv32-ctr-$prof/ctr_mode_emulated" "$log" "tsbi: ctr: hart 0: emulated"
done
# The project QEMU 10's riscv32-softmmu (built with the riscv64 one).
if q=$(scripts/qemu10.sh path32); then
  QEMU=$q run --fw ours --smp 4 --tag rv32-ours-qemu10-smp4 $ALL
  # -cpu max with Smdbltrp (mstatush.MDT on RV32; firmware/core/README.md):
  # the firmware's expected traps are no double traps, S-mode reads seed.
  QEMU=$q run --fw ours --smp 2 --cpu-model max --cpu smdbltrp=true \
    --tag rv32-ours-qemu10-max-smdbltrp-smp2 base legacy hsm fwft build/traps-rv32/traps.elf
else
  fail "rv32/qemu10 (scripts/qemu10.sh path32 failed)"
fi
# The peer on 4 harts: PEER lines, never counted; a peer that cannot be
# fetched is a row of the peer table too.
if ! scripts/opensbi.sh path 1.6 32 >/dev/null; then
  echo "PEER: rv32-opensbi-1.6-smp4/fetch crash scripts/opensbi.sh path 1.6 32 failed"
else
  run --fw opensbi --smp 4 --tag rv32-opensbi-1.6-smp4 --known "$KNOWN" $ALL
fi
stack_summary "$STACKS"
exit 0
