# SPDX-License-Identifier: BSD-2-Clause
# Workloads for the perf test: sh /tsbi/workload.sh spin N | churn
case $1 in
  # A CPU-bound loop in the shell (user time, a few syscalls).
  spin) i=0; while [ "$i" -lt "${2:-20000}" ]; do i=$((i + 1)); done ;;
  # Short-lived processes on every CPU at once: fork/exec/exit on each hart
  # make the kernel send IPIs and remote TLB flushes (SBI IPI and RFENCE).
  churn)
    n=$(nproc); c=0
    while [ "$c" -lt "$n" ]; do
      taskset -c "$c" sh -c 'j=0; while [ $j -lt 30 ]; do /bin/true; j=$((j + 1)); done' &
      c=$((c + 1))
    done
    wait ;;
  *) echo "workload: unknown $1" >&2; exit 2 ;;
esac
