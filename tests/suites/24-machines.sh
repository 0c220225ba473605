#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# stdin: terminal (it starts QEMU itself: tests/run_all.sh gives it a pty, as typed
# at a terminal, so a QEMU without its own stdin fails here too)
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
# The fuzzer on the most harts of each (the console race it found needs
# several harts; its one-hart run on virt is suite 20's).
for n in 1 4; do
  fuzz=; [ $n = 4 ] && fuzz=$P/fuzz.elf
  python3 tests/payloads/run.py --machine spike --smp $n --cpu sstc=false --tag spike-smp$n \
    --known tests/payloads/known-differences/qemu-spike.txt \
    $P/base.elf $P/hsm.elf $P/ipi.elf $P/time.elf $P/rfence.elf $P/fwft.elf $P/srst.elf \
    $P/susp.elf $P/dbtr.elf $P/sse.elf $fuzz
done
for n in 2 5; do
  fuzz=; [ $n = 5 ] && fuzz=$P/fuzz.elf
  python3 tests/payloads/run.py --machine sifive_u --smp $n --qemu-arg=-no-reboot --tag sifive_u-smp$n \
    --known tests/payloads/known-differences/qemu-sifive_u.txt \
    $P/base.elf $P/hsm.elf $P/ipi.elf $P/time.elf $P/rfence.elf $P/legacy.elf $P/dbcn.elf $P/fwft.elf $P/srst.elf \
    $P/susp.elf $P/dbtr.elf $P/sse.elf $fuzz
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
# boot hart. Every QEMU here reads /dev/null: under `timeout` it is in a
# background process group, and with a terminal on stdin its stdio set-up
# would stop it (SIGTTOU) before the firmware prints anything.
d=build/test-logs/machines; mkdir -p "$d"
timeout 20 qemu-system-riscv64 -M sifive_u -smp 5 -nographic -no-reboot -bios build/fw/tsbi_dynamic.bin \
  -kernel $P/base.elf </dev/null >"$d/sifive_u.log" 2>&1
banner="tsbi: SBI firmware .*, [0-9]* hart(s)"
expect_line "sifive_u/serves_4_of_5_harts" "$d/sifive_u.log" "tsbi: SBI firmware .*, 4 hart(s)"
expect_line "sifive_u/payload_ran" "$d/sifive_u.log" "TSBI-DONE"
expect_no_line "sifive_u/no_M_mode_trap" "$d/sifive_u.log" "$banner" "unexpected M-mode trap"
timeout 20 qemu-system-riscv64 -M spike -smp 1 -nographic -bios build/fw/tsbi_dynamic.bin \
  -kernel $P/srst.elf </dev/null >"$d/spike.log" 2>&1; rc=$?
expect_exit "spike/htif_console_and_power_off" "$d/spike.log" 0 "$rc" TSBI-DONE

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
# A check that something is absent first requires that the kernel ran.
kernel="Linux version"
expect_line "linux/sifive_u/4_harts_up" "$log" "smp: Brought up 1 node, 4 CPUs"
expect_line "linux/sifive_u/sbi_v3" "$log" "SBI specification v3.0 detected"
expect_line "linux/sifive_u/init_ran" "$log" "TSBI-RESULT end test=reboot rc=0 action=reboot"
expect_exit "linux/sifive_u/rebooted_through_srst" "$log" 0 "$rc" "tsbi: system reboot requested"
expect_no_line "linux/sifive_u/no_panic" "$log" "$kernel" 'Kernel panic\|Oops\|BUG:'

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
expect_line "linux/sifive_u/poweroff_not_supported" "$log" "sbi_srst_reset: type=0x0 reason=0x0 failed"
expect_no_line "linux/sifive_u/poweroff_halts_cleanly" "$log" "$kernel" \
  'Kernel panic\|Oops\|BUG:\|tsbi: .*\(fatal\|unexpected\)'

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
expect_line "linux/spike/4_harts_up" "$log" "smp: Brought up 1 node, 4 CPUs"
expect_line "linux/spike/sbi_v3" "$log" "SBI specification v3.0 detected"
expect_eq "linux/spike/timer" "$log" ok "$(r sleep1)" "TSBI-RESULT sleep1="
expect_eq "linux/spike/tasks_on_every_hart" "$log" 4 "$(r taskset_cpus)" "TSBI-RESULT taskset_cpus="
expect_eq "linux/spike/hsm_hotplug" "$log" ok "$(r hotplug)" "TSBI-RESULT hotplug="
expect_line "linux/spike/init_ended_rc0" "$log" "TSBI-RESULT end test=boot rc=0 action=poweroff"
expect_exit "linux/spike/powered_off_through_htif" "$log" 0 "$rc" "tsbi: system shutdown requested"
expect_no_line "linux/spike/no_panic" "$log" "$kernel" 'Kernel panic\|Oops\|BUG:'

