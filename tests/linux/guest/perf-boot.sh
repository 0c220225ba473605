# SPDX-License-Identifier: BSD-2-Clause
# One boot of the repeated-boot perf check (tsbi.test=perf-boot, initramfs
# "perf"): what a user does first, perf stat then a single perf record of
# cycles on a shell loop. No retry: the first perf record is the result.
echo -1 >/proc/sys/kernel/perf_event_paranoid
w=/tsbi/workload.sh
perf stat -x';' -o /tmp/stat.txt -e cycles,instructions -- sh $w spin 5000
echo "TSBI-RESULT stat.status=$? stat.cycles=$(grep ';cycles' /tmp/stat.txt | cut -d';' -f1)"
perf record -q -e cycles -c 200000 -o /tmp/rec.data -- sh $w spin 20000 >/dev/null 2>&1
st=$?
n=$(perf script -i /tmp/rec.data 2>/dev/null | wc -l)
echo "TSBI-RESULT record.status=$st record.cycles.samples=$n"
exit 0
