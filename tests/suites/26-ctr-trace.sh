#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# CTR records from the hart's N-Trace encoder (issue 12, firmware/ctr README
# "CTR from the encoder") on the project QEMU 10:
#   - tests/ctr/payloads/ctr_rec_cmp.cpp prints the entries of its recording
#     scenarios (calls, returns, jumps, taken and not-taken branches, the
#     compressed forms, co-routine swaps, compiled code, traps and trap
#     returns, filters, RASEMU, depth wrap, BPFRZ freeze); the same program
#     on QEMU 10 without smctr (the firmware decodes the encoder) and on QEMU
#     10 with native smctr must give the same entries, compared entry by
#     entry (source, target, type, order; CC is not compared);
#   - ctr_rec_native.elf (the native recording checks) passes on the
#     encoder-fed hart too;
#   - ctr_long.elf: 10^6 transfers read the way Linux does, across buffer
#     wrap and lost data, and the SBI trace service refused while the feed
#     holds the sink;
#   - with 2 harts (the stream then has a SRC field) the records are the same.
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
build firmware ctr-payloads
Q10=${CTR_QEMU10:-$(scripts/qemu10.sh path 2>build/test-logs/ctr-trace-qemu10.log)} || {
  cat build/test-logs/ctr-trace-qemu10.log; fail "project QEMU 10 (scripts/qemu10.sh path)"; exit 1; }
FW=build/fw/tsbi_dynamic.bin
D=build/ctr/trace; rm -rf "$D"; mkdir -p "$D"
CTR_CPU=smctr=true,ssctr=true,smcsrind=true,smstateen=true,sscofpmf=true

# run TAG CPU-EXTRAS EXPECT-MODE SMP ELF...
run() {
  local tag=$1 cpu=$2 mode=$3 smp=$4; shift 4
  local dtb=$D/$tag.dtb log=$D/$tag.log
  if ! tests/ctr/mkdtb.sh "$Q10" "rv64${cpu:+,$cpu}" ratified "$dtb" 2>"$log"; then
    cat "$log"; fail "$tag: device tree"; return 1
  fi
  : >"$log"
  python3 tests/payloads/run.py --qemu "$Q10" ${cpu:+--cpu "$cpu"} --smp "$smp" --qemu-arg=-dtb \
    --qemu-arg="$dtb" --fw "$FW" --tag "$tag" --log "$log" --timeout 240 "$@"
  if grep -q "tsbi: ctr: hart 0: $mode" "$log"; then pass "$tag/ctr_mode_$mode"
  else fail "$tag/ctr_mode_$mode [$(grep -m1 'tsbi: ctr:' "$log")]"; fi
}

run native "$CTR_CPU" native 1 build/ctr/pl/ctr_rec_cmp.elf
run encoder "" emulated 1 build/ctr/pl/ctr_rec_cmp.elf build/ctr/pl/ctr_rec_native.elf \
  build/ctr/pl/ctr_long.elf
grep -a '^CTRDUMP: ' "$D/native.log" | tr -d '\r' > "$D/native.dump"
grep -a '^CTRDUMP: ' "$D/encoder.log" | tr -d '\r' > "$D/encoder.dump"
# One verdict per scenario, entry by entry.
scen=$(awk '$3 == "status" {print $2}' "$D/native.dump")
[ -n "$scen" ] || fail "compare: no scenario printed on native CTR"
for s in $scen; do
  a=$(awk -v s="$s" '$2 == s' "$D/native.dump"); b=$(awk -v s="$s" '$2 == s' "$D/encoder.dump")
  recs=$(awk -v s="$s" '$2 == s && $3 != "status" && $4 != "0x0"' "$D/native.dump" | wc -l)
  if [ -z "$b" ]; then fail "compare/$s [no entries printed on the encoder-fed hart]"
  elif [ "$a" = "$b" ]; then pass "compare/$s ($recs records)"
  else fail "compare/$s [$(diff <(echo "$a") <(echo "$b") | grep '^[<>]' | head -4 | tr '\n' ' ')]"; fi
done
# The comparison must have records to compare: every recording scenario but
# the one that records U-mode only.
n=$(awk '$3 != "status" && $4 != "0x0"' "$D/native.dump" | wc -l)
check "compare/records_compared ($n)" [ "$n" -gt 100 ]

# Two harts: the stream carries a SRC field; the boot hart's records are
# the same.
run smp2 "" emulated 2 build/ctr/pl/ctr_rec_native.elf
