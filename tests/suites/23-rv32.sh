#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# RV32 (issue 16): the RV32 images (build/fw-qemu_virt-rv32) and the S-mode
# payloads built for RV32 from the same sources (build/payloads-rv32) on
# QEMU 7.2's qemu-system-riscv32 virt, 1 and 4 harts, with the variants that
# select other firmware paths (no Sstc, no H, fw_jump), the traps payload,
# then the same payloads against Debian trixie's OpenSBI 1.6 RV32 (the RV32
# peer; its differences in tests/payloads/known-differences/opensbi-1.6-rv32.txt
# are printed as INFO and not counted). TSBI_QEMU10=1 adds a run on the
# project's QEMU 10 (its riscv32-softmmu target).
. "$(dirname "$0")/../lib.sh"
build firmware FW_XLEN=32
build payloads traps-payload PL_XLEN=32
ALL="base time ipi rfence hsm dbcn legacy srst fwft susp reboot"
KNOWN=tests/payloads/known-differences/opensbi-1.6-rv32.txt
run() {
  tests/payloads/run.py --xlen 32 --timeout "${TSBI_PAYLOAD_TIMEOUT:-15}" "$@"
  local rc=$?
  [ $rc -le 1 ] || fail "payload-runner ($*) exited $rc"
}
for smp in 1 4; do run --fw ours --smp $smp --tag rv32-ours-smp$smp $ALL; done
run --fw ours --smp 2 --cpu sstc=false --tag rv32-ours-smp2-nosstc time hsm
run --fw ours --smp 2 --cpu h=false --tag rv32-ours-smp2-noh rfence
run --fw ours-jump --smp 4 --tag rv32-ours-jump-smp4 base hsm reboot
run --fw ours --smp 1 --tag rv32-ours-traps build/traps-rv32/traps.elf
run --fw ours --smp 1 --cpu sscofpmf=true --tag rv32-ours-traps-sscofpmf build/traps-rv32/traps.elf
if [ -n "${TSBI_QEMU10:-}" ]; then
  if q=$(scripts/qemu10.sh path 32); then
    QEMU=$q run --fw ours --smp 4 --tag rv32-ours-qemu10-smp4 $ALL
  else
    fail "rv32/qemu10 (scripts/qemu10.sh path 32 failed)"
  fi
fi
if ! scripts/opensbi.sh path 1.6 32 >/dev/null; then
  fail "rv32/opensbi-1.6 (scripts/opensbi.sh path 1.6 32 failed)"
else
  for smp in 1 4; do
    run --fw opensbi --smp $smp --tag rv32-opensbi-1.6-smp$smp --known "$KNOWN" $ALL
  done
fi
exit 0
