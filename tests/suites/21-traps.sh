#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Trap handling seen from S-mode: illegal-instruction redirects, PMP
# protection of the firmware, misaligned accesses, counter access.
. "$(dirname "$0")/../lib.sh"
build firmware traps-payload
python3 tests/payloads/run.py --smp 1 --tag ours build/traps/traps.elf
python3 tests/payloads/run.py --smp 1 --tag ours-sscofpmf --cpu sscofpmf=true build/traps/traps.elf

# A failure the firmware must not boot past prints and stops: a device tree
# without /memory (nothing S-mode passes could be checked).
d=build/test-logs/traps; mkdir -p "$d"
qemu-system-riscv64 -M virt,dumpdtb="$d/nomem.dtb" -smp 1 -m 256M -nographic -bios none >/dev/null 2>&1 &&
  fdtput -r "$d/nomem.dtb" /memory@80000000 ||
  fail "fatal/no_memory: cannot make the device tree"
timeout 10 qemu-system-riscv64 -M virt -smp 1 -m 256M -nographic -dtb "$d/nomem.dtb" \
  -bios build/fw/tsbi_dynamic.bin -kernel build/traps/traps.elf > "$d/nomem.log" 2>&1
rc=$?
check "fatal/no_memory/says_why" grep -q "tsbi: fatal: no /memory in the device tree" "$d/nomem.log"
check "fatal/no_memory/stops" [ "$rc" = 124 ]
check "fatal/no_memory/no_payload_ran" bash -c '! grep -q TSBI-START "$1"' _ "$d/nomem.log"

# The core alone (FW_SUBSYSTEMS=0: no PMU, CTR or trace; their hooks fall back
# to the weak defaults) is a configuration of its own: it builds into its own
# directory and serves the core extensions' payloads on 2 harts.
build firmware FW_SUBSYSTEMS=0 payloads
python3 tests/payloads/run.py --fw build/fw-qemu_virt-rv64-core/tsbi_dynamic.bin --smp 2 \
  --tag core-only build/payloads/{base,dbcn,fwft,hsm,ipi,legacy,rfence,time}.elf
