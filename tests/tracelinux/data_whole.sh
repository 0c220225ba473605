#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# data_whole.sh QEMU: the whole-boot part of `make trace-linux-data` (called by
# tests/tracelinux/data.sh, which checked the inputs and documents the
# environment). Prints the boot's wall time, the trace size, per hart the
# accesses and instructions compared, and a final verdict line.
set -euo pipefail
cd "$(dirname "$0")/../.."
q=$1
out=${OUT:-build/trace-linux-data} smp=${SMP:-1} mem=${TRACE_MEM:-8G} size=${TRACE_SIZE:-6144}
fw=build/fw/tsbi_dynamic.bin initrd=build/linux/initrd-boot.cpio.gz
dec=build/trace/tsbi-trace plugin=build/qemu-tests/libinsnlog.so
linux=$(readlink -f "$(scripts/fetch_linux.sh)")
syms=$(tests/tracelinux/kallsyms.sh "$q" "$fw" "$initrd")
tail=${TRACE_MAX_TAIL:-100000}
keep=()
[ -n "${ACC_KEEP:-}" ] && keep+=(--keep "$ACC_KEEP")
rm -f "$out"/ram.bin "$out"/rec.* "$out"/decoded.*
# The RAM file's trace, the plugin's records and the decoded files: about 15 GB.
avail=$(df -Pk "$out" | awk 'NR == 2 { print int($4 / 1048576) }')
[ "$avail" -ge "${TRACE_DISK_GB:-20}" ] ||
  { echo "trace-linux-data: $avail GiB free under $out, ${TRACE_DISK_GB:-20} needed (TRACE_DISK_GB)" >&2; exit 2; }

"$q" -M "virt,dumpdtb=$out/virt.dtb" -cpu rv64 -smp "$smp" -m "$mem" -nographic -bios none >/dev/null
fdtput -t s "$out/virt.dtb" /chosen tsbi,trace htm
fdtput -t i "$out/virt.dtb" /chosen tsbi,trace-size "$size"
fdtput -t s "$out/virt.dtb" /chosen tsbi,trace-format etrace
fdtput -t s "$out/virt.dtb" /chosen tsbi,trace-data ""
args=(-M virt,memory-backend=ram0 -object "memory-backend-file,id=ram0,size=$mem,mem-path=$out/ram.bin,share=on"
      -cpu rv64 -smp "$smp" -m "$mem" -nographic -bios "$fw" -dtb "$out/virt.dtb"
      -kernel "$linux/Image" -initrd "$initrd" -append 'console=ttyS0 nokaslr tsbi.test=poweroff'
      -plugin "$plugin,out=$out/rec,runs=S,acc=S")
echo "trace-linux-data: $q ${args[*]}"
t0=$(date +%s.%N)
if ! timeout "${TRACE_TIMEOUT:-3600}" "$q" "${args[@]}" </dev/null >"$out/console.log" 2>&1; then
  echo "trace-linux-data: QEMU failed or timed out; last console lines:"; tail -5 "$out/console.log"; exit 1
fi
t1=$(date +%s.%N)
echo "trace-linux-data: boot wall time $(awk "BEGIN { printf \"%.1f\", $t1 - $t0 }") s"
grep -aq 'tsbi: trace: HTM E-Trace with data trace of S-mode' "$out/console.log" ||
  { echo "trace-linux-data: the firmware did not start the data trace"; grep -a 'tsbi: trace' "$out/console.log"; exit 1; }
grep -aq '^TSBI-RESULT end test=poweroff rc=0' "$out/console.log" ||
  { echo "trace-linux-data: the guest did not reach its power-off"; exit 1; }

t0=$(date +%s)
rc=0
"$dec" linux decode "$out/ram.bin" --image "$linux/Image" --syms "$syms" --top 0 \
  -o "$out/decoded.runs" --data "$out/decoded.acc" | tee "$out/decode.log" || rc=1
rm -f "$out/ram.bin"
# Atomics: paired with the record's when the model traced any (atomic packets
# decoded), else left out on both sides; ACC_ATOMICS=pair|skip overrides.
atoms=$(sed -n 's/.* \([0-9]*\) atomic packets.*/\1/p' "$out/decode.log" | awk '{ n += $1 } END { print n + 0 }')
atomics=${ACC_ATOMICS:-$([ "$atoms" -gt 0 ] && echo pair || echo skip)}
echo "trace-linux-data: $atoms atomic packets decoded: atomics $([ "$atomics" = pair ] && echo paired || echo "left out")"
keep+=(--atomics "$atomics")
accesses=0 insns=0
for d in "$out"/decoded.acc.*; do
  h=${d##*.}
  for pair in "acc:$out/rec.acc.$h" "runs:$out/rec.$h"; do
    kind=${pair%%:*} rec=${pair#*:}
    dfile=$out/decoded.$kind.$h
    [ -e "$rec" ] || { echo "hart $h: no record $rec"; rc=1; continue; }
    if [ "$kind" = acc ]; then
      r=$("$dec" acc compare --max-tail "$tail" "${keep[@]}" "$dfile" "$rec") && ok=1 || ok=0
      n=$(echo "$r" | sed -n '1s/^\([0-9]*\) accesses equal.*/\1/p'); accesses=$((accesses + ${n:-0}))
    else
      r=$("$dec" runs compare --max-tail "$tail" "$dfile" "$rec") && ok=1 || ok=0
      n=$(echo "$r" | sed -n 's/^\([0-9]*\) instructions equal.*/\1/p'); insns=$((insns + ${n:-0}))
    fi
    if [ $ok = 1 ]; then echo "hart $h $kind: $r"; else echo "hart $h $kind: MISMATCH: $r"; rc=1; fi
  done
done
[ -e "$out/decoded.acc.0" ] || rc=1
echo "trace-linux-data: record $(du -ch "$out"/rec.acc.* | tail -1 | cut -f1) (accesses) + $(du -ch "$out"/rec.[0-9]* | tail -1 | cut -f1) (instructions), decode and compare $(( $(date +%s) - t0 )) s"
echo "trace-linux-data: $accesses loads and stores and $insns instructions compared on $smp hart(s), $([ $rc = 0 ] && echo "all equal" || echo "NOT all equal")"
[ $rc = 0 ] && rm -f "$out"/rec.* "$out"/decoded.*
exit $rc
