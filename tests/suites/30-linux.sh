#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Boots Debian trixie's riscv64 Linux 6.12 on the firmware under QEMU 7.2 with
# a busybox initramfs (tests/linux): 1, 4 and 64 harts with fw_dynamic, 1 hart
# with fw_jump, and a run ended by an SBI SRST reboot. Checks what the kernel
# reports about SBI, that all harts come up (and survive HSM hotplug), and
# that every run ends by itself through SBI SRST. FW=opensbi compares with
# Debian's OpenSBI 1.1 (see tests/linux/lib.sh).
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
. tests/linux/lib.sh

linux_prepare boot

for smp in 1 4; do
  n="linux dynamic smp$smp"
  log=$LINUX_LOGS/boot-dynamic-smp$smp.log
  linux_boot "$log" 90 "$smp" "$FW_DYN" "tsbi.test=boot"; rc=$?
  linux_check_ended "$n" "$log" "$rc"
  linux_check_sbi "$n" "$log" "$smp"
  linux_boot_checks "$n" "$log" "$smp"
done

# 64 harts (issue 29): every CPU online, a task on each, the highest one
# taken offline and back through HSM (tests/linux/guest/harts.sh; boot.sh's
# hotplug of every secondary twice costs minutes at 64 harts). Without
# -icount: under it the kernel printed nothing in 300 s. So that host load
# cannot make the run fail, RCU stall and lockup warnings are off (a starved
# vCPU thread is not a firmware fault); the checks are on what the guest saw.
n="linux dynamic smp64"
log=$LINUX_LOGS/boot-dynamic-smp64.log
linux_boot "$log" 120 64 "$FW_DYN" "tsbi.test=harts rcupdate.rcu_cpu_stall_suppress=1 nowatchdog"; rc=$?
linux_check_ended "$n" "$log" "$rc"
linux_check_grep "$n: SBI HSM extension detected" "$log" "SBI HSM extension detected"
linux_expect_result "$n: guest sees CPUs 0-63 online" "$log" cpus_online 0-63
linux_expect_result "$n: a task ran on each of 64 CPUs" "$log" taskset_cpus 64
linux_expect_result "$n: CPU 63 offline and back through HSM" "$log" hotplug_last ok

n="linux jump smp1"
if [ -z "$FW_JMP" ] || [ ! -f "$FW_JMP" ]; then
  fail "$n: fw_jump image: expected a file, got ${FW_JMP:-none given (FW_JUMP=)}"
else
  log=$LINUX_LOGS/boot-jump-smp1.log
  linux_boot "$log" 90 1 "$FW_JMP" "tsbi.test=boot"; rc=$?
  linux_check_ended "$n" "$log" "$rc"
  linux_check_sbi "$n" "$log" 1
  linux_boot_checks "$n" "$log" 1
fi

# earlycon=sbi writes the kernel log through SBI DBCN (Debian's kernel has
# no hvc0 SBI console); keep_bootcon keeps it after ttyS0 registers, so the
# early lines reach the log only through DBCN, and later ones twice.
n="linux dbcn-earlycon smp2"
log=$LINUX_LOGS/dbcn-earlycon-smp2.log
linux_boot "$log" 90 2 "$FW_DYN" "earlycon=sbi keep_bootcon tsbi.test=boot"; rc=$?
linux_check_ended "$n" "$log" "$rc"
linux_check_grep "$n: early kernel log through DBCN" "$log" "printk: legacy bootconsole \[sbi0\] enabled"
expect_eq "$n: later kernel log through both DBCN and ttyS0" "$log" 2 \
  "$(grep -ac 'Run /init as init process' "$log")" "count of 'Run /init as init process' lines"
linux_boot_checks "$n" "$log" 2

# Suspend to RAM through SBI SUSP and back: the guest enables the UART as
# wake-up source and writes "mem" to /sys/power/state. 3 s after the kernel's
# last line before it sleeps ("Suspending console(s)") the host types a key,
# whose interrupt wakes the suspended hart (the other harts went through HSM
# stop and start); again every 3 s until the kernel says it resumed, in case
# a loaded host delayed the suspend past the first key.
suspend_boot() {
  local log=$1 smp=$2 fifo=$LINUX_LOGS/suspend.fifo rc
  rm -f "$fifo"; mkfifo "$fifo"; : >"$log"
  (
    exec 3>"$fifo"
    for _ in $(seq 600); do grep -aq 'printk: Suspending console' "$log" && break; sleep 0.2; done
    for _ in $(seq 20); do
      sleep 3; grep -aq 'PM: suspend exit' "$log" && break
      printf 'x' >&3
    done
    sleep 120
  ) &
  local typist=$!
  LINUX_STDIN=$fifo linux_boot "$log" 120 "$smp" "$FW_DYN" "tsbi.test=suspend"; rc=$?
  kill "$typist" 2>/dev/null; wait "$typist" 2>/dev/null
  rm -f "$fifo"
  return $rc
}
for smp in 1 4; do
  n="linux suspend smp$smp"
  log=$LINUX_LOGS/suspend-smp$smp.log
  suspend_boot "$log" "$smp"; rc=$?
  linux_check_ended "$n" "$log" "$rc"
  linux_check_grep "$n: SBI SUSP extension detected" "$log" "SBI SUSP extension detected"
  linux_check_grep "$n: suspend entry (deep)" "$log" "PM: suspend entry \(deep\)"
  linux_check_grep "$n: suspend exit" "$log" "PM: suspend exit"
  linux_expect_result "$n: suspended, resumed, all CPUs online and running tasks" "$log" suspend ok
  # Asleep until the key: the realtime clock (the RTC's sleep time is added
  # on resume) moved on by at least the 3 s the host waited.
  v=$(linux_result "$log" slept)
  if [ -n "$v" ] && [ "$v" -ge 2 ]; then pass "$n: asleep until the wake-up key (${v} s)"
  else fail_log "$n: asleep until the wake-up key" "$log" "expected TSBI-RESULT slept >= 2 (s; the host waited 3 s), got '${v:-no such result}'"; fi
done

# SRST cold reboot; -no-reboot turns the reset into QEMU exiting.
n="linux reboot smp2"
log=$LINUX_LOGS/reboot-smp2.log
linux_boot "$log" 90 2 "$FW_DYN" "tsbi.test=reboot" -no-reboot; rc=$?
linux_check_ended "$n" "$log" "$rc" reboot
