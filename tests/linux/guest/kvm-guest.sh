# SPDX-License-Identifier: BSD-2-Clause
# Inside the KVM guest (tsbi.test=kvm-guest, started by kvm.sh): the vCPUs
# online and perf stat of cycles and instructions on a shell loop, counted
# through the SBI PMU that KVM gives its guests.
echo "TSBI-RESULT cpus_online=$(cat /sys/devices/system/cpu/online)"
echo -1 >/proc/sys/kernel/perf_event_paranoid
perf stat -x';' -o /tmp/stat.txt -e cycles,instructions -- sh /tsbi/workload.sh spin 5000
echo "TSBI-RESULT stat.status=$?"
cat /tmp/stat.txt
echo "TSBI-RESULT stat.cycles=$(grep ';cycles' /tmp/stat.txt | cut -d';' -f1) stat.instructions=$(grep ';instructions' /tmp/stat.txt | cut -d';' -f1)"
