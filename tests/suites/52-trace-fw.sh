#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The firmware's trace service (firmware/trace, issue 11) on the project
# QEMU 10: the trace payload (tests/payloads/trace.cpp) checks every SBI
# trace function and error case and writes the traces of its runs to host
# files; each hart's stream is decoded here and must equal the S-mode
# instructions the insnlog plugin saw that hart execute, with no address of
# the firmware in it: N-Trace (HTM, BTM) and E-Trace (trTeFormat 0) runs. On 1, 4 and 18 harts (18: leaf funnels), and without
# Sstc; these runs set /chosen/tsbi,trace-owner = "m-mode" (the firmware
# keeps the components) and the device tree handed on offers none of them.
# Also: QEMU 7.2 (no trace components: the extension is absent) and the
# default, the components handed to S-mode (every one offered, the
# funnels passing through, traced by the payload as a driver without a
# funnel driver would), with tsbi,trace-allow-mmode, and with a RAM sink
# per hart.
set -uo pipefail
. "$(dirname "$0")/../lib.sh"

if ! q=$(scripts/qemu10.sh path); then
  fail "trace-fw: scripts/qemu10.sh path failed (project QEMU 10 not built)"; exit 1
fi
build firmware payloads qemu-plugin trace
DEC=$PWD/build/trace/tsbi-trace
ELF=$PWD/build/payloads/trace.elf
PLUGIN=$PWD/build/qemu-tests/libinsnlog.so
COMPARE=$PWD/tests/qemu/compare.py
COMPARE_DATA=$PWD/tests/qemu/compare_data.py
RUN=$PWD/tests/payloads/run.py
W=$PWD/build/test-logs/trace-fw
SEMI=(--qemu-arg=-semihosting-config --qemu-arg=enable=on,target=native)
rm -rf "$W"; mkdir -p "$W"

# No trace components on Debian's QEMU 7.2: probe 0, NOT_SUPPORTED.
"$RUN" --smp 1 --tag qemu72-smp1 trace
[ $? -le 1 ] || fail "trace-fw: runner failed on QEMU 7.2"

# check_handed TAG DTB WANT: every trace component node of the device tree
# the firmware handed on (the payload's handed.dtb) has status WANT: M-mode's
# components "disabled" (PMP closes them: a driver probing them would
# fault), S-mode's "okay".
check_handed() {
  local tag=$1 dtb=$2 want=$3 n=0 bad= node st
  for node in $(fdtget -l "$dtb" /soc 2>/dev/null); do
    fdtget "$dtb" "/soc/$node" compatible 2>/dev/null | grep -qw 'riscv,trace-component' || continue
    n=$((n + 1))
    st=$(fdtget -d okay "$dtb" "/soc/$node" status)
    [ "$st" = "$want" ] || bad="$bad $node=$st"
  done
  check "$tag/handed_dt/trace_components_$want ($n nodes${bad:+; not:$bad})" test "$n" -gt 0 -a -z "$bad"
}

# The default (no /chosen property), handed to S-mode: no SBI trace
# service, registers open to S-mode, every component offered, the funnels
# passing through: the payload programs its encoder and the sink only (as
# Linux's rvtrace) and must get its trace. CTR's feed is the firmware's:
# not there either.
d=$W/qemu10-owner-smode; mkdir -p "$d"
(cd "$d" && "$RUN" --qemu "$q" --smp 2 --tag qemu10-owner-smode --log "$d/console.log" --pass-through TRACE- \
   "${SEMI[@]}" --qemu-arg=-plugin --qemu-arg="$PLUGIN,out=$d/rec,priv=on" trace) > "$d/run.out" 2>&1
rc=$?
grep -E '^(PASS|FAIL): ' "$d/run.out"
[ $rc -le 1 ] || fail "trace-fw: runner failed with the default ownership ($rc)"
check "qemu10-owner-smode/default_owner_is_smode ($(grep -m1 'tsbi: trace: .*encoder(s)' "$d/console.log"))" \
  grep -q 'tsbi: trace: 2 encoder(s), 1 funnel(s), RAM sink at .*, handed to S-mode (the default' "$d/console.log"
