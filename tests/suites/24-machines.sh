#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The default image on machines other than QEMU virt (issue 17): drivers come
# from the device tree by compatible string. QEMU 7.2's spike (HTIF console and
# power-off, CLINT) on 1 and 4 harts, and sifive_u (HiFive Unleashed: an E51
# monitor core without S-mode as hart 0, SiFive UART, gpio-restart, no
# power-off) on 2 and 5 harts. What those machines answer differently is in
# tests/payloads/known-differences/qemu-{spike,sifive_u}.txt. The fuzzer runs
# on both: on spike it found console reads racing writes through HTIF.
. "$(dirname "$0")/../lib.sh"
build firmware payloads
P=build/payloads
for n in 1 4; do
  python3 tests/payloads/run.py --machine spike --smp $n --cpu sstc=false --tag spike-smp$n \
    --known tests/payloads/known-differences/qemu-spike.txt \
    $P/base.elf $P/hsm.elf $P/ipi.elf $P/time.elf $P/rfence.elf $P/fwft.elf $P/srst.elf \
    $P/susp.elf $P/dbtr.elf $P/sse.elf $P/fuzz.elf
done
for n in 2 5; do
  python3 tests/payloads/run.py --machine sifive_u --smp $n --qemu-arg=-no-reboot --tag sifive_u-smp$n \
    --known tests/payloads/known-differences/qemu-sifive_u.txt \
    $P/base.elf $P/hsm.elf $P/ipi.elf $P/time.elf $P/rfence.elf $P/legacy.elf $P/dbcn.elf $P/fwft.elf $P/srst.elf \
    $P/susp.elf $P/dbtr.elf $P/sse.elf $P/fuzz.elf
done

# The other hart counts each machine takes (spike 1-8, sifive_u 2-5): hart
# discovery, HSM and IPIs.
for n in 2 3 8; do
  python3 tests/payloads/run.py --machine spike --smp $n --cpu sstc=false --tag spike-smp$n \
    --known tests/payloads/known-differences/qemu-spike.txt $P/base.elf $P/hsm.elf $P/ipi.elf
done
for n in 3 4; do
  python3 tests/payloads/run.py --machine sifive_u --smp $n --qemu-arg=-no-reboot --tag sifive_u-smp$n \
    --known tests/payloads/known-differences/qemu-sifive_u.txt $P/base.elf $P/hsm.elf $P/ipi.elf
done

# The E51 (hart 0) is never offered: disabled in the device tree S-mode gets,
# and the next stage starts on the first U54 although QEMU names hart 0 as the
# boot hart.
d=build/test-logs/machines; mkdir -p "$d"
timeout 20 qemu-system-riscv64 -M sifive_u -smp 5 -nographic -no-reboot -bios build/fw/tsbi_dynamic.bin \
  -kernel $P/base.elf >"$d/sifive_u.log" 2>&1
check "sifive_u/serves_4_of_5_harts" grep -q "tsbi: SBI firmware .*, 4 hart(s)" "$d/sifive_u.log"
check "sifive_u/payload_ran" grep -q "TSBI-DONE" "$d/sifive_u.log"
check "sifive_u/no_M_mode_trap" bash -c '! grep -q "unexpected M-mode trap" "$1"' _ "$d/sifive_u.log"
timeout 20 qemu-system-riscv64 -M spike -smp 1 -nographic -bios build/fw/tsbi_dynamic.bin \
  -kernel $P/srst.elf >"$d/spike.log" 2>&1; rc=$?
check "spike/htif_console_and_power_off" bash -c "test $rc = 0 && grep -q TSBI-DONE $d/spike.log"

