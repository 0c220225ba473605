#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Instructions retired per SBI call (QEMU -icount shift=0, 1 hart) for this
# firmware and Debian's OpenSBI 1.1 side by side, and both firmware sizes.
# The bench payload (tests/payloads/bench) runs each call 2000 times between
# two rdinstret reads; "per call" includes the S-mode loop around the ecall
# (as in reference/peers.md), "net" subtracts an empty loop. instret counts
# every privilege mode, so the M-mode path of each call is inside both.
. "$(dirname "$0")/../lib.sh"
build firmware payloads
OPENSBI=/usr/lib/riscv64-linux-gnu/opensbi/generic
out=build/test-logs/bench-sbi; mkdir -p "$out"
for fw in ours opensbi; do
  if tests/payloads/run.py --fw "$fw" --icount --smp 1 --tag "bench-$fw" \
       --pass-through "BENCH" bench > "$out/$fw.txt"; then
    pass "bench/sbi/$fw/ran"
  else
    grep '^FAIL' "$out/$fw.txt"; fail "bench/sbi/$fw/ran"
  fi
done
python3 tests/bench/sbi_table.py "$out/ours.txt" "$out/opensbi.txt" \
  "Instructions per SBI call (QEMU 7.2 -icount shift=0)" "OpenSBI 1.1"
echo
echo "Firmware size (riscv64-linux-gnu-size, bytes):"
printf '%-34s %9s %9s %9s\n' image text data bss
for elf in build/fw/tsbi_dynamic.elf build/fw/tsbi_jump.elf $OPENSBI/fw_dynamic.elf $OPENSBI/fw_jump.elf; do
  if [ -f "$elf" ]; then
    riscv64-linux-gnu-size "$elf" | awk -v n="$elf" 'NR==2 {printf "%-34s %9s %9s %9s\n", (n ~ /opensbi/ ? "opensbi-1.1/" : "tsbi/") substr(n, match(n, /[^\/]*$/)), $1, $2, $3}'
  else
    fail "bench/size/$(basename "$elf") missing"
  fi
done
