# SPDX-License-Identifier: BSD-2-Clause
# Repeats perf record on one workload (tsbi.test=perf-loop, initramfs
# "perf") to show how steady overflow sampling is; not used by the suites.
echo -1 >/proc/sys/kernel/perf_event_paranoid
for e in cycles instructions; do
  for i in 1 2 3 4 5; do
    perf record -q -e "$e" -c 200000 -o /tmp/l.data -- sh /tsbi/workload.sh spin 5000 >/dev/null 2>&1
    s=$(perf script -i /tmp/l.data 2>/dev/null | wc -l)
    t=$(perf report -i /tmp/l.data --stats 2>/dev/null | sed -n 's/ *THROTTLE events: *\([0-9]*\).*/\1/p' | head -n 1)
    echo "TSBI-RESULT loop.$e.$i=$s throttle=${t:-0}"
  done
done