check "qemu10-owner-smode/no_ctr_feed ($(grep -m1 'tsbi: ctr: hart 0' "$d/console.log"))" \
  grep -q 'tsbi: ctr: hart 0: emulated.*, registers only, no recording' "$d/console.log"
check_handed qemu10-owner-smode "$d/handed.dtb" okay
# The payload programs no filter and makes SBI calls: the firmware keeps
# M-mode out of its trace all the same (firmware/trace/README.md "What S-mode
# sees when it owns the encoders"), so no firmware address may be in it.
# owner_decode TAG DIR [FORMAT]: decode DIR/trace-owner.bin (ntrace or
# etrace); prints the number of M-mode (firmware) instructions in it.
owner_decode() {
  local tag=$1 dir=$2 fmt=${3:-ntrace}
  if "$DEC" "$fmt" decode --elf "$ELF" --elf build/fw/tsbi_dynamic.elf "$dir/trace-owner.bin" -o "$dir/owner.pcs" \
       > "$dir/owner.err" 2>&1 && [ "$(wc -l < "$dir/owner.pcs")" -ge 1000 ]; then
    pass "$tag/owner_trace_decodes ($(wc -l < "$dir/owner.pcs") instructions)" >&2
    python3 -c 'import sys
print(sum(0x80000000 <= int(l.split()[0], 16) < 0x80200000 for l in open(sys.argv[1])))' "$dir/owner.pcs"
  else
    fail "$tag/owner_trace_decodes ($(head -c 300 "$dir/owner.err"))" >&2
    echo -1
  fi
}
check "qemu10-owner-smode/encoder_keeps_mmode_out (trTeVendorControl after S-mode wrote 0 and reset it)" \
  grep -q '^TRACE-NO-MMODE: 1' "$d/run.out"
grep -q 'M-mode kept out of the trace of 2 of them' "$d/console.log" &&
  pass "qemu10-owner-smode/mmode_kept_out_of_every_encoder" ||
  fail "qemu10-owner-smode/mmode_kept_out_of_every_encoder ($(grep -m1 'M-mode kept out' "$d/console.log"))"
fwpcs=$(owner_decode qemu10-owner-smode "$d")
check "qemu10-owner-smode/no_firmware_address ($fwpcs)" [ "$fwpcs" = 0 ]
# Sdtrig trace actions through SBI DBTR (issue 30): S-mode installed a
# trace-on trigger at op_a and a trace-off trigger at op_b and enabled its
# encoder with trTeInstTrigEnable but not trTeInstTracing; the decoded trace
# must equal the hart's S-mode instructions from each op_a to the next op_b
# (compare.py --trig, from the payload's trig_window on), and hold no
# firmware address (the triggers cannot fire in M-mode, NoMmode keeps the
# firmware's SBI calls out).
read -r th ton toff tbegin <<< "$(sed -n 's/^TRACE-TRIG: hart=\([0-9]*\) on=\(0x[0-9a-f]*\) off=\(0x[0-9a-f]*\) begin=\(0x[0-9a-f]*\).*/\1 \2 \3 \4/p' "$d/run.out")"
if [ -z "$tbegin" ]; then
  fail "qemu10-owner-smode/dbtr_trigger_trace (no TRACE-TRIG line from the payload)"
elif ! "$DEC" ntrace decode --elf "$ELF" --elf build/fw/tsbi_dynamic.elf "$d/trace-owner-trig.bin" \
       -o "$d/owner-trig.pcs" > "$d/owner-trig.err" 2>&1; then
  fail "qemu10-owner-smode/dbtr_trigger_trace_decodes ($(head -c 300 "$d/owner-trig.err"))"
elif python3 "$COMPARE" "$d/owner-trig.pcs" "$d/rec.$th" --priv 1 --begin "$tbegin" --trig "$ton:$toff" \
       --min 300 > "$d/owner-trig.cmp" 2>&1; then
  pass "qemu10-owner-smode/dbtr_trigger_trace_equals_executed ($(head -1 "$d/owner-trig.cmp"))"
else
  fail "qemu10-owner-smode/dbtr_trigger_trace_equals_executed ($(head -2 "$d/owner-trig.cmp" | tr '\n' ' '))"
fi
rm -f "$d"/rec.*

