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
#   - two harts recording at once share the sink (ctr_smp.elf): no wrong
#     record on either.
#   - any hart ID records (issue 29): ctr_rec_cmp.elf on hart 71 of 72 and
#     on hart 127 of the sparse IDs 0, 1, 64, 127 and on hart 4095 (QEMU's
#     hartid-bases) gives native Smctr's
#     entries, and no hart's boot line says it records nothing.
#   - cycle counts (issue 30 item 5): under -icount shift=0 each dated
#     record's CC is the number of S-mode instructions since the previous
#     record, CCV=0 where the trace cannot date it (ctr_cc.elf), and the
#     records with cycle counts on are still native Smctr's (ctr_rec_cmp.elf
#     again, same boot options). Native CTR
#     on QEMU 10 has no cycle counts (CCV=0, CC=0 always), so there is
#     nothing to compare entry by entry; MISP (0 on both) is compared above
#     as part of each entry's target.
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
build firmware ctr-payloads
Q10=${CTR_QEMU10:-$(scripts/qemu10.sh path 2>build/test-logs/ctr-trace-qemu10.log)} || {
  fail_log "project QEMU 10" build/test-logs/ctr-trace-qemu10.log "scripts/qemu10.sh path failed"; exit 1; }
FW=build/fw/tsbi_dynamic.bin
D=build/ctr/trace; rm -rf "$D"; mkdir -p "$D"
CTR_CPU=smctr=true,ssctr=true,smcsrind=true,smstateen=true,sscofpmf=true

# ctr_mode NAME LOG MODE: the firmware's boot line says hart 0's CTR is MODE.
ctr_mode() {
  if has_line "$2" "tsbi: ctr: hart 0: $3"; then pass "$1"
  else fail_log "$1" "$2" "expected 'tsbi: ctr: hart 0: $3', got '$(grep -a -m1 'tsbi: ctr:' "$2" | tr -d '\r')'"; fi
}

# The feed decodes the encoder's messages on the recording hart's M-mode
# stack, the deepest run-time path: every run checks the stacks kept a
# margin (run.py --stack-report).
STACKS=build/test-logs/stacks-26-ctr-trace.txt; rm -f "$STACKS"

# run TAG CPU-EXTRAS EXPECT-MODE SMP ELF...: one hart with the ratified
# profile (tests/ctr/mkdtb.sh), or SMP harts with QEMU's device tree (the
# default profile, which includes the ratified layout); either way with
# /chosen/tsbi,trace-owner = "m-mode", which the feed needs.
run() {
  local tag=$1 cpu=$2 mode=$3 smp=$4; shift 4
  local dtb=$D/$tag.dtb log=$D/$tag.log dtbargs=()
  if [ "$smp" = 1 ]; then
    if ! tests/ctr/mkdtb.sh "$Q10" "rv64${cpu:+,$cpu}" ratified "$dtb" 2>"$log"; then
      fail_log "$tag: device tree" "$log" "tests/ctr/mkdtb.sh failed"; return 1
    fi
    dtbargs=(--qemu-arg=-dtb --qemu-arg="$dtb")
  else
    dtbargs=(--chosen tsbi,trace-owner=m-mode)
  fi
  : >"$log"
  python3 tests/payloads/run.py --qemu "$Q10" ${cpu:+--cpu "$cpu"} --smp "$smp" "${dtbargs[@]}" \
    --fw "$FW" --tag "$tag" --log "$log" --timeout 240 --stack-report "$STACKS" "$@"
  ctr_mode "$tag/ctr_mode_$mode" "$log" "$mode"
}

run native "$CTR_CPU" native 1 build/ctr/pl/ctr_rec_cmp.elf
run encoder "" emulated 1 build/ctr/pl/ctr_rec_cmp.elf build/ctr/pl/ctr_rec_native.elf \
  build/ctr/pl/ctr_long.elf
# Where records come from, as the boot line says (issue 30 item 3).
expect_line "native/ctr_source" "$D/native.log" "^tsbi: ctr: hart 0: native Smctr, ratified"
expect_line "encoder/ctr_source" "$D/encoder.log" "^tsbi: ctr: hart 0: emulated, ratified, records from the N-Trace encoder"
grep -a '^CTRDUMP: ' "$D/native.log" | tr -d '\r' > "$D/native.dump"
grep -a '^CTRDUMP: ' "$D/encoder.log" | tr -d '\r' > "$D/encoder.dump"
# One verdict per scenario, entry by entry.
scen=$(awk '$3 == "status" {print $2}' "$D/native.dump")
[ -n "$scen" ] || fail_log "compare: scenarios" "$D/native.log" "expected CTRDUMP status lines from the native-CTR run, none came"
for s in $scen; do
  a=$(awk -v s="$s" '$2 == s' "$D/native.dump"); b=$(awk -v s="$s" '$2 == s' "$D/encoder.dump")
  recs=$(awk -v s="$s" '$2 == s && $3 != "status" && $4 != "0x0"' "$D/native.dump" | wc -l)
  if [ -z "$b" ]; then fail_log "compare/$s" "$D/encoder.log" "expected the native hart's entries, none printed on the encoder-fed hart"
  elif [ "$a" = "$b" ]; then pass "compare/$s ($recs records)"
  else
    fail "compare/$s: expected the native hart's entries (<), got the encoder-fed hart's (>) (logs: $D/native.dump, $D/encoder.dump)"
    diff <(echo "$a") <(echo "$b") | grep '^[<>]' | head -8 | sed 's/^/  | /'
  fi
