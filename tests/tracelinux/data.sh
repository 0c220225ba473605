#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# `make trace-linux-data`: the E-Trace data trace of a whole Linux boot, checked
# access for access against the insnlog plugin.
#
# Whole boot (the default): Linux 6.12 boots on SMP (default 1) harts of the
# project QEMU with the firmware's boot-time E-Trace plus data trace (/chosen
# tsbi,trace-format = "etrace", tsbi,trace-data) to its power-off, under insnlog
# acc=S,runs=S (every S-mode load and store as a binary access record,
# hw_models/trace/accrec.hpp, and every S-mode instruction as an instruction-run
# file). `tsbi-trace linux decode --data` decodes every hart's instruction and
# data packets from the file backing guest RAM into the same two forms, and
# `tsbi-trace acc compare` / `runs compare` stream each pair: every load and
# store must be equal (kind, size, address, value) from the first on, and every
# instruction. Vector accesses and cbo.zero (which QEMU reports as 64 byte
# stores) are not data traced: the comparison leaves them out on both sides
# and prints how many (ACC_KEEP=vector,other compares them too). Atomics
# (AMO, LR/SC): when the trace has atomic packets, the record's AMOs, LRs and
# SCs are paired with them and with the loads and stores an LR and an SC
# that stored are traced as (`tsbi-trace acc compare --atomics pair`);
# otherwise (a model without atomics in its data trace) they are left out on
# both sides and counted. ACC_ATOMICS=pair|skip overrides. The buffer holds
# the whole boot's trace (about 9 bytes of data packets per access):
# TRACE_MEM (default 8G) of guest RAM,
# TRACE_SIZE (default 6144) MiB of it for the buffer.
#
# Window (TRACE_SECONDS=N, `make trace-linux-data WINDOW=N`): the earlier check
# of the first N seconds of a 1-hart boot, which is then stopped: insnlog
# priv=on,mem=S (text records), the trace written so far (the encoder's last
# unflushed batch is lost with the stop, so the last packet may be cut) taken
# from the RAM file, its data packets decoded (`tsbi-trace etrace decode
# --data`) and compared from the first recorded access on by
# tests/qemu/compare_data.py.
#
# Environment: QEMU (default: the project QEMU), OUT (default
# build/trace-linux-data), SMP, TRACE_MEM, TRACE_SIZE, TRACE_TIMEOUT (s,
# default 3600), TRACE_MAX_TAIL (default 100000: accesses and instructions a
# secondary hart may make after the boot hart stopped its encoder at power-off),
# ACC_ATOMICS (pair|skip, default: pair when atomic packets were decoded),
# ACC_KEEP, TRACE_DISK_GB (default 20: the free space required),
# TRACE_SECONDS. Exit status: 0 equal, 1 a check failed, 2 a missing input.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=${OUT:-build/trace-linux-data} secs=${TRACE_SECONDS:-}
q=${QEMU:-$(flock /tmp/tsbi-qemu10.lock scripts/qemu10.sh path)}
fw=build/fw/tsbi_dynamic.bin initrd=build/linux/initrd-boot.cpio.gz
dec=build/trace/tsbi-trace plugin=build/qemu-tests/libinsnlog.so
linux=$(readlink -f "$(scripts/fetch_linux.sh)")
for f in "$q" "$fw" "$initrd" "$dec" "$plugin" "$linux/Image"; do
  [ -e "$f" ] || { echo "trace-linux-data: missing $f" >&2; exit 2; }
