# SPDX-License-Identifier: BSD-2-Clause
# Many harts (issue 29), run by /init: every CPU online, a task on each
# (IPIs and scheduling reach every hart), and the highest CPU taken offline
# (HSM hart_stop) and back (hart_start). Lighter than boot.sh, whose
# hotplug of every secondary twice costs minutes at 64 harts. The host
# (tests/suites/30-linux.sh) judges the TSBI-RESULT lines.
online() { cat /sys/devices/system/cpu/online; }
n=$(grep -c '^processor' /proc/cpuinfo)
echo "TSBI-RESULT cpus_online=$(online) ncpus=$n"
# The hart ID of each CPU (/proc/cpuinfo's "hart" lines), in CPU order: a
# machine with sparse hart IDs (suite 29) checks that they reached Linux.
echo "TSBI-RESULT hartids=$(sed -n 's/^hart[[:space:]]*: *//p' /proc/cpuinfo | tr '\n' ' ' | sed 's/ $//; s/ /,/g')"
ran=0
c=0
while [ "$c" -lt "$n" ]; do
  taskset -c "$c" true && ran=$((ran + 1))
  c=$((c + 1))
done
echo "TSBI-RESULT taskset_cpus=$ran"
last=$((n - 1))
res=ok
if [ "$last" -gt 0 ]; then
  echo 0 >"/sys/devices/system/cpu/cpu$last/online" || res=fail-offline
  [ "$(online)" = "0-$((last - 1))" ] || [ "$last" = 1 -a "$(online)" = 0 ] || res="fail-offline($(online))"
  echo 1 >"/sys/devices/system/cpu/cpu$last/online" || res=fail-online
  [ "$(online)" = "0-$last" ] || res="fail-online($(online))"
  taskset -c "$last" true || res=fail-task
fi
echo "TSBI-RESULT hotplug_last=$res"
exit 0
