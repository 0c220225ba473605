# SPDX-License-Identifier: BSD-2-Clause
# perf's own test suite (tsbi.test=perf-test, initramfs "perf"): each test of
# `perf test list`, or only those of tsbi.perftest=N,N,... , run on its own
# (`perf test N`) with a time limit of tsbi.perftest_limit seconds (default
# 300) and timed by uptime; tsbi.perftest_v=1 adds -v (why a test fails).
# Prints each test's result lines as perf does ("N: name : Ok", "N.M: ... :
# FAILED!", "... : Skip (reason)") and one
#   TSBI-PERFTEST n=N status=EXIT seconds=S
# line per test; tests/linux/perftest.py turns the console log into a table.
echo -1 >/proc/sys/kernel/perf_event_paranoid
# Kernel messages on the console would land inside perf's result lines
# ("N: name :[ 13.46] hrtimer: interrupt took ... ns" then "Ok"): only
# emergencies reach the console while the tests run.
echo 1 >/proc/sys/kernel/printk
sel= limit=300 v=
for arg in $(cat /proc/cmdline); do
  case $arg in
    tsbi.perftest=*) sel=$(echo "${arg#tsbi.perftest=}" | tr ',' ' ') ;;
    tsbi.perftest_limit=*) limit=${arg#tsbi.perftest_limit=} ;;
    tsbi.perftest_v=1) v=-v ;;
  esac
done
perf test list >/tmp/list.txt 2>&1
echo "TSBI-RESULT perftest.list.status=$? perftest.count=$(grep -c '^ *[0-9]*: ' /tmp/list.txt)"
sed 's/^/perf-test-list: /' /tmp/list.txt
# Top-level tests only ("  4: ..."; subtests are listed as "  4:1: ...").
[ -n "$sel" ] || sel=$(sed -n 's/^ *\([0-9][0-9]*\): .*/\1/p' /tmp/list.txt)
cd /tmp
for n in $sel; do
  read -r t0 _ </proc/uptime
  timeout "$limit" perf test $v "$n" </dev/null 2>&1
  st=$?
  read -r t1 _ </proc/uptime
  echo "TSBI-PERFTEST n=$n status=$st seconds=$(awk "BEGIN { print $t1 - $t0 }")"
done
exit 0
