# SPDX-License-Identifier: BSD-2-Clause
# Boot test, run by /init: facts about the firmware only the guest can see.
# Prints TSBI-RESULT key=value lines; the host (tests/suites/30-linux.sh)
# judges them.
online() { cat /sys/devices/system/cpu/online; }
n=$(grep -c '^processor' /proc/cpuinfo)
echo "TSBI-RESULT cpus_online=$(online) ncpus=$n"
grep -m1 '^isa' /proc/cpuinfo

# Timer (SBI TIME or Sstc): a 1 s timed wait must take about 1 s of uptime.
# All in the shell (read builtins; a read with a 1 s timeout from a FIFO
# nobody writes): `sleep 1` between two `cut`s also timed three execs,
# which a loaded host stretched towards the old 3 s bound. Not before 0.9 s
# (an early timer); before 10 s, a generous bound (a timer late by 10x still
# fails): without -icount guest time is host time, which runs on while the
# host does not schedule the vCPU.
mkfifo /tmp/never
read -r t0 _ </proc/uptime; read -r -t 1 _ <>/tmp/never; read -r t1 _ </proc/uptime
echo "TSBI-RESULT sleep1=$(awk "BEGIN { d = $t1 - $t0; print (d >= 0.9 && d < 10) ? \"ok\" : \"bad(\" d \"s)\" }") sleep1_s=$(awk "BEGIN { print $t1 - $t0 }")"

# AIA: the status of each APLIC and IMSIC node the firmware handed on, as
# unit-address:status (tests/suites/38-aia.sh: M-mode's own are disabled).
aia=
for d in /proc/device-tree/soc/*@*; do
  case $(tr '\0' ' ' <"$d/compatible" 2>/dev/null) in *riscv,aplic*|*riscv,imsics*) ;; *) continue ;; esac
  st=okay; [ -e "$d/status" ] && st=$(tr -d '\0' <"$d/status")
  aia="$aia${aia:+,}${d##*@}:$st"
done
[ -n "$aia" ] && echo "TSBI-RESULT aia_nodes=$aia"

# Every CPU runs a task (IPIs and scheduling reach each hart).
ran=0
c=0
while [ "$c" -lt "$n" ]; do
  taskset -c "$c" true && ran=$((ran + 1))
  c=$((c + 1))
done
echo "TSBI-RESULT taskset_cpus=$ran"

# HSM: take every secondary hart offline (hart_stop) and bring it back
# (hart_start), twice, then run a task on each again.
if [ "$n" -gt 1 ]; then
  res=ok
  secondaries=$(seq 1 $((n - 1)))
  for _ in 1 2; do
    for c in $secondaries; do
      echo 0 >"/sys/devices/system/cpu/cpu$c/online" || res="fail-offline-cpu$c"
    done
    [ "$(online)" = 0 ] || res="fail-offline($(online))"
    for c in $secondaries; do
      echo 1 >"/sys/devices/system/cpu/cpu$c/online" || res="fail-online-cpu$c"
    done
    [ "$(online)" = "0-$((n - 1))" ] || res="fail-online($(online))"
  done
  c=1
  while [ "$c" -lt "$n" ]; do
    taskset -c "$c" true || res="fail-task-cpu$c"
    c=$((c + 1))
  done
  echo "TSBI-RESULT hotplug=$res"
fi
exit 0
