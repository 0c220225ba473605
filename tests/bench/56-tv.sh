#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Tandem-verification trace of a Linux boot (issue 32): the tvtrace plugin
# writes the first TV_RECORDS (default 10^8) records of Linux 6.12 booting
# on one hart of the project QEMU (firmware, then the kernel), QEMU stops
# there (the plugin's limit=), and `tsbi-trace tv compare` streams the trace
# against itself. Reports wall time, records per second, bytes per record.
# PASS: the plugin wrote exactly that many records and compare says
# "equal, N records" (what is timed is reported, never asserted).
. "$(dirname "$0")/../lib.sh"

n=${TV_RECORDS:-100000000}
command -v /usr/bin/time >/dev/null || { fail "bench tv: /usr/bin/time (package time) is needed for CPU time and peak memory"; exit 1; }
build firmware trace linux-initrd-boot qemu-plugin
q=$(flock /tmp/tsbi-qemu10.lock scripts/qemu10.sh path) || { fail "bench tv: no project QEMU"; exit 1; }
linux=$(readlink -f "$(scripts/fetch_linux.sh)") || { fail "bench tv: no Linux image"; exit 1; }
out=build/tv-bench
rm -rf "$out"; mkdir -p "$out"
t0=$(date +%s.%N)
timeout 7200 "$q" -M virt -smp 1 -m 1G -nographic -bios build/fw/tsbi_dynamic.bin \
  -kernel "$linux/Image" -initrd build/linux/initrd-boot.cpio.gz \
  -append 'console=ttyS0 nokaslr tsbi.test=poweroff' \
  -plugin "build/qemu-tests/libtvtrace.so,out=$out/linux.tv,limit=$n" </dev/null >"$out/console.log" 2>&1
rc=$?
t1=$(date +%s.%N)
bytes=$(stat -c %s "$out/linux.tv.0" 2>/dev/null || echo 0)
tc0=$(date +%s.%N)
/usr/bin/time -f '%e s wall, %U s user, %M KiB peak' -o "$out/compare.time" \
  build/trace/tsbi-trace tv compare "$out/linux.tv.0" "$out/linux.tv.0" >"$out/compare.txt" 2>&1
crc=$?
tc1=$(date +%s.%N)
load=$(cut -d' ' -f1 /proc/loadavg)
awk -v n="$n" -v b="$bytes" -v t="$(awk "BEGIN { print $t1 - $t0 }")" -v c="$(awk "BEGIN { print $tc1 - $tc0 }")" \
  -v ct="$(cat "$out/compare.time")" -v load="$load" 'BEGIN {
  printf "tv bench: %d records of a Linux boot (1 hart): produced in %.1f s wall (%.2f M records/s, QEMU and plugin),\n", n, t, n / t / 1e6
  printf "tv bench: %.0f bytes (%.1f bytes/record); compared with itself in %.1f s (%.2f M records/s; %s); load %s\n",
    b, b / n, c, n / c / 1e6, ct, load }'
grep -a '^tvtrace: hart' "$out/console.log"
echo "tv bench: the guest had printed $(grep -av '^tvtrace' "$out/console.log" | grep -ac .) console lines, the last: $(grep -av '^tvtrace' "$out/console.log" | grep -a . | tail -1 | tr -d '\r' | cut -c1-100)"
expect_eq "bench tv: QEMU stopped by the plugin after $n records (exit 0)" "$out/console.log" 0 "$rc" "exit status"
expect_eq "bench tv: tv compare of the trace with itself" "$out/compare.txt" "0 equal, $n records" "$crc $(head -1 "$out/compare.txt")"
rm -rf "$out"
