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
# Sampling through KVM's SBI PMU: an overflow of a guest counter reaches the
# guest as its counter-overflow interrupt (LCOFI, 13), which KVM injects
# through AIA's hvien/hvip, so Linux 6.12 gives the guest Sscofpmf only on a
# host with Ssaia (and QEMU patch 0009: tests/linux/README.md, "KVM"). The
# host (36-kvm) reads the ISA, perf record's status and the samples, which
# it requires, with one interrupt each. Only 1 to 12 come where the cycles
# allow ~40-100: this kernel's driver restarts its counters after each
# overflow with a counter_idx_base KVM refuses, so a counter runs again only
# when perf schedules the event in anew (tests/linux/README.md, "KVM").
echo "TSBI-RESULT guest.isa=$(grep -m1 '^isa' /proc/cpuinfo | sed 's/.*: *//')"
perf record -e cycles -c 10000000 -o /tmp/rec.data -- sh /tsbi/workload.sh spin 2000 2>&1
echo "TSBI-RESULT record.status=$?"
perf script -i /tmp/rec.data 2>/dev/null >/tmp/rec.script
echo "TSBI-RESULT record.samples=$(wc -l </tmp/rec.script) lcofi_irqs=$(awk '/riscv-pmu/ { n = 0; for (i = 2; i <= NF && $i ~ /^[0-9]+$/; i++) n += $i; print n }' /proc/interrupts)"