# The platform lets traces include M-mode (tsbi,trace-allow-mmode): then
# S-mode sees the firmware's instructions, as on hardware without such a
# control (the count is what the README's description rests on). The
# owner is named here ("s-mode", the default's value).
d=$W/qemu10-owner-smode-allow-mmode; mkdir -p "$d"
(cd "$d" && "$RUN" --qemu "$q" --smp 2 --tag qemu10-owner-smode-allow-mmode --log "$d/console.log" \
   --chosen tsbi,trace-owner=s-mode --chosen tsbi,trace-allow-mmode= \
   --pass-through TRACE- "${SEMI[@]}" trace) > "$d/run.out" 2>&1
rc=$?
grep -E '^(PASS|FAIL): ' "$d/run.out"
[ $rc -le 1 ] || fail "trace-fw: runner failed with tsbi,trace-allow-mmode ($rc)"
check "qemu10-owner-smode-allow-mmode/encoder_traces_mmode" grep -q '^TRACE-NO-MMODE: 0' "$d/run.out"
fwpcs=$(owner_decode qemu10-owner-smode-allow-mmode "$d")
check "qemu10-owner-smode-allow-mmode/firmware_in_smode_trace ($fwpcs M-mode instructions)" [ "$fwpcs" -gt 0 ]

# No funnel, a RAM sink per hart (virt,trace-funnels=off, the upstream
# E-Trace model's layout): the service cannot serve the harts from one sink,
# so even with tsbi,trace-owner = "m-mode" the firmware hands the components
# to S-mode (offered, NoMmode set); the payload traces its hart into that
# hart's sink in E-Trace, as a driver for that model would.
d=$W/qemu10-hart-sinks; mkdir -p "$d"
(cd "$d" && "$RUN" --qemu "$q" --smp 2 --tag qemu10-hart-sinks --log "$d/console.log" --pass-through TRACE- \
   --chosen tsbi,trace-owner=m-mode \
   --qemu-arg=-M --qemu-arg=virt,trace-funnels=off "${SEMI[@]}" trace) > "$d/run.out" 2>&1
rc=$?
grep -E '^(PASS|FAIL): ' "$d/run.out"
[ $rc -le 1 ] || fail "trace-fw: runner failed with trace-funnels=off ($rc)"
check "qemu10-hart-sinks/handed_to_smode ($(grep -m1 'RAM sinks' "$d/console.log"))" \
  grep -q 'tsbi: trace: 2 RAM sinks, one per hart: components handed to S-mode' "$d/console.log"
check_handed qemu10-hart-sinks "$d/handed.dtb" okay
check "qemu10-hart-sinks/encoder_keeps_mmode_out" grep -q '^TRACE-NO-MMODE: 1' "$d/run.out"
fwpcs=$(owner_decode qemu10-hart-sinks "$d" etrace)
check "qemu10-hart-sinks/etrace_no_firmware_address ($fwpcs)" [ "$fwpcs" = 0 ]

# decode TAG FILE HART SRCBITS [FORMAT [data]]: decodes one hart's stream of
# FILE (FORMAT ntrace, the default, or etrace: trTeFormat 0) and queues it
# for compare_hart; with "data" the E-Trace data trace too, compared here
# against the plugin's mem=S record of the hart's S-mode loads and stores
# (mrec.HART; --within, as the instructions).
queued=()
decode() {
  local tag=$1 f=$2 h=$3 sb=$4 fmt=${5:-ntrace} data=${6:-} out
  out=$W/$tag/${f%.bin}.$h.pcs
  if ! "$DEC" "$fmt" decode --elf "$ELF" --src-bits "$sb" --src "$h" ${data:+--data "$out.data"} "$W/$tag/$f" \
      -o "$out" > "$out.err" 2>&1; then
    fail "$tag/$f/hart$h/decodes ($(head -c 300 "$out.err"))"; return
  fi
  pass "$tag/$f/hart$h/decodes"
  if [ -n "$data" ]; then
    if python3 "$COMPARE_DATA" "$out.data" - "$W/$tag/mrec.$h" --within --min 100 > "$out.dcmp" 2>&1; then
      pass "$tag/$f/hart$h/data_equals_executed ($(head -1 "$out.dcmp"))"
    else
      fail "$tag/$f/hart$h/data_equals_executed ($(head -3 "$out.dcmp" | tr '\n' ' '))"
    fi
  fi
  queued+=("$f")
}