# Debian's Linux 6.12 on sifive_u: the 4 U54 harts come up (the E51 is not
# offered), SBI is found, and the run ends with a reboot through SRST and
# gpio-restart (there is no power-off; -no-reboot makes QEMU exit).
. tests/linux/lib.sh
linux_prepare boot
log=$d/linux-sifive_u.log
timeout -k 5 $((240 * ${LINUX_TIMEOUT_SCALE:-1})) qemu-system-riscv64 -M sifive_u -smp 5 -m 512M -nographic \
  -no-reboot -bios build/fw/tsbi_dynamic.bin -kernel "$LINUX_IMAGE" -initrd "$LINUX_INITRD" \
  -append "console=ttySIF0 tsbi.test=reboot" </dev/null >"$log" 2>&1
rc=$?
check "linux/sifive_u/4_harts_up" grep -q "smp: Brought up 1 node, 4 CPUs" "$log"
check "linux/sifive_u/sbi_v3" grep -q "SBI specification v3.0 detected" "$log"
check "linux/sifive_u/init_ran" grep -q "TSBI-RESULT end test=reboot rc=0 action=reboot" "$log"
check "linux/sifive_u/rebooted_through_srst" bash -c "test $rc = 0 && grep -q 'tsbi: system reboot requested' $log"
check "linux/sifive_u/no_panic" bash -c "! grep -qE 'Kernel panic|Oops|BUG:' $log"

# sifive_u has no power-off: SRST shutdown is NOT_SUPPORTED, and Linux says
# so and halts (no panic, nothing from the firmware). QEMU does not exit on
# its own then: stop it once Linux has answered.
log=$d/linux-sifive_u-poweroff.log
qemu-system-riscv64 -M sifive_u -smp 5 -m 512M -nographic -no-reboot -bios build/fw/tsbi_dynamic.bin \
  -kernel "$LINUX_IMAGE" -initrd "$LINUX_INITRD" -append "console=ttySIF0 tsbi.test=poweroff" \
  </dev/null >"$log" 2>&1 &
qpid=$!
for _ in $(seq $((240 * ${LINUX_TIMEOUT_SCALE:-1}))); do
  grep -q "sbi_srst_reset: .*failed\|Kernel panic" "$log" && break
  kill -0 $qpid 2>/dev/null || break
  sleep 1
done
sleep 2
kill $qpid 2>/dev/null; wait $qpid 2>/dev/null
check "linux/sifive_u/poweroff_not_supported" grep -q "sbi_srst_reset: type=0x0 reason=0x0 failed" "$log"
check "linux/sifive_u/poweroff_halts_cleanly" bash -c "! grep -qE 'Kernel panic|Oops|BUG:|tsbi: .*(fatal|unexpected)' $log"

# Debian's Linux 6.12 on spike, 4 harts. The kernel has no HTIF console
# driver (nor hvc_riscv_sbi), so everything is printed through earlycon=sbi
# (SBI DBCN) and init writes its results to the kernel log (tsbi.kmsg=1).
# The boot test runs (timer, IPIs to every hart, HSM hotplug twice) and ends
# with a power-off through SRST and HTIF.
log=$d/linux-spike.log
timeout -k 5 $((240 * ${LINUX_TIMEOUT_SCALE:-1})) qemu-system-riscv64 -M spike -smp 4 -m 512M \
  -cpu rv64,sstc=false -nographic -bios build/fw/tsbi_dynamic.bin -kernel "$LINUX_IMAGE" \
  -initrd "$LINUX_INITRD" -append "earlycon=sbi keep_bootcon tsbi.kmsg=1 tsbi.test=boot" \
  </dev/null >"$log" 2>&1
rc=$?
r() { sed -n "s/^\[ *[0-9.]*\] TSBI-RESULT .*\b$1=\([^ ]*\).*/\1/p" "$log" | head -1 | tr -d '\r'; }
check "linux/spike/4_harts_up" grep -q "smp: Brought up 1 node, 4 CPUs" "$log"
check "linux/spike/sbi_v3" grep -q "SBI specification v3.0 detected" "$log"
check "linux/spike/timer" test "$(r sleep1)" = ok
check "linux/spike/tasks_on_every_hart" test "$(r taskset_cpus)" = 4
check "linux/spike/hsm_hotplug" test "$(r hotplug)" = ok
check "linux/spike/init_ended_rc0" grep -aq "TSBI-RESULT end test=boot rc=0 action=poweroff" "$log"
check "linux/spike/powered_off_through_htif" bash -c "test $rc = 0 && grep -q 'tsbi: system shutdown requested' $log"
check "linux/spike/no_panic" bash -c "! grep -qE 'Kernel panic|Oops|BUG:' $log"

