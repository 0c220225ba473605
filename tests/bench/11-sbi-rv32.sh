#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The RV32 counterpart of 10-sbi.sh: instructions retired per SBI call on
# qemu-system-riscv32 (QEMU 7.2, -icount shift=0, 1 hart) for this
# firmware's RV32 image and Debian trixie's OpenSBI 1.6 RV32 (the RV32 peer,
# scripts/opensbi.sh path 1.6 32), the same bench payload built for RV32,
# and both firmware sizes.
. "$(dirname "$0")/../lib.sh"
build firmware FW_XLEN=32
build payloads PL_XLEN=32
out=build/test-logs/bench-sbi-rv32; mkdir -p "$out"
for fw in ours opensbi; do
  if tests/payloads/run.py --xlen 32 --fw "$fw" --icount --smp 1 --tag "bench-rv32-$fw" \
       --pass-through "BENCH" bench > "$out/$fw.txt"; then
    pass "bench/sbi-rv32/$fw/ran"
  else
    grep '^FAIL' "$out/$fw.txt"; fail "bench/sbi-rv32/$fw/ran"
  fi
done
python3 tests/bench/sbi_table.py "$out/ours.txt" "$out/opensbi.txt" \
  "RV32: instructions per SBI call (QEMU 7.2 riscv32 -icount shift=0)" "OpenSBI 1.6"
echo
echo "RV32 firmware size (riscv64-linux-gnu-size, bytes):"
OPENSBI=$(dirname "$(scripts/opensbi.sh path 1.6 32)")
printf '%-34s %9s %9s %9s\n' image text data bss
for elf in build/fw-generic-rv32/tsbi_dynamic.elf build/fw-generic-rv32/tsbi_jump.elf \
           "$OPENSBI/fw_dynamic.elf" "$OPENSBI/fw_jump.elf"; do
  if [ -f "$elf" ]; then
    riscv64-linux-gnu-size "$elf" | awk -v n="$elf" 'NR==2 {printf "%-34s %9s %9s %9s\n", (n ~ /opensbi/ ? "opensbi-1.6-rv32/" : "tsbi-rv32/") substr(n, match(n, /[^\/]*$/)), $1, $2, $3}'
  else
    fail "bench/size-rv32/$(basename "$elf") missing"
  fi
done