done
# The comparison must have records to compare: every recording scenario but
# the one that records U-mode only.
n=$(awk '$3 != "status" && $4 != "0x0"' "$D/native.dump" | wc -l)
if [ "$n" -gt 100 ]; then pass "compare/records_compared ($n)"
else fail_log "compare/records_compared" "$D/native.log" "expected > 100 records on native CTR, got $n"; fi

# Two harts record at once into the shared sink.
run smp2 "" emulated 2 build/ctr/pl/ctr_smp.elf

# Every hart the firmware serves records, whatever its hart ID (issue 29):
# ctr_rec_cmp on a machine with several harts runs on the highest hart ID,
# started alone; its entries must be native Smctr's above, entry for entry
# (CTR's feed kept its state for hart IDs below 64 only: on hart 71 it
# recorded nothing). 72 harts (IDs 0..71, hart 71 on a second-level trace
# funnel), and the sparse IDs 0, 1, 64, 127 (QEMU's 128-hart tree with the
# others disabled, as suite 29 makes it).
# high_hart TAG HART: the comparison, and no boot line for a hart whose
# source differs from hart 0's (it would say "registers only, no recording").
high_hart() {
  local tag=$1 hart=$2 log=$D/$1.log
  expect_line "$tag/on_hart_$hart" "$log" "^NOTE: ctr_rec_cmp: scenarios on hart $hart"
  if tr -d '\r' <"$log" | grep -aq "^tsbi: ctr: hart [1-9][0-9]*: "; then
    fail_log "$tag/every_hart_records" "$log" "expected no CTR boot line but hart 0's (every hart fed by its encoder), got '$(tr -d '\r' <"$log" | grep -a -m1 '^tsbi: ctr: hart [1-9]')'"
  else pass "$tag/every_hart_records"; fi
  grep -a '^CTRDUMP: ' "$log" | tr -d '\r' > "$D/$tag.dump"
  if [ -s "$D/$tag.dump" ] && cmp -s "$D/native.dump" "$D/$tag.dump"; then
    pass "$tag/compare_native ($(wc -l < "$D/$tag.dump") lines)"
  else
    fail "$tag/compare_native: expected the native hart's entries (<), got hart $hart's (>) (logs: $D/native.dump, $D/$tag.dump)"
    diff "$D/native.dump" "$D/$tag.dump" | grep '^[<>]' | head -8 | sed 's/^/  | /'
  fi
}
run hart71of72 "" emulated 72 build/ctr/pl/ctr_rec_cmp.elf
high_hart hart71of72 71
sparse=$D/sparse.dtb
mk_sparse() {
  "$Q10" -M virt,dumpdtb="$sparse" -smp 128 -m 256M -cpu rv64 -nographic -bios none || return 1
  local i
  for i in $(seq 2 126); do [ "$i" = 64 ] || fdtput -t s "$sparse" "/cpus/cpu@$i" status disabled || return 1; done
  fdtput -t s "$sparse" /chosen tsbi,trace-owner m-mode
}
if mk_sparse >"$D/sparse-dtb.log" 2>&1; then
  # No --stack-report: the runner paints -smp's stacks (128), the firmware
  # carves 4 and puts its other per-hart memory after them.
  python3 tests/payloads/run.py --qemu "$Q10" --smp 128 --mem 256M --qemu-arg=-dtb --qemu-arg="$sparse" \
    --fw "$FW" --tag sparse --log "$D/sparse.log" --timeout 240 build/ctr/pl/ctr_rec_cmp.elf
  ctr_mode "sparse/ctr_mode_emulated" "$D/sparse.log" emulated
  high_hart sparse 127
else
  fail_log "sparse: device tree" "$D/sparse-dtb.log" "QEMU's dumpdtb or fdtput failed"
fi
# Hart ID 4095 for real: the project QEMU's virt gives each NUMA socket's
# harts the IDs hartid-bases names (hw_models/qemu patch 0012), here harts 0
# and 4095; the payload runs on hart 4095.
mapfile -t numa < <(numa_args 128M:0 128M:1)
# No --stack-report: the runner's painted area assumes hart IDs below the
# hart count (the firmware's hart-ID table grows with the highest ID).
python3 tests/payloads/run.py --qemu "$Q10" --smp 2 --mem 256M --machine virt,hartid-bases=0:4095 "${numa[@]}" \
  --chosen tsbi,trace-owner=m-mode --fw "$FW" --tag id4095 --log "$D/id4095.log" --timeout 240 \
  build/ctr/pl/ctr_rec_cmp.elf
ctr_mode "id4095/ctr_mode_emulated" "$D/id4095.log" emulated
high_hart id4095 4095

