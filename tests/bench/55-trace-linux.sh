#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Wall time of the traced Linux boot (make trace-linux: Linux 6.12, 2 harts,
# the firmware's boot-time HTM trace of S-mode into a 512 MiB buffer) against
# the same boot without /chosen tsbi,trace (same QEMU, RAM file, device tree
# otherwise), and the same traced boot in E-Trace (FORMAT=etrace: the encoder
# walks every traced instruction, hw_models/qemu/README.md "E-Trace"). Best of
# 3 runs each, alternating. Targets: N-Trace HTM at most 1.5x the untraced
# boot, E-Trace at most 2x the N-Trace one.
. "$(dirname "$0")/../lib.sh"

build firmware trace linux-initrd-boot
flock /tmp/tsbi-qemu10.lock scripts/qemu10.sh path >/dev/null || { fail "bench trace-linux: no project QEMU"; exit 1; }
best() { sort -n | head -1; }
: >build/test-logs/bench-trace-linux.times
for i in 1 2 3; do
  for kind in untraced traced etrace; do
    n=0 f=ntrace; [ $kind = untraced ] && n=1; [ $kind = etrace ] && f=etrace
    t=$(OUT=build/trace-linux-bench TRACE_NOTRACE=$n TRACE_FORMAT=$f tests/tracelinux/run.sh 2>&1 |
        sed -n 's/^trace-linux: boot wall time \([0-9.]*\) s/\1/p')
    [ -n "$t" ] || { fail "bench trace-linux: the $kind boot failed"; exit 1; }
    echo "$kind $t" >>build/test-logs/bench-trace-linux.times
  done
done
u=$(awk '$1 == "untraced" { print $2 }' build/test-logs/bench-trace-linux.times | best)
t=$(awk '$1 == "traced" { print $2 }' build/test-logs/bench-trace-linux.times | best)
r=$(awk -v a="$t" -v b="$u" 'BEGIN { printf "%.2f", a / b }')
echo "traced Linux boot (HTM, 2 harts): ${t} s, untraced ${u} s: ${r}x (best of 3; load $(cut -d' ' -f1 /proc/loadavg))"
if awk -v r="$r" 'BEGIN { exit !(r <= 1.5) }'; then pass "bench trace-linux: traced boot ${r}x the untraced wall time (<= 1.5x)"
else fail "bench trace-linux: traced boot ${r}x the untraced wall time (target <= 1.5x)"; fi
e=$(awk '$1 == "etrace" { print $2 }' build/test-logs/bench-trace-linux.times | best)
re=$(awk -v a="$e" -v b="$t" 'BEGIN { printf "%.2f", a / b }')
ru=$(awk -v a="$e" -v b="$u" 'BEGIN { printf "%.2f", a / b }')
echo "traced Linux boot in E-Trace (2 harts): ${e} s: ${re}x the N-Trace HTM boot, ${ru}x the untraced one (best of 3)"
if awk -v r="$re" 'BEGIN { exit !(r <= 2) }'; then pass "bench trace-linux: E-Trace boot ${re}x the N-Trace HTM wall time (<= 2x)"
else fail "bench trace-linux: E-Trace boot ${re}x the N-Trace HTM wall time (target <= 2x)"; fi
rm -rf build/trace-linux-bench