# The firmware's region (the reserved mmode_resv node): from _fw_start, the
# image rounded up to a power of two, as the firmware's PMP entry.
FW_RANGE=$(riscv64-linux-gnu-nm build/fw/tsbi_dynamic.elf | awk '$3=="_fw_start"{s=$1} $3=="_fw_end"{e=$1} END{print s, e}')

# compare_hart TAG HART: each stream decode() queued for HART against the
# S-mode instructions insnlog recorded on it (srec.HART, read once for all),
# and none of its addresses in the firmware's region.
compare_hart() {
  local tag=$1 h=$2 f out rc path counts n
  ((${#queued[@]})) || return
  local outs=()
  for f in "${queued[@]}"; do outs+=("$W/$tag/${f%.bin}.$h.pcs"); done
  # --within: one insnlog record holds the whole run, while the firmware
  # starts and stops each hart's trace on an IPI the S-mode record does not
  # show, so the trace is a stretch of the record, not its whole.
  python3 "$COMPARE" --batch "$W/$tag/srec.$h" "${outs[@]}" --priv 1 --min 1000 --within \
    > "$W/$tag/compare.$h.out" 2>&1
  counts=$(python3 -c 'import sys
start, end = (int(x, 16) for x in sys.argv[1:3])
size = 1
while size < end - start: size <<= 1
for p in sys.argv[3:]:
    n = 0
    for l in open(p):
        a = int(l.split()[0], 16)
        n += start <= a < start + size
    print(n)' $FW_RANGE "${outs[@]}")
  local i=0
  for f in "${queued[@]}"; do
    out=${outs[$i]}; i=$((i + 1))
    rc=$(awk -v p="$out" '$2 == p { print $1 }' "$W/$tag/compare.$h.out")
    if [ "$rc" = 0 ]; then
      pass "$tag/$f/hart$h/equals_executed ($(tail -1 "$out.cmp" | cut -d' ' -f1) instructions)"
    elif [ -s "$out.cmp" ]; then
      fail "$tag/$f/hart$h/equals_executed ($(tail -2 "$out.cmp" | tr '\n' ' '))"
    else
      fail "$tag/$f/hart$h/equals_executed (compare.py: $(tail -2 "$W/$tag/compare.$h.out" | tr '\n' ' '))"
    fi
    n=$(sed -n "${i}p" <<<"$counts")
    check "$tag/$f/hart$h/no_firmware_address" [ "$n" = 0 ]
  done
  queued=()
}

# filter_compare TAG SRCBITS: trace-range.bin and trace-svc-trig.bin of the
# payload's filter_run against srec.HART of its TRACE-RANGE/TRACE-SVCTRIG line
# (the window from trig_window to trig_window_end).
filter_compare() {
  local tag=$1 sb=$2 f line h a b begin end opt out
  for f in range svc-trig; do
    if [ "$f" = range ]; then
      line=$(sed -n 's/^TRACE-RANGE: hart=\([0-9]*\) lo=\(0x[0-9a-f]*\) hi=\(0x[0-9a-f]*\) begin=\(0x[0-9a-f]*\) end=\(0x[0-9a-f]*\).*/\1 \2 \3 \4 \5/p' "$W/$tag/run.out")
      opt=--addr-range
    else
      line=$(sed -n 's/^TRACE-SVCTRIG: hart=\([0-9]*\) on=\(0x[0-9a-f]*\) off=\(0x[0-9a-f]*\) begin=\(0x[0-9a-f]*\) end=\(0x[0-9a-f]*\).*/\1 \2 \3 \4 \5/p' "$W/$tag/run.out")
      opt=--trig
    fi
    read -r h a b begin end <<< "$line"
    if [ -z "$begin" ] || [ ! -f "$W/$tag/srec.$h" ]; then
      fail "$tag/trace-$f.bin/equals_executed (no TRACE- line or no record of hart '$h')"; continue
    fi
    out=$W/$tag/filter-$f.pcs
    if ! "$DEC" ntrace decode --elf "$ELF" --src-bits "$sb" --src "$h" "$W/$tag/trace-$f.bin" -o "$out" \
         > "$out.err" 2>&1; then
      fail "$tag/trace-$f.bin/decodes ($(head -c 300 "$out.err"))"; continue
    fi
    if python3 "$COMPARE" "$out" "$W/$tag/srec.$h" --priv 1 --begin "$begin" --end "$end" "$opt" "$a:$b" --min 300 \
         > "$out.cmp" 2>&1; then
      pass "$tag/trace-$f.bin/equals_executed ($(head -1 "$out.cmp"))"
    else
      fail "$tag/trace-$f.bin/equals_executed ($(head -2 "$out.cmp" | tr '\n' ' '))"
    fi
  done
}

# SMP[:CPU]: without Sstc the timer interrupts go through the firmware's
# M-mode handler, which must not show in the trace either. The firmware
# keeps the components (tsbi,trace-owner = "m-mode"): PMP closes them, the
# device tree handed on has them disabled, the payload traces through the
# SBI trace extension.
for run in 1 4 18 1:sstc=false; do
  smp=${run%%:*}; cpu=; tag=qemu10-smp$smp
  if [ "$run" != "$smp" ]; then cpu=${run#*:}; tag=$tag-${cpu%%=*}-off; fi
  d=$W/$tag; mkdir -p "$d"
  # E-Trace data trace is compared on 1 and 4 harts: their record has the
  # S-mode loads and stores too (mem=S).
  mem=; [ "$run" = 1 ] || [ "$run" = 4 ] && mem=,mem=S
  (cd "$d" && "$RUN" --qemu "$q" --smp "$smp" ${cpu:+--cpu "$cpu"} --timeout 600 --tag "$tag" --pass-through TRACE- \
     --chosen tsbi,trace-owner=m-mode --log "$d/console.log" "${SEMI[@]}" --qemu-arg=-plugin \
     --qemu-arg="$PLUGIN,out=$d/rec,priv=on$mem" trace) > "$d/run.out" 2>&1
  rc=$?
  grep -E '^(PASS|FAIL): ' "$d/run.out"
  [ $rc -le 1 ] || { fail "$tag: runner failed ($rc)"; continue; }
  check_handed "$tag" "$d/handed.dtb" disabled
  check "$tag/kept_by_the_firmware ($(grep -m1 'tsbi: trace: .*encoder(s)' "$d/console.log"))" \
    grep -q 'tsbi: trace: .*encoder(s), .*, kept by the firmware' "$d/console.log"
  sb=$(sed -n 's/^TRACE-SRC-BITS: //p' "$d/run.out" | head -1)
  boot=$(sed -n 's/^TSBI-START .* hart=\([0-9]*\).*/\1/p' "$d/console.log" | head -1)
  [ -n "$sb" ] && [ -n "$boot" ] || { fail "$tag: no TRACE-SRC-BITS/TSBI-START line"; continue; }
  # Only S-mode lines: the trace is filtered to S-mode (compare.py --priv 1
  # cuts the same), and the record of M-mode waiting is large.
  # Every hart up to 4; of 18 (the run for leaf funnels: harts 0-15 feed
  # leaf 1, 16-17 leaf 2) the harts at the edges of each leaf and the boot
  # hart. The harts inside a leaf take the same path as their neighbours, and
  # decoding and comparing all 18 took 6 of this suite's 10 minutes.
  harts=$(seq 0 $((smp - 1)))
  [ "$smp" -gt 4 ] && harts=$(printf '%s
' 0 1 15 16 $((smp - 1)) "$boot" | sort -nu)
  for h in $harts; do
    awk '$2 == 1' "$d/rec.$h" > "$d/srec.$h"
    [ -z "$mem" ] || mv "$d/rec.mem.$h" "$d/mrec.$h"
  done
  last=
  if [ "$smp" -gt 1 ]; then
    last=$((smp - 1)); [ "$last" = "$boot" ] && last=$((smp - 2))
    [ -f "$d/srec.$last" ] || awk '$2 == 1' "$d/rec.$last" > "$d/srec.$last"
  fi
  rm -f "$d"/rec.*
  # Each hart's streams decoded, then compared with its record at once; the
  # SRAM sink's on the boot hart, the HSM run's on the last (both among
  # $harts, or added).
  for h in $(printf '%s\n' $harts "$boot" ${last:+"$last"} | sort -nu); do
    if [[ " $(echo $harts) " == *" $h "* ]]; then
      decode "$tag" trace-htm.bin "$h" "$sb"
      decode "$tag" trace-btm.bin "$h" "$sb"
      decode "$tag" trace-etrace.bin "$h" "$sb" etrace
      [ -z "$mem" ] || decode "$tag" trace-etrace-data.bin "$h" "$sb" etrace data
    fi
    [ "$h" != "$boot" ] || decode "$tag" trace-sram.bin "$h" "$sb"
    [ "$h" != "$last" ] || decode "$tag" trace-hsm.bin "$h" "$sb"
    compare_hart "$tag" "$h"
  done
  # trace_set_filter (issue 30): the boot hart traced fib's first 64 bytes
  # only, then the stretches from op_a to op_b that S-mode's DBTR triggers
  # switched on and off; each equals the S-mode record from trig_window on,
  # cut by the same rule (no firmware address: the record is S-mode's).
  [ "$run" = 1 ] && filter_compare "$tag" "$sb"
  rm -f "$d"/srec.* "$d"/mrec.* "$d"/*.pcs "$d"/*.pcs.data
done

# Harts past 63 (issue 29; firmware/trace/README.md "Harts"): the harts
# payload's trace section on a sparse 128-hart tree (harts 0, 1, 64 and 127
# enabled: four encoder slots, the two highest harts named by one hart list,
# their status words from hart_base 64, a trace of hart 127's S-mode work in
# the SRAM), and on 72 dense harts (a slot for every hart: harts 70 and 71,
# both in the slot mask's second word, traced).
d=$W/harts; mkdir -p "$d"
"$q" -M virt,dumpdtb="$d/sparse.dtb" -smp 128 -m 256M -nographic -bios build/fw/tsbi_dynamic.bin >/dev/null 2>&1
for i in $(seq 2 126); do [ "$i" = 64 ] || echo "/cpus/cpu@$i"; done | xargs -I{} fdtput -t s "$d/sparse.dtb" {} status disabled
fdtput -t s "$d/sparse.dtb" /chosen tsbi,trace-owner m-mode
rm -f "$d/sparse.log" "$d/dense72.log"
"$RUN" --qemu "$q" --timeout 300 --smp 128 --tag qemu10-harts-sparse --log "$d/sparse.log" \
  --qemu-arg=-dtb --qemu-arg="$d/sparse.dtb" harts
expect_line "trace-fw/harts-sparse/four_slots" "$d/sparse.log" "tsbi: trace: 4 encoder(s), 9 funnel(s)"
expect_line "trace-fw/harts-sparse/harts_64_and_127_traced" "$d/sparse.log" "trace of harts 64 and 127: [1-9][0-9]* bytes"
"$RUN" --qemu "$q" --timeout 300 --smp 72 --tag qemu10-harts-dense72 --log "$d/dense72.log" \
  --chosen tsbi,trace-owner=m-mode harts
expect_line "trace-fw/harts-dense72/72_slots" "$d/dense72.log" "tsbi: trace: 72 encoder(s), 6 funnel(s)"
expect_line "trace-fw/harts-dense72/harts_70_and_71_traced" "$d/dense72.log" "trace of harts 70 and 71: [1-9][0-9]* bytes"

# The device-tree fix-ups' room (firmware/core/README.md "Device-tree fix-ups:
# their room"). QEMU 10's 512 harts with 508 disabled in the tree (harts 0, 1,
# 64 and 511 left) and tsbi,trace-owner = "m-mode": the firmware keeps the
# 548 components and must hand on a tree where every one of them is disabled.
# On 9dc7203 the room was sized by the 4 harts: "376 component(s) M-mode keeps
# could not be disabled", and CTR's fix-up failed (-3). The dtdump payload
# writes the tree it was handed to handed.dtb. Started first, in the
# background: a 1-hart tree whose /memory ends 128 bytes after the device
# tree, too little for its fix-ups, must stop the boot and say why.
d=$W/fdt-room; mkdir -p "$d"
"$q" -M virt,dumpdtb="$d/one.dtb" -smp 1 -m 256M -nographic -bios build/fw/tsbi_dynamic.bin </dev/null >/dev/null 2>&1
fdtput -t s "$d/one.dtb" /chosen tsbi,trace-owner m-mode
dtc -q -I dtb -O dtb -o "$d/tight.dtb" "$d/one.dtb"
# QEMU puts a tree under 2 MiB at 0x8fe00000 with -m 256M (riscv_compute_fdt_addr).
fdtput -t x "$d/tight.dtb" /memory@80000000 reg 0 0x80000000 0 $(printf '0x%x' $((0xfe00000 + $(stat -c %s "$d/tight.dtb") + 128)))
rm -f "$d/tight.rc"
(timeout 10 "$q" -M virt -smp 1 -m 256M -nographic -dtb "$d/tight.dtb" -bios build/fw/tsbi_dynamic.bin \
   -kernel build/payloads/dtdump.elf </dev/null >"$d/tight.log" 2>&1
 echo $? >"$d/tight.rc") &
tight_pid=$!
"$q" -M virt,dumpdtb="$d/sparse512.dtb" -smp 512 -m 256M -nographic -bios build/fw/tsbi_dynamic.bin </dev/null >/dev/null 2>&1
for i in $(seq 2 510); do [ "$i" = 64 ] || echo "/cpus/cpu@$i"; done | xargs -I{} fdtput -t s "$d/sparse512.dtb" {} status disabled
fdtput -t s "$d/sparse512.dtb" /chosen tsbi,trace-owner m-mode
rm -f "$d/handed.dtb" "$d/console.log"
(cd "$d" && "$RUN" --qemu "$q" --timeout 300 --smp 512 --tag qemu10-fdt-room-sparse512 --log "$d/console.log" \
   "${SEMI[@]}" --qemu-arg=-dtb --qemu-arg="$d/sparse512.dtb" dtdump) > "$d/run.out" 2>&1
rc=$?
grep -E '^(PASS|FAIL): ' "$d/run.out"
[ $rc -le 1 ] || fail "trace-fw: runner failed on the sparse 512-hart tree ($rc)"
expect_line "trace-fw/fdt-room/sparse512/kept_by_firmware" "$d/console.log" \
  "tsbi: trace: 4 encoder(s), 35 funnel(s), RAM sink at .*, kept by the firmware"
check_handed fdt-room/sparse512 "$d/handed.dtb" disabled
n=$(fdtget -l "$d/handed.dtb" /soc | grep -c '^trace-')
expect_eq "trace-fw/fdt-room/sparse512/all_548_components_in_tree" "$d/console.log" 548 "$n" "trace component nodes in handed.dtb"
expect_no_line "trace-fw/fdt-room/sparse512/none_left_offered" "$d/console.log" "TSBI-DONE" "could not be disabled"
expect_no_line "trace-fw/fdt-room/sparse512/ctr_fixup_done" "$d/console.log" "TSBI-DONE" "device-tree fix-up failed"
# CTR's fix-up ran on every cpu node, the disabled ones too (its room
# counts them all): the first and the last, both fed by their encoders
# (CTR's feed serves every hart ID).
for c in 0 511; do
  src=$(fdtget "$d/handed.dtb" /cpus/cpu@$c tsbi,ctr-source 2>&1)
  check "trace-fw/fdt-room/sparse512/cpu${c}_ctr_source ($src)" test "$src" = encoder
done
wait "$tight_pid"
fatal="tsbi: fatal: no room for the device-tree fix-ups"
expect_line "trace-fw/fdt-room/tight/says_why" "$d/tight.log" "$fatal"
expect_line "trace-fw/fdt-room/tight/names_the_room" "$d/tight.log" \
  "tsbi: the device tree at 0x8fe00000 ([0-9]* bytes) needs [0-9]* bytes more for its fix-ups; [0-9]* are free after it, up to 0x"
check "trace-fw/fdt-room/tight/stops (QEMU still running at 10 s: $(cat "$d/tight.rc" 2>/dev/null))" \
  test "$(cat "$d/tight.rc" 2>/dev/null)" = 124
expect_no_line "trace-fw/fdt-room/tight/no_payload_ran" "$d/tight.log" "$fatal" "TSBI-START"