# A quirk-only port (platform/README.md, "A build-time quirk"), out of tree: its kQuirks
# hooks run (boot, every hart, the shutdown it wraps) and the payloads pass on
# QEMU virt with the image it gives. The aim: a quirk port under 150 lines.
Q=tests/platform/quirk_demo
check "quirk_port/builds" make -s firmware PLATFORM=quirk_demo PLATFORM_DIR=$Q
qfw=build/fw-quirk_demo-rv64/tsbi_dynamic.bin
python3 tests/payloads/run.py --fw $qfw --smp 4 --tag quirk_demo-smp4 $P/base.elf $P/hsm.elf $P/srst.elf
timeout 30 qemu-system-riscv64 -M virt -smp 4 -m 256M -nographic -bios $qfw -kernel $P/base.elf \
  >"$d/quirk_demo.log" 2>&1
check "quirk_port/cold_init_once" test "$(grep -c '^quirk_demo: cold_init' "$d/quirk_demo.log")" = 1
check "quirk_port/hart_init_on_each_hart" test "$(grep -o '^quirk_demo: hart_init [0-3]' "$d/quirk_demo.log" | sort -u | wc -l)" = 4
check "quirk_port/reset_quirk_ran" grep -q "^quirk_demo: shutdown, reason 0" "$d/quirk_demo.log"
check "quirk_port/under_150_lines" test "$(cat $Q/*.hpp $Q/*.cpp | wc -l)" -lt 150

# QEMU virt playing a T-Head board: its device tree edited to say TH1520
# (root compatible), a T-Head C9xx CLINT (no mtime: the time CSR; mtimecmp in
# 32-bit halves) and a T-Head PLIC, without Sstc so the timer goes through
# the CLINT. The image chooses the T-Head quirks at run time
# (platform/generic/vendor.cpp): the payloads pass, the PLIC's control
# register gets S_PER (QEMU logs the write as an invalid register), and every
# trap enters through the C910 TLB-flush vector.
t=$d/thead-virt; mkdir -p "$t"
qemu-system-riscv64 -M virt,dumpdtb=$t/thead.dtb -smp 4 -m 256M -cpu rv64,sstc=false -nographic >/dev/null 2>&1
fdtput -t s $t/thead.dtb / compatible "thead,th1520" "riscv-virtio"
fdtput -t s $t/thead.dtb /soc/clint@2000000 compatible "thead,c900-clint"
fdtput -t s $t/thead.dtb /soc/plic@c000000 compatible "thead,c900-plic" "sifive,plic-1.0.0" "riscv,plic0"
python3 tests/payloads/run.py --smp 4 --cpu sstc=false --tag thead-virt-smp4 \
  --qemu-arg=-dtb --qemu-arg=$t/thead.dtb $P/base.elf $P/hsm.elf $P/ipi.elf $P/time.elf $P/rfence.elf
timeout 60 qemu-system-riscv64 -M virt -smp 1 -m 256M -cpu rv64,sstc=false -nographic \
  -bios build/fw/tsbi_dynamic.bin -kernel $P/time.elf -dtb $t/thead.dtb \
  -d guest_errors,exec,nochain -D $t/qemu.log >"$t/time.log" 2>&1
check "thead_virt/plic_s_per_written" grep -q "sifive_plic_write: Invalid register write 0x1ffffc" $t/qemu.log
vec=$(riscv64-linux-gnu-nm build/fw/tsbi_dynamic.elf | awk '/ trap_entry_tlb_flush$/ {sub(/^0+/, "", $1); print $1}')
check "thead_virt/tlb_flush_vector_taken" grep -q "$vec" $t/qemu.log
rm -f $t/qemu.log
