# SPDX-License-Identifier: BSD-2-Clause
# Suspend to RAM (SBI SUSP, "deep" sleep) woken by the UART: the host types a
# key a few seconds after TSBI-SUSPEND-NOW (tests/suites/30-linux.sh). Prints
# TSBI-RESULT lines the host judges.
n=$(grep -c '^processor' /proc/cpuinfo)
res=ok
# "deep" is the platform suspend Linux implements with SBI SUSP.
grep -q '\[deep\]' /sys/power/mem_sleep || res="fail-mem_sleep($(cat /sys/power/mem_sleep))"
echo enabled >/sys/class/tty/ttyS0/power/wakeup || res=fail-uart-wakeup
t0=$(date +%s)
echo "TSBI-SUSPEND-NOW"
echo mem >/sys/power/state || res=fail-suspend
t1=$(date +%s)
echo
grep -q '^1$' /sys/power/suspend_stats/success || res="fail-success($(cat /sys/power/suspend_stats/success))"
[ "$(cat /sys/devices/system/cpu/online)" = "$([ "$n" -gt 1 ] && echo "0-$((n - 1))" || echo 0)" ] ||
  res="fail-online($(cat /sys/devices/system/cpu/online))"
c=0
while [ "$c" -lt "$n" ]; do
  taskset -c "$c" true || res="fail-task-cpu$c"
  c=$((c + 1))
done
echo "TSBI-RESULT suspend=$res slept=$((t1 - t0))"
exit 0
