#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# `make trace-linux`: boots Linux 6.12 on the project QEMU with the firmware's
# boot-time trace (/chosen tsbi,trace), powers off, takes the trace buffer out of
# the file that backs guest RAM, decodes every hart and prints the per-hart table.
#   run.sh [--verify]   --verify: the insnlog plugin records the same run's
#                       S-mode instructions (runs=S) and every hart's decoded
#                       stream must equal them; the last line reports how many
#                       instructions were compared.
# Environment: QEMU (default: the project QEMU), TRACE_MODE (htm|btm, default htm),
# TRACE_FORMAT (ntrace|etrace, default ntrace: /chosen tsbi,trace-format),
# TRACE_MEM (guest RAM, default 2G), TRACE_SIZE (buffer MiB, default 512),
# SMP (default 2), OUT (default build/trace-linux), TRACE_TIMEOUT (s, default 900),
# TRACE_NOTRACE=1 (the same boot without /chosen tsbi,trace: the bench's baseline).
# Exit status: 0 ok, 1 a check failed, 2 a missing input.
#
# The boot hart's stream ends where it asks for the power-off (SBI SRST); the
# firmware then stops the other harts' encoders from the boot hart, while those
# harts still run, so their record may go on for a while after their trace:
# TRACE_MAX_TAIL (default 100000) instructions are allowed there and reported.
set -euo pipefail
cd "$(dirname "$0")/../.."
verify=0
[ "${1:-}" = --verify ] && verify=1
mode=${TRACE_MODE:-htm} mem=${TRACE_MEM:-2G} size=${TRACE_SIZE:-512} smp=${SMP:-2}
format=${TRACE_FORMAT:-ntrace}
case $format in ntrace|etrace) ;; *) echo "trace-linux: TRACE_FORMAT must be ntrace or etrace" >&2; exit 2;; esac
out=${OUT:-build/trace-linux}
q=${QEMU:-$(flock /tmp/tsbi-qemu10.lock scripts/qemu10.sh path)}
fw=build/fw/tsbi_dynamic.bin initrd=build/linux/initrd-boot.cpio.gz
dec=build/trace/tsbi-trace plugin=build/qemu-tests/libinsnlog.so
linux=$(readlink -f "$(scripts/fetch_linux.sh)")
for f in "$q" "$fw" "$initrd" "$dec" "$linux/Image"; do
  [ -e "$f" ] || { echo "trace-linux: missing $f" >&2; exit 2; }
done
[ $verify = 0 ] || [ -e "$plugin" ] || { echo "trace-linux: missing $plugin" >&2; exit 2; }
command -v fdtput >/dev/null || { echo "trace-linux: fdtput missing (device-tree-compiler)" >&2; exit 2; }
syms=$(tests/tracelinux/kallsyms.sh "$q" "$fw" "$initrd")
mkdir -p "$out"
rm -f "$out"/ram.bin "$out"/record.* "$out"/decoded.*

# QEMU's own device tree for this machine, with the trace request in /chosen.
cpu=rv64
"$q" -M "virt,dumpdtb=$out/virt.dtb" -cpu "$cpu" -smp "$smp" -m "$mem" -nographic -bios none >/dev/null
if [ "${TRACE_NOTRACE:-0}" != 1 ]; then
  fdtput -t s "$out/virt.dtb" /chosen tsbi,trace "$mode"
  fdtput -t i "$out/virt.dtb" /chosen tsbi,trace-size "$size"
  fdtput -t s "$out/virt.dtb" /chosen tsbi,trace-format "$format"
fi

# Guest RAM in a file: after QEMU exits, physical address A is at offset A - 0x80000000.
args=(-M virt,memory-backend=ram0 -object "memory-backend-file,id=ram0,size=$mem,mem-path=$out/ram.bin,share=on"
      -cpu "$cpu" -smp "$smp" -m "$mem" -nographic -bios "$fw" -dtb "$out/virt.dtb"
      -kernel "$linux/Image" -initrd "$initrd" -append 'console=ttyS0 nokaslr tsbi.test=poweroff')
[ $verify = 1 ] && args+=(-plugin "$plugin,out=$out/record,runs=S")
echo "trace-linux: $q ${args[*]}"
t0=$(date +%s.%N)
if ! timeout "${TRACE_TIMEOUT:-900}" "$q" "${args[@]}" </dev/null >"$out/console.log" 2>&1; then
  echo "trace-linux: QEMU failed or timed out; last console lines:"; tail -5 "$out/console.log"; exit 1
fi
t1=$(date +%s.%N)
echo "trace-linux: boot wall time $(awk "BEGIN { printf \"%.2f\", $t1 - $t0 }") s"
grep -aq '^TSBI-RESULT end test=poweroff rc=0' "$out/console.log" ||
  { echo "trace-linux: the guest did not reach its power-off"; exit 1; }
[ "${TRACE_NOTRACE:-0}" = 1 ] && { rm -f "$out/ram.bin"; exit 0; }

# Decode (with the decoded streams as run files when verifying).
dopts=()
[ $verify = 1 ] && dopts=(-o "$out/decoded")
rc=0
"$dec" linux decode "$out/ram.bin" --image "$linux/Image" --syms "$syms" "${dopts[@]}" || rc=1
[ $verify = 1 ] || exit $rc

total=0
for d in "$out"/decoded.*; do
  h=${d##*.}
  [ -e "$out/record.$h" ] || { echo "hart $h: no record"; rc=1; continue; }
  if r=$("$dec" runs compare --max-tail "${TRACE_MAX_TAIL:-100000}" "$d" "$out/record.$h"); then
    echo "hart $h: $r"
  else
    echo "hart $h: MISMATCH: $r"; rc=1
  fi
  n=$(echo "$r" | sed -n 's/^\([0-9]*\) instructions equal.*/\1/p')
  total=$((total + ${n:-0}))
done
[ -e "$out/decoded.0" ] || rc=1
echo "trace-linux: $total instructions compared, $([ $rc = 0 ] && echo "all equal" || echo "NOT all equal")"
exit $rc
