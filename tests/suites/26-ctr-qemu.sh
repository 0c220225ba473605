#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# CTR from S-mode under QEMU: the same CSR-level payload (tests/ctr/payloads/
# ctr_csr.cpp, built per profile) on
#   q72      QEMU 7.2, no CTR, no Sscsrind              -> emulated
#   q10      QEMU 10 without CTR                        -> emulated
#   q10ind   QEMU 10 with Sscsrind/Smstateen, no CTR    -> emulated, real siselect
#   q10ctr   QEMU 10 with Smctr/Ssctr                   -> native (+ draft translation)
# for each profile (ratified, draft, both) given to the firmware through the
# device tree; then the recording payloads. Every configuration must also boot
# in the expected CTR mode (the firmware's boot line says which).
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
build firmware ctr-payloads
Q72=$(command -v qemu-system-riscv64) || { fail "qemu 7.2 (qemu-system-riscv64) not installed"; exit 1; }
# CTR_QEMU10: another QEMU 10 binary (development; the suite builds its own).
Q10=${CTR_QEMU10:-$(scripts/qemu10.sh path 2>build/test-logs/ctr-qemu10.log)} || {
  fail_log "project QEMU 10" build/test-logs/ctr-qemu10.log "scripts/qemu10.sh path failed"; exit 1; }
FW=${CTR_FW:-build/fw/tsbi_dynamic.bin} # CTR_FW: another build to check
D=build/ctr/dtb; mkdir -p "$D"
CTR_CPU=smctr=true,ssctr=true,smcsrind=true,smstateen=true,sscofpmf=true
IND_CPU=smcsrind=true,smstateen=true,sscofpmf=true

# ctr_mode NAME LOG MODE: the firmware's boot line says hart 0's CTR is MODE.
ctr_mode() {
  if has_line "$2" "tsbi: ctr: hart 0: $3"; then pass "$1"
  else fail_log "$1" "$2" "expected 'tsbi: ctr: hart 0: $3', got '$(grep -a -m1 'tsbi: ctr:' "$2" | tr -d '\r')'"; fi
}

# [SRC=...] [DTB_EXTRA="-t s /chosen NAME VALUE"] run TAG QEMU CPU-EXTRAS PROFILE EXPECT-MODE ELF...
# SRC: the end of the boot line, where records come from (issue 30 item 3);
# DTB_EXTRA: one more property for the device tree (fdtput arguments).
run() {
  local tag=$1 q=$2 cpu=$3 prof=$4 mode=$5; shift 5
  local dtb=$D/$tag-$prof.dtb log=build/test-logs/ctr-$tag-$prof.log
  if ! tests/ctr/mkdtb.sh "$q" "rv64${cpu:+,$cpu}" "$prof" "$dtb" 2>"$log"; then
    fail_log "$tag-$prof: device tree" "$log" "tests/ctr/mkdtb.sh failed"; return
  fi
  if [ -n "${DTB_EXTRA:-}" ]; then
    local extra=($DTB_EXTRA)
    fdtput "${extra[@]:0:2}" "$dtb" "${extra[@]:2}" 2>"$log" || { cat "$log"; fail "$tag-$prof: fdtput"; return; }
  fi
  : >"$log"
  python3 tests/payloads/run.py --qemu "$q" ${cpu:+--cpu "$cpu"} --qemu-arg=-dtb --qemu-arg="$dtb" \
    --fw "$FW" --tag "$tag-$prof" --log "$log" --timeout 20 "$@"
  ctr_mode "$tag-$prof/ctr_mode_$mode" "$log" "$mode"
  [ -n "${SRC:-}" ] || return 0
  if tr -d '\r' <"$log" | grep -aq "^tsbi: ctr: hart 0: $mode.*, $SRC\$"; then pass "$tag-$prof/ctr_source ($SRC)"
  else fail_log "$tag-$prof/ctr_source" "$log" "expected the boot line to end in '$SRC'"; fi
}
# Where the records come from, as the boot line says (the device tree's
# tsbi,ctr-source is checked by ctr_rec.elf).
NOREC="registers only, no recording" FEED="records from the N-Trace encoder"

for prof in ratified draft both; do
  SRC=$NOREC run q72 "$Q72" "" "$prof" emulated build/ctr/pl/ctr_csr_$prof.elf
  SRC=$FEED run q10 "$Q10" "" "$prof" emulated build/ctr/pl/ctr_csr_$prof.elf
  SRC=$FEED run q10ind "$Q10" "$IND_CPU" "$prof" emulated build/ctr/pl/ctr_csr_$prof.elf
  run q10ctr "$Q10" "$CTR_CPU" "$prof" native build/ctr/pl/ctr_csr_$prof.elf
done

# Recording: with real CTR (branches, calls, returns, filters, RASEMU, traps,
# freeze), and what both kinds of hart show alike (traps the firmware
# redirects, BPFRZ, the Linux driver's sequence, the device tree, HSM suspend).
# ctr_follow.elf: entry accesses in a row, which an emulated hart serves in
# one trap (firmware/ctr README "Entry accesses in one trap"), give what
# each gives alone; on the Sscsrind hart (q10ind) the row's first sireg read
# is the one that traps.
run q10ctr "$Q10" "$CTR_CPU" ratified native build/ctr/pl/ctr_rec_native.elf build/ctr/pl/ctr_rec.elf \
  build/ctr/pl/ctr_susp.elf build/ctr/pl/ctr_follow.elf
SRC=$NOREC run q72 "$Q72" "" ratified emulated build/ctr/pl/ctr_rec.elf build/ctr/pl/ctr_susp.elf \
  build/ctr/pl/ctr_follow.elf
SRC=$FEED run q10 "$Q10" "" ratified emulated build/ctr/pl/ctr_rec.elf build/ctr/pl/ctr_susp.elf \
  build/ctr/pl/ctr_follow.elf
SRC=$FEED run q10ind "$Q10" "$IND_CPU" ratified emulated build/ctr/pl/ctr_follow.elf
# No recording source, and /chosen/tsbi,ctr-registers-only: the registers are
# advertised all the same (the CSR payload, which needs no records).
SRC=$NOREC DTB_EXTRA="-t s /chosen tsbi,ctr-registers-only yes" \
  run q72regs "$Q72" "" ratified emulated build/ctr/pl/ctr_csr_ratified.elf
expect_line "q72regs/registers-only advertised" build/test-logs/ctr-q72regs-ratified.log \
  "tsbi: ctr: no recording source: ssctr/sscsrind advertised for the registers alone"
# On the emulated harts (q72, q10) ctr_rec's redirect/* checks fail unless the
# core's trap redirect reaches CTR: the record of the redirected trap is made
# only there.

# LCOFIFRZ: an SBI PMU counter overflows, the LCOFI traps to S-mode and
# freezes CTR (tests/ctr/payloads/ctr_lcofifrz.cpp), natively and through the
# firmware's M-mode routing on emulated harts.
# On QEMU 10 this needs the project QEMU's LCOFI fixes
# (hw_models/qemu/patches/0003-*, 0004-target-riscv-lcofie-in-mie.patch).
run q72pmu "$Q72" sscofpmf=true ratified emulated build/ctr/pl/ctr_lcofifrz.elf
run q10pmu "$Q10" sscofpmf=true,smctr=false,ssctr=false ratified emulated \
  build/ctr/pl/ctr_lcofifrz.elf
run q10ctr "$Q10" "$CTR_CPU" ratified native build/ctr/pl/ctr_lcofifrz.elf
