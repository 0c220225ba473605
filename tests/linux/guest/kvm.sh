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
exit 0
