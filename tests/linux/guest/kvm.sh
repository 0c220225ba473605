# SPDX-License-Identifier: BSD-2-Clause
# KVM host test (tsbi.test=kvm, initramfs "kvm", a hart with the H
# extension): loads kvm.ko, then runs a guest under trixie's QEMU with
# -accel kvm on 2 vCPUs, the same kernel and the perf initramfs, whose
# /init runs tests/linux/guest/kvm-guest.sh (perf stat inside the guest,
# counted through KVM's SBI PMU, which KVM backs with host perf events on
# the firmware's SBI PMU). The guest's console lines are prefixed "guest| "
# so that its TSBI-RESULT lines are not taken for the host's; the host
# (tests/suites/36-kvm.sh) judges both.
insmod /kvm/kvm.ko
echo "TSBI-RESULT kvm.insmod=$?"
dmesg | grep -i kvm | sed 's/^/kvm-dmesg: /'
if [ -c /dev/kvm ]; then echo "TSBI-RESULT kvm.dev=ok"; else echo "TSBI-RESULT kvm.dev=missing"; fi
# The host's side of the guest's sampling (tests/linux/README.md, "KVM"):
# the function graph, two levels deep, of KVM's overflow handler (a host
# perf event behind a guest counter overflowed: KVM injects the guest's
# LCOFI) and of its SBI PMU COUNTER_START (a start that calls neither
# perf_event_period nor perf_event_enable started nothing).
T=/sys/kernel/tracing
if mount -t tracefs nodev $T && echo 'kvm_riscv_pmu_overflow kvm_riscv_vcpu_pmu_ctr_start' >$T/set_graph_function &&
   echo 2 >$T/max_graph_depth && echo function_graph >$T/current_tracer; then
  traced=1
else
  traced=0
fi
read -r t0 _ </proc/uptime
echo "kvm: starting the guest"
# -bios none: under KVM the kernel is entered in VS-mode and KVM is its SBI.
# earlycon=sbi: the guest prints from its first moments (through KVM's SBI
# console), so a slow nested boot is not taken for a silent hang.
qemu-system-riscv64 -M virt -accel kvm -cpu host -smp 2 -m 256M \
  -display none -serial stdio -monitor none -no-reboot -bios none \
  -kernel /kvm/Image -initrd /kvm/initrd.cpio.gz \
  -append 'console=ttyS0 earlycon=sbi tsbi.test=kvm-guest' </dev/null 2>&1 | sed 's/^/guest| /'
st=$?
read -r t1 _ </proc/uptime
echo "TSBI-RESULT kvm.qemu.status=$st kvm.guest_s=$(awk "BEGIN { print int($t1 - $t0) }")"
# overflows: KVM overflow handler calls; starts, starts_empty: COUNTER_START
# calls, those that started nothing; refused_after_overflow: overflows
# followed (on any hart) by a start that started nothing. Lines carry the
# CPU as "N)" and the blocks of two CPUs may interleave.
if [ "$traced" = 1 ]; then
  echo 0 >$T/tracing_on
  awk '{ c = $1 }
    /kvm_riscv_pmu_overflow \[kvm\]\(\)/ { ovf++; pend++ }
    /kvm_riscv_vcpu_pmu_ctr_start \[kvm\]\(\) \{/ { open[c] = 1; en[c] = 0; next }
    open[c] && /perf_event_(enable|period)\(\);/ { en[c] = 1 }
    open[c] && /\| +}/ { open[c] = 0; starts++; if (!en[c]) { empty++; if (pend > 0) { pend--; refused++ } } }
    END { printf "TSBI-RESULT kvm.trace=ok kvm.overflows=%d kvm.starts=%d kvm.starts_empty=%d kvm.refused_after_overflow=%d\n",
                 ovf, starts, empty, refused }' $T/trace
  echo nop >$T/current_tracer
else
  echo "TSBI-RESULT kvm.trace=unavailable"
fi
exit 0