# A quirk-only port (platform/README.md, "A build-time quirk"), out of tree: its kQuirks
# hooks run (boot, every hart, the shutdown it wraps) and the payloads pass on
# QEMU virt with the image it gives. The aim: a quirk port under 150 lines.
Q=tests/platform/quirk_demo
check_log "quirk_port/builds" "$d/quirk_demo-make.log" \
  bash -c 'make -s -j"$(nproc)" firmware PLATFORM=quirk_demo PLATFORM_DIR="$1" >"$2" 2>&1' _ "$Q" "$d/quirk_demo-make.log"
qfw=build/fw-quirk_demo-rv64/tsbi_dynamic.bin
python3 tests/payloads/run.py --fw $qfw --smp 4 --tag quirk_demo-smp4 $P/base.elf $P/hsm.elf $P/srst.elf
log=$d/quirk_demo.log
timeout 30 qemu-system-riscv64 -M virt -smp 4 -m 256M -nographic -bios $qfw -kernel $P/base.elf \
  </dev/null >"$log" 2>&1
expect_eq "quirk_port/cold_init_once" "$log" 1 "$(grep -ac '^quirk_demo: cold_init' "$log")" \
  "count of 'quirk_demo: cold_init' lines"
expect_eq "quirk_port/hart_init_on_each_hart" "$log" 4 \
  "$(grep -ao '^quirk_demo: hart_init [0-3]' "$log" | sort -u | wc -l)" "harts with a 'quirk_demo: hart_init' line"
expect_line "quirk_port/reset_quirk_ran" "$log" "^quirk_demo: shutdown, reason 0"
# The port's sources (an empty count would pass "under 150" vacuously).
src=$(ls $Q/*.hpp $Q/*.cpp 2>/dev/null)
lines=$(cat $src /dev/null | wc -l)
if [ -z "$src" ] || [ "$lines" = 0 ]; then fail "quirk_port/under_150_lines: no sources in $Q"
elif [ "$lines" -lt 150 ]; then pass "quirk_port/under_150_lines"
else fail "quirk_port/under_150_lines: expected fewer than 150 lines, got $lines ($(wc -l $src | head -n -1 | tr -s ' \n' ' '))"; fi

# QEMU virt playing a T-Head board: its device tree edited to say TH1520
# (root compatible), a T-Head C9xx CLINT (no mtime: the time CSR; mtimecmp in
# 32-bit halves) and a T-Head PLIC, without Sstc so the timer goes through
# the CLINT. The image chooses the T-Head quirks at run time
# (platform/generic/vendor.cpp): the payloads pass, the PLIC's control
# register gets S_PER (QEMU logs the write as an invalid register), and every
# trap enters through the C910 TLB-flush vector.
t=$d/thead-virt; mkdir -p "$t"
qemu-system-riscv64 -M virt,dumpdtb=$t/thead.dtb -smp 4 -m 256M -cpu rv64,sstc=false -nographic </dev/null >/dev/null 2>&1
fdtput -t s $t/thead.dtb / compatible "thead,th1520" "riscv-virtio"
fdtput -t s $t/thead.dtb /soc/clint@2000000 compatible "thead,c900-clint"
fdtput -t s $t/thead.dtb /soc/plic@c000000 compatible "thead,c900-plic" "sifive,plic-1.0.0" "riscv,plic0"
python3 tests/payloads/run.py --smp 4 --cpu sstc=false --tag thead-virt-smp4 \
  --qemu-arg=-dtb --qemu-arg=$t/thead.dtb $P/base.elf $P/hsm.elf $P/ipi.elf $P/time.elf $P/rfence.elf
timeout 60 qemu-system-riscv64 -M virt -smp 1 -m 256M -cpu rv64,sstc=false -nographic \
  -bios build/fw/tsbi_dynamic.bin -kernel $P/time.elf -dtb $t/thead.dtb \
  -d guest_errors,exec,nochain -D $t/qemu.log </dev/null >"$t/time.log" 2>&1
check "thead_virt/plic_s_per_written" grep -q "sifive_plic_write: Invalid register write 0x1ffffc" $t/qemu.log
vec=$(riscv64-linux-gnu-nm build/fw/tsbi_dynamic.elf | awk '/ trap_entry_tlb_flush$/ {sub(/^0+/, "", $1); print $1}')
check "thead_virt/tlb_flush_vector_taken" grep -q "$vec" $t/qemu.log
rm -f $t/qemu.log
