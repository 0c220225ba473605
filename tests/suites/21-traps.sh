#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# stdin: terminal (it starts QEMU itself: tests/run_all.sh gives it a pty, as typed
# at a terminal, so a QEMU without its own stdin fails here too)
# Trap handling seen from S-mode: illegal-instruction redirects, PMP
# protection of the firmware, misaligned accesses, counter access.
. "$(dirname "$0")/../lib.sh"
build firmware traps-payload
build firmware FW_XLEN=32
d=build/test-logs/traps; mkdir -p "$d"

# Three boots end only when `timeout` stops them after 10 s of a firmware
# that must keep running or stay stopped (checked at the end): they start
# here, in the background, and their 30 s of waiting pass during the
# payload runs. Every QEMU here reads /dev/null: under `timeout` it is in a
# background process group, and with a terminal on stdin its stdio set-up
# would stop it (SIGTTOU).
#
# A failure the firmware must not boot past prints and stops: a device tree
# without /memory (nothing S-mode passes could be checked).
qemu-system-riscv64 -M virt,dumpdtb="$d/nomem.dtb" -smp 1 -m 256M -nographic -bios none \
  </dev/null >"$d/nomem-dtb.log" 2>&1 &&
  fdtput -r "$d/nomem.dtb" /memory@80000000 2>>"$d/nomem-dtb.log" ||
  fail_log "fatal/no_memory: cannot make the device tree" "$d/nomem-dtb.log"
rm -f "$d/nomem.rc"
(timeout 10 qemu-system-riscv64 -M virt -smp 1 -m 256M -nographic -dtb "$d/nomem.dtb" \
   -bios build/fw/tsbi_dynamic.bin -kernel build/traps/traps.elf </dev/null > "$d/nomem.log" 2>&1
 echo $? >"$d/nomem.rc") &
nomem_pid=$!
# RV32 (issue 16): both images build from the same sources into
# build/fw-generic-rv32/ and cold-boot QEMU 7.2's riscv32 virt on 4 harts as
# far as the hand-off (the RV32 payloads run in suite 23).
rv32_pids=()
for img in dynamic jump; do
  timeout 10 qemu-system-riscv32 -M virt -smp 4 -m 256M -nographic \
    -bios build/fw-generic-rv32/tsbi_$img.bin </dev/null > "$d/rv32-$img.log" 2>&1 &
  rv32_pids+=($!)
done

# Emulation and redirects take the full trap frame: each run also checks the
# M-mode stack kept a margin (run.py --stack-report).
STACKS=build/test-logs/stacks-21-traps.txt; rm -f "$STACKS"
python3 tests/payloads/run.py --smp 1 --tag ours --stack-report "$STACKS" build/traps/traps.elf
python3 tests/payloads/run.py --smp 1 --tag ours-sscofpmf --cpu sscofpmf=true --stack-report "$STACKS" build/traps/traps.elf
stack_summary "$STACKS"

# The core alone (FW_SUBSYSTEMS=0: no PMU, CTR or trace; the list of
# subsystems in core/subsystems.hpp is empty) is a configuration of its own:
# it builds into its own directory and serves the core extensions' payloads on
# 2 harts.
build firmware FW_SUBSYSTEMS=0 payloads
python3 tests/payloads/run.py --fw build/fw-generic-rv64-core/tsbi_dynamic.bin --smp 2 \
  --tag core-only build/payloads/{base,dbcn,fwft,hsm,ipi,legacy,rfence,time}.elf

# The list of subsystems is checked by the compiler: a descriptor member set
# to a function of another signature, or a subsystem's definition that drifts
# from its declaration, does not compile (the control case does).
compiles() { # NAME CODE: does CODE compile as a firmware source?
  printf '%s\n' "$2" | riscv64-linux-gnu-g++ -std=c++20 -ffreestanding -fno-exceptions -fno-rtti \
    -fsyntax-only -Ifirmware/include -Ifirmware -x c++ - 2>"$d/sub-$1.log"
}
# A compiler error, not a missing compiler.
fails_to_compile() { ! compiles "$@" && grep -q "error:" "$d/sub-$1.log"; }
check_log "subsystems/control_compiles" "$d/sub-control.log" compiles control \
  '#include "subsystem.hpp"
void f(); constexpr fw::Subsystem s{.name = "t", .hart_init = &f};'
check_log "subsystems/member_signature_drift_fails" "$d/sub-member.log" fails_to_compile member \
  '#include "subsystem.hpp"
void f(int); constexpr fw::Subsystem s{.name = "t", .hart_init = &f};'
check_log "subsystems/result_drift_fails" "$d/sub-result.log" fails_to_compile result \
  '#include "subsystem.hpp"
int f(unsigned long); constexpr fw::Subsystem s{.name = "t", .m_interrupt = &f};'
check_log "subsystems/definition_drift_fails" "$d/sub-definition.log" fails_to_compile definition \
  '#include "ctr/subsystem.hpp"
void ctr::subsystem::hart_init(int) {}'

# The boot without /memory (started above).
wait "$nomem_pid"
rc=$(cat "$d/nomem.rc" 2>/dev/null)
fatal="tsbi: fatal: no /memory in the device tree"
expect_line "fatal/no_memory/says_why" "$d/nomem.log" "$fatal"
# Stopped: the firmware said why, printed nothing after it, and QEMU was
# still running when timeout killed it (124), not reset or powered off. An
# empty log (QEMU stopped before the firmware ran) is no evidence.
last=$(grep -av '^qemu-system-' "$d/nomem.log" | tr -d '\r' | tail -1)
if ! has_line "$d/nomem.log" "$fatal"; then
  fail_log "fatal/no_memory/stops" "$d/nomem.log" "the firmware did not say why (no '$fatal'), so its stop proves nothing"
elif [ "$rc" != 124 ]; then
  fail_log "fatal/no_memory/stops" "$d/nomem.log" "expected QEMU still running after 10 s (timeout's 124), got exit status $rc"
else
  expect_eq "fatal/no_memory/stops" "$d/nomem.log" "$fatal" "$last" "last line of the firmware"
fi
expect_no_line "fatal/no_memory/no_payload_ran" "$d/nomem.log" "^tsbi: " TSBI-START

# The RV32 cold boots (started above).
wait "${rv32_pids[@]}"
for img in dynamic jump; do
  log=$d/rv32-$img.log
  banner="tsbi: SBI firmware .*, 4 hart(s)"
  expect_line "rv32/$img/boots_4_harts" "$log" "$banner"
  # fw_jump: the next stage 4 MiB above the firmware (RV32 convention);
  # fw_dynamic: where QEMU's fw_dynamic_info says (0 without -kernel).
  want="0x80400000"; [ $img = dynamic ] && want="0x0"
  expect_line "rv32/$img/hands_off" "$log" "next stage at $want (S-mode)"
  expect_no_line "rv32/$img/no_fatal" "$log" "$banner" "fatal"
done