# Cycle counts from the encoder's Internal Core timestamps (opt-in:
# /chosen/tsbi,ctr-cycles), exact under -icount.
if tests/ctr/mkdtb.sh "$Q10" rv64 ratified "$D/cycles.dtb" 2>"$D/cycles.log" &&
   fdtput -t s "$D/cycles.dtb" /chosen tsbi,ctr-cycles yes 2>>"$D/cycles.log"; then
  python3 tests/payloads/run.py --qemu "$Q10" --qemu-arg=-dtb --qemu-arg="$D/cycles.dtb" --icount \
    --fw "$FW" --tag cycles --log "$D/cycles.log" --timeout 240 --stack-report "$STACKS" \
    build/ctr/pl/ctr_cc.elf build/ctr/pl/ctr_rec_cmp.elf
  expect_line "cycles/ctr_source" "$D/cycles.log" \
    "^tsbi: ctr: hart 0: emulated, ratified, records from the N-Trace encoder, with cycle counts"
  # Dating records changes none of them: the same entries as native Smctr.
  grep -a '^CTRDUMP: ' "$D/cycles.log" | tr -d '\r' > "$D/cycles.dump"
  if [ -s "$D/cycles.dump" ] && cmp -s "$D/native.dump" "$D/cycles.dump"; then
    pass "cycles/compare_native ($(wc -l < "$D/cycles.dump") lines)"
  else
    fail "cycles/compare_native: expected the native hart's entries (<), got the encoder-fed hart's with cycle counts (>) (logs: $D/native.dump, $D/cycles.dump)"
    diff "$D/native.dump" "$D/cycles.dump" | grep '^[<>]' | head -8 | sed 's/^/  | /'
  fi
else
  fail_log "cycles: device tree" "$D/cycles.log" "tests/ctr/mkdtb.sh or fdtput failed"
fi

# The host tool on the same decoding core: a generated program encoded in
# BTM by the host encoder model; `ntrace transfers` must give every
# transfer of the program's PC-info with its CTR type.
build trace
T=build/trace/tsbi-trace
if { "$T" ntrace gen --elf "$D/gen.elf" -o "$D/gen.pcinfo" --count 200000 --seed 7 &&
     "$T" ntrace encode --elf "$D/gen.elf" --te-control 0x3 "$D/gen.pcinfo" -o "$D/gen.bin" &&
     "$T" ntrace transfers --elf "$D/gen.elf" "$D/gen.bin" -o "$D/gen.transfers"; } >"$D/gen.log" 2>&1; then
  pass "host/transfers_decodes"
  python3 - "$D/gen.pcinfo" "$D/gen.transfers" <<'PY' || fail "host/transfers_equal_pcinfo: the comparison crashed (traceback above)"
import sys, collections
# PC-info lines "0xADDR,TYPE<size>[,0xDEST]": the source is ADDR; the target
# DEST where given, ADDR + size for a not-taken branch, else the next line
# (unless a trap came first: then the handler, so that target is not compared).
lines = [l.strip().split(",") for l in open(sys.argv[1]) if l.strip()]
ctr = {"BN": 4, "BD": 5, "CD": 9, "CI": 8, "JD": 11, "R": 13}
want = []
for i, l in enumerate(lines[:-1]):
    kind, size = l[1].rstrip("0123456789"), l[1].lstrip("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
    if kind == "L": continue
    a = int(l[0], 16)
    tgt = int(l[2], 16) if len(l) > 2 else a + int(size) if kind == "BN" else None
    want.append((a, tgt, ctr.get(kind, "JI")))
got = []
for l in open(sys.argv[2]):
    s, t, ty = l.split()
    if ty in ("1", "2"): continue  # traps: not in PC-info
    got.append((int(s, 16), int(t, 16), int(ty)))
# JI: an indirect jump (10, 14) or a trap return (3) by the instruction.
def same(g, w):
    return g[0] == w[0] and (w[1] is None or g[1] == w[1]) and \
        (g[2] == w[2] if w[2] != "JI" else g[2] in (3, 10, 14))
bad = next((i for i, (g, w) in enumerate(zip(got, want)) if not same(g, w)), None)
name = "host/transfers_equal_pcinfo"
# An empty program would compare equal to an empty decode: not a check.
if not want:
    print("FAIL: %s: expected transfers in %s, it has none (log: %s)" % (name, sys.argv[1], sys.argv[2]))
elif bad is None and len(got) == len(want):
    print("PASS: %s (%d transfers)" % (name, len(want)))
else:
    i = bad if bad is not None else min(len(got), len(want))
    fmt = lambda t: "(0x%x, %s, %s)" % (t[0], "0x%x" % t[1] if t[1] is not None else "-", t[2]) if t else "none"
    print("FAIL: %s: %d transfers expected, %d decoded; first difference at #%d: expected %s, got %s "
          "(log: %s)" % (name, len(want), len(got), i, fmt(want[i] if i < len(want) else None),
                        fmt(got[i] if i < len(got) else None), sys.argv[2]))
PY
else
  fail_log "host/transfers_decodes" "$D/gen.log" "expected tsbi-trace ntrace gen, encode and transfers to succeed"
fi
stack_summary "$STACKS"
