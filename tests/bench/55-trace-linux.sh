#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Wall time of the traced Linux boot (make trace-linux: Linux 6.12, 2 harts,
# the firmware's boot-time HTM trace of S-mode into a 512 MiB buffer) against
# the same boot without /chosen tsbi,trace (same QEMU, RAM file, device tree
# otherwise). Best of 3 runs each, alternating. Target: at most 1.5x.
. "$(dirname "$0")/../lib.sh"

build firmware trace linux-initrd-boot
flock /tmp/tsbi-qemu10.lock scripts/qemu10.sh path >/dev/null || { fail "bench trace-linux: no project QEMU"; exit 1; }
best() { sort -n | head -1; }
: >build/test-logs/bench-trace-linux.times
for i in 1 2 3; do
  for kind in untraced traced; do
    n=0; [ $kind = untraced ] && n=1
    t=$(OUT=build/trace-linux-bench TRACE_NOTRACE=$n tests/tracelinux/run.sh 2>&1 |
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
rm -rf build/trace-linux-bench
