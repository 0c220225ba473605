#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Self-hosted trace under the firmware (issue 31; the draft Smstrcn/Ssstrcn
# with Ssamb, modelled by the project QEMU behind -cpu rv64,smstrcn=true):
# the firmware hands S-mode the CSRs (ssstrcn/ssamb in the device tree,
# mstateen0.STRC, menvcfg.STRCS) and keeps M-mode out of reach. The strc
# payload (tests/payloads/strc.cpp) traces S-mode, with SBI calls into the
# firmware in its workload, into its AMB and writes the buffer to the host;
# decoded, it must equal the S-mode instructions the insnlog plugin saw
# between the enabling and the disabling CSR write, with no firmware
# address in it and the firmware's stretches reported as filter gaps. On 1
# and 4 harts (all four at once, each into its own buffer), with the
# buffer demand-paged in Sv39, sharing the encoder with the SBI trace
# service, and with /chosen/tsbi,strc = "off", boot-time trace or the
# core-only image (nothing offered: sstrcctl is an illegal instruction).
set -uo pipefail
. "$(dirname "$0")/../lib.sh"

if ! q=$(scripts/qemu10.sh path); then
  fail "strc: scripts/qemu10.sh path failed (project QEMU 10 not built)"; exit 1
fi
build firmware payloads qemu-plugin trace
DEC=$PWD/build/trace/tsbi-trace
ELF=$PWD/build/payloads/strc.elf
FW_ELF=$PWD/build/fw/tsbi_dynamic.elf
PLUGIN=$PWD/build/qemu-tests/libinsnlog.so
COMPARE=$PWD/tests/qemu/compare.py
RUN=$PWD/tests/payloads/run.py
W=$PWD/build/test-logs/strc
SEMI=(--qemu-arg=-semihosting-config --qemu-arg=enable=on,target=native)
# --timeout: seconds without output before a run counts as hung; generous,
# as suite 52 has it: the plugin slows the harts down and the machine may
# be loaded.
rm -rf "$W"; mkdir -p "$W"
BEGIN=0x$(riscv64-linux-gnu-nm "$ELF" | awk '$3 == "strc_on" {print $1}')
END=0x$(riscv64-linux-gnu-nm "$ELF" | awk '$3 == "strc_off" {print $1}')
read -r FW0 FW1 < <(riscv64-linux-gnu-nm "$FW_ELF" | awk '$3=="_fw_start"{s=$1} $3=="_fw_end"{e=$1} END{print s, e}')

# run_strc TAG SMP [RUN.PY OPTIONS...]: the payload with the insnlog plugin;
# the firmware keeps the trace components (tsbi,trace-owner = "m-mode") so
# that its SBI trace service is there to share the encoder with (coexist/*)
run_strc() {
  local tag=$1 smp=$2 d=$W/$1 rc
  shift 2
  mkdir -p "$d"
  (cd "$d" && "$RUN" --qemu "$q" --timeout 300 --smp "$smp" --cpu smstrcn=true --tag "$tag" --pass-through STRC- \
     --chosen tsbi,trace-owner=m-mode --log "$d/console.log" "${SEMI[@]}" --qemu-arg=-plugin --qemu-arg="$PLUGIN,out=$d/rec,priv=on" \
     "$@" strc) > "$d/run.out" 2>&1
  rc=$?
  grep -E '^(PASS|FAIL|N/A): ' "$d/run.out"
  [ $rc -le 1 ] || fail "$tag: runner failed ($rc)"
}

