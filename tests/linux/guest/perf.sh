# SPDX-License-Identifier: BSD-2-Clause
# perf test, run by /init (initramfs "perf"): counts hardware and SBI firmware
# events and samples through the SBI PMU extension. Prints the perf outputs
# and TSBI-RESULT lines the host (tests/suites/35-perf.sh) judges.
echo -1 >/proc/sys/kernel/perf_event_paranoid
echo "TSBI-RESULT paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)"
w=/tsbi/workload.sh
echo "cpu PMU format: $(ls /sys/bus/event_source/devices/cpu/format 2>&1 | tr '\n' ' ')"

# stat NAME "LABEL..." PERF-STAT-ARGS...: runs perf stat with ';'-separated
# output; prints "TSBI-RESULT stat.NAME.status=<exit status>" and
# "TSBI-RESULT stat.<label>=<count>" per event, in the order given.
stat() {
  name=$1 labels=$2; shift 2
  echo "--- perf stat $*"
  perf stat -x';' -o /tmp/stat.txt "$@"
  echo "TSBI-RESULT stat.$name.status=$?"
  cat /tmp/stat.txt
  grep -v -e '^#' -e '^$' /tmp/stat.txt | cut -d';' -f1 >/tmp/counts.txt
  for l in $labels; do
    read -r v || v=missing
    case $v in "<not supported>") v=not-supported ;; "<not counted>") v=not-counted ;; esac
    echo "TSBI-RESULT stat.$l=$v"
  done </tmp/counts.txt
}

stat hw "cycles instructions dTLB-load-misses iTLB-load-misses" \
  -e cycles,instructions,dTLB-load-misses,iTLB-load-misses -- sh $w spin 20000

# SBI firmware events (SBI PMU spec, firmware event codes), system-wide while
# every CPU forks and exits processes.
fw="4:illegal_insn 5:set_timer 6:ipi_sent 7:ipi_recvd 8:fence_i_sent 9:fence_i_recvd
    10:sfence_vma_sent 11:sfence_vma_recvd 12:sfence_vma_asid_sent 13:sfence_vma_asid_recvd"
ev='' labels=''
for e in $fw; do
  ev=$ev${ev:+,}cpu/firmware=2,event=${e%%:*}/
  labels="$labels fw.${e#*:}"
done
stat fw "$labels" -a -e "$ev" -- sh $w churn

# Sampling through counter overflow (Sscofpmf LCOFI), per task: the first
# perf record is the result, as a user would see it (no retry).
for e in cycles instructions; do
  echo "--- perf record -e $e -c 200000"
  perf record -e "$e" -c 200000 -o "/tmp/$e.data" -- sh $w spin 20000 2>&1
  echo "TSBI-RESULT record.$e.status=$?"
  # Without call chains perf script prints one line per sample.
  perf script -i "/tmp/$e.data" 2>/dev/null >"/tmp/$e.script"
  # Sample, throttle and lost-record totals: where missing samples went.
  perf report -i "/tmp/$e.data" --stats 2>&1 | grep -E 'TOTAL|SAMPLE|THROTTLE|LOST' | grep -v ' 0$' | sort -u
  perf report -i "/tmp/$e.data" --stdio --sort comm,dso 2>&1 | grep -v -e '^#' -e '^$' | head -n 20
  head -n 5 "/tmp/$e.script"
  echo "TSBI-RESULT record.$e.samples=$(wc -l <"/tmp/$e.script")"
  echo "TSBI-RESULT record.$e.user_samples=$(grep -c -v kernel.kallsyms "/tmp/$e.script")"
done
exit 0