done
command -v fdtput >/dev/null || { echo "trace-linux-data: fdtput missing (device-tree-compiler)" >&2; exit 2; }
mkdir -p "$out"
rm -f "$out"/ram.bin "$out"/rec.* "$out"/trace.bin "$out"/decoded.*
[ -n "$secs" ] || exec tests/tracelinux/data_whole.sh "$q"
"$q" -M "virt,dumpdtb=$out/virt.dtb" -cpu rv64 -smp 1 -m 2G -nographic -bios none >/dev/null
fdtput -t s "$out/virt.dtb" /chosen tsbi,trace htm
fdtput -t i "$out/virt.dtb" /chosen tsbi,trace-size 512
fdtput -t s "$out/virt.dtb" /chosen tsbi,trace-format etrace
fdtput -t s "$out/virt.dtb" /chosen tsbi,trace-data ""
args=(-M virt,memory-backend=ram0 -object "memory-backend-file,id=ram0,size=2G,mem-path=$out/ram.bin,share=on"
      -cpu rv64 -smp 1 -m 2G -nographic -bios "$fw" -dtb "$out/virt.dtb"
      -kernel "$linux/Image" -initrd "$initrd" -append 'console=ttyS0 nokaslr tsbi.test=poweroff'
      -plugin "$plugin,out=$out/rec,priv=on,mem=S")
echo "trace-linux-data: $q ${args[*]} (stopped after $secs s)"
rc=0
timeout "$secs" "$q" "${args[@]}" </dev/null >"$out/console.log" 2>&1 || rc=$?
[ $rc = 124 ] || [ $rc = 0 ] || { echo "trace-linux-data: QEMU failed ($rc)"; tail -5 "$out/console.log"; exit 1; }
grep -aq 'tsbi: trace: HTM E-Trace with data trace of S-mode' "$out/console.log" ||
  { echo "trace-linux-data: the firmware did not start the data trace"; grep -a 'tsbi: trace' "$out/console.log"; exit 1; }

# The buffer: the firmware's TSBITRCE header (firmware/trace/README.md) at a
# 2 MiB aligned address, the trace from header + 4096 on; written so far up
# to the last non-zero byte (the RAM file starts as zeros).
python3 - "$out/ram.bin" "$out/trace.bin" <<'PY'
import mmap, struct, sys
with open(sys.argv[1], 'rb') as f:
    m = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
    off = None
    for o in range(len(m) - (2 << 20), -1, -(2 << 20)):
        if m[o:o + 8] == b'TSBITRCE':
            off = o
            break
    if off is None:
        sys.exit("trace-linux-data: no TSBITRCE header in the RAM file")
    start, limit = struct.unpack_from('<QQ', m, off + 0x10)
    st, end = off + 4096, off + 4096 + (limit - start)
    e = end
    while e > st:
        lo = max(st, e - (1 << 20))
        s = m[lo:e].rstrip(b'\0')
        if s:
            e = lo + len(s)
            break
        e = lo
    with open(sys.argv[2], 'wb') as w:
        w.write(m[st:e])
    print("trace-linux-data: %d trace bytes written in the window, SrcBits %d"
          % (e - st, struct.unpack_from('<I', m, off + 0x34)[0]))
PY
rm -f "$out/ram.bin"
# The data packets of hart 0 (its instruction packets are decoded too, against
# the pristine Image: rewritten code is not followed here, and only the data
# trace is compared).
"$dec" etrace decode --src-bits 1 --src 0 --bin "$linux/Image" --load 0x80200000 \
  --bin "$linux/Image" --load 0xffffffff80000000 --data "$out/decoded.data" -o /dev/null "$out/trace.bin" \
  2>"$out/decode.log" || true
grep -a 'data trace records' "$out/decode.log" | sed 's/^# /trace-linux-data: /'
if grep -a 'data trace:' "$out/decode.log" | head -3 | grep -q .; then
  echo "trace-linux-data: data trace decoding errors:"; grep -a 'data trace:' "$out/decode.log" | head -3; exit 1
fi
r=$(python3 tests/qemu/compare_data.py "$out/decoded.data" - "$out/rec.mem.0" --within --min 100000) || {
  echo "trace-linux-data: MISMATCH: $r"; exit 1; }
echo "trace-linux-data: $r"
case $r in *"(accesses 0.."*) ;; *) echo "trace-linux-data: the decoded accesses do not start at the first recorded one"; exit 1;; esac
rm -f "$out"/rec.* "$out"/trace.bin "$out"/decoded.data