# check_trace TAG SMP: each AMB the payload wrote decoded against the
# record of the hart that wrote it. The boot hart: strc.bin (buffer at its
# own address, satp Bare), strc-demand.bin (Sv39, pages mapped by the LAMBI
# handler), then strc-hart<boot>.bin while every other hart traces itself
# at the same time into strc-hart<h>.bin; a later run's window is in the
# record after the earlier ones' ends.
check_trace() {
  local tag=$1 smp=$2 d=$W/$1 boot calls n fw f h skip runs=()
  check "$tag/firmware_hands_over ($(grep -m1 'self-hosted trace' "$d/console.log"))" \
    grep -q "tsbi: trace: self-hosted trace (Smstrcn, Ssamb) on $smp hart(s) handed to S-mode" "$d/console.log"
  boot=$(sed -n 's/^TSBI-START .* hart=\([0-9]*\).*/\1/p' "$d/console.log" | head -1)
  [ -n "$boot" ] && [ -s "$d/rec.$boot" ] || { fail "$tag: no TSBI-START line or no record"; return; }
  runs=("strc $boot 0" "strc-demand $boot 1")
  if [ "$smp" -gt 1 ]; then
    for ((h = 0; h < smp && h < 4; h++)); do
      if [ "$h" = "$boot" ]; then runs+=("strc-hart$h $h 2"); else runs+=("strc-hart$h $h 0"); fi
    done
  fi
  for r in "${runs[@]}"; do
    read -r f h skip <<< "$r"
    awk -v e="$(printf '0x%x' "$END")" -v k="$skip" '$2 == 1 && seen >= k {print} $1 == e {seen++}' \
      "$d/rec.$h" > "$d/srec.$f"
  done
  rm -f "$d"/rec.*
  for r in "${runs[@]}"; do
    read -r f h skip <<< "$r"
    [ -s "$d/$f.bin" ] || { fail "$tag/$f: no $f.bin"; continue; }
    if ! "$DEC" ntrace decode --elf "$ELF" --elf "$FW_ELF" --src-bits 0 "$d/$f.bin" -o "$d/$f.pcs" \
         > "$d/$f.decode.err" 2>&1; then
      fail "$tag/$f/decodes ($(head -c 300 "$d/$f.decode.err"))"; continue
    fi
    pass "$tag/$f/decodes"
    # S-mode only (compare.py --priv 1): M-mode is never traced, the SBI
    # calls in between leave gaps. The LAMBI handler is S-mode: traced.
    if python3 "$COMPARE" "$d/$f.pcs" "$d/srec.$f" --priv 1 --min 10000 --begin "$BEGIN" --end "$END" \
         > "$d/$f.compare" 2>&1; then
      pass "$tag/$f/equals_executed_smode ($(cut -d' ' -f1 "$d/$f.compare") instructions)"
    else
      fail "$tag/$f/equals_executed_smode ($(tail -2 "$d/$f.compare" | tr '\n' ' '))"
    fi
    fw=$(python3 -c 'import sys
start, end = (int(x, 16) for x in sys.argv[2:4])
print(sum(start <= int(l.split()[0], 16) < end for l in open(sys.argv[1])))' "$d/$f.pcs" "$FW0" "$FW1")
    check "$tag/$f/no_firmware_address ($fw)" [ "$fw" = 0 ]
    # Each SBI call leaves S-mode for the firmware: the trace pauses
    # (ProgTraceCorrelation EVCODE=4) and resumes at the return
    # (ProgTraceSync SYNC=5); one more pause ends the trace and one more
    # sync starts it.
    calls=$(sed -n "s/^STRC-SBI-CALLS: $f.bin //p" "$d/run.out" | head -1)
    "$DEC" ntrace dump --fields --src-bits 0 "$d/$f.bin" > "$d/$f.dump" 2>&1
    n=$(grep -c '^EVCODE=0x4' "$d/$f.dump")
    check "$tag/$f/a_gap_per_sbi_call (EVCODE=4: $n, SBI calls: $calls + the stop)" [ "$n" = $((calls + 1)) ]
    n=$(grep -c '^SYNC=0x5' "$d/$f.dump")
    check "$tag/$f/a_resume_per_sbi_call (SYNC=5: $n, SBI calls: $calls + the start)" [ "$n" = $((calls + 1)) ]
  done
  grep '^STRC-COST: ' "$d/run.out" | sed "s/^/$tag: /"
}

run_strc smp1 1
check_trace smp1 1
run_strc smp4 4
check_trace smp4 4

# /chosen/tsbi,strc = "off": the firmware keeps the CSRs (mstateen0.STRC=0)
# and withholds ssstrcn/ssamb from the device tree: the payload finds
# neither and sstrcctl is an illegal instruction.
d=$W/off; mkdir -p "$d"
"$q" -M virt,dumpdtb="$d/off.dtb" -cpu rv64,smstrcn=true -smp 1 -m 256M -nographic -bios none </dev/null >/dev/null 2>&1 &&
  fdtput -t s "$d/off.dtb" /chosen tsbi,strc off ||
  fail "strc: cannot make the tsbi,strc = \"off\" device tree"
(cd "$d" && "$RUN" --qemu "$q" --timeout 300 --smp 1 --cpu smstrcn=true --tag off --log "$d/console.log" \
   --qemu-arg=-dtb --qemu-arg="$d/off.dtb" strc) > "$d/run.out" 2>&1
rc=$?
grep -E '^(PASS|FAIL|N/A): ' "$d/run.out"
[ $rc -le 1 ] || fail "strc/off: runner failed ($rc)"
check "off/kept_from_smode ($(grep -m1 'self-hosted trace' "$d/console.log"))" \
  grep -q 'tsbi: trace: self-hosted trace on 1 hart(s) kept from S-mode (tsbi,strc = "off")' "$d/console.log"
check "off/not_in_device_tree ($(grep -m1 '^N/A: strc/detect' "$d/console.log" | cut -c1-60))" grep -q '^N/A: strc/detect' "$d/console.log"

# Boot-time trace (/chosen/tsbi,trace = "htm") holds every encoder from the
# hand-off: the CSRs are not offered either.
d=$W/boot-trace; mkdir -p "$d"
cp "$W/off/off.dtb" "$d/boot.dtb" && fdtput -d "$d/boot.dtb" /chosen tsbi,strc &&
  fdtput -t s "$d/boot.dtb" /chosen tsbi,trace htm ||
  fail "strc: cannot make the tsbi,trace device tree"
(cd "$d" && "$RUN" --qemu "$q" --timeout 300 --smp 1 --cpu smstrcn=true --tag boot-trace --log "$d/console.log" \
   --qemu-arg=-dtb --qemu-arg="$d/boot.dtb" strc) > "$d/run.out" 2>&1
rc=$?
grep -E '^(PASS|FAIL|N/A): ' "$d/run.out"
[ $rc -le 1 ] || fail "strc/boot-trace: runner failed ($rc)"
check "boot-trace/kept_from_smode ($(grep -m1 'self-hosted trace' "$d/console.log"))" \
  grep -q 'tsbi: trace: self-hosted trace on 1 hart(s) kept from S-mode (boot-time trace)' "$d/console.log"
check "boot-trace/not_in_device_tree" grep -q '^N/A: strc/detect' "$d/console.log"

# The core alone (FW_SUBSYSTEMS=0, as suite 21 builds it) never opens
# mstateen0.STRC and withholds the extensions: nothing offered.
build firmware FW_SUBSYSTEMS=0
FW_CORE=$PWD/build/fw-generic-rv64-core/tsbi_dynamic.bin
d=$W/core-only; mkdir -p "$d"
(cd "$d" && "$RUN" --qemu "$q" --timeout 300 --fw "$FW_CORE" --smp 1 \
   --cpu smstrcn=true --tag core-only --log "$d/console.log" strc) > "$d/run.out" 2>&1
rc=$?
grep -E '^(PASS|FAIL|N/A): ' "$d/run.out"
[ $rc -le 1 ] || fail "strc/core-only: runner failed ($rc)"
check "core-only/not_in_device_tree" grep -q '^N/A: strc/detect' "$d/console.log"
exit 0
