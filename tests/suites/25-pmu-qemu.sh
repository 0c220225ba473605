#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# PMU payloads on Debian's QEMU 7.2, with and without Sscofpmf, on 1 and 4
# harts, and once with -icount; then the same payloads against Debian's
# OpenSBI 1.1, where the differences listed in tests/pmu/opensbi11.known are
# reported as INFO lines (anything else it gets wrong is a FAIL of this
# suite: the list is kept exact).
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
build firmware pmu-payloads
run() { python3 tests/payloads/run.py --timeout 60 "$@"; }
rc=0
for cpu in "" sscofpmf=true; do
  run --cpu "$cpu" build/pmu/pmu.elf || rc=1
  run --cpu "$cpu" --smp 4 build/pmu/pmu.elf build/pmu/pmu_smp.elf || rc=1
  run --fw opensbi --known tests/pmu/opensbi11.known --cpu "$cpu" \
    build/pmu/pmu.elf || rc=1
done
run --fw opensbi --known tests/pmu/opensbi11.known --cpu sscofpmf=true --smp 4 \
  build/pmu/pmu_smp.elf || rc=1
# Raw and raw v2 events with CLEAR_VALUE and AUTO_START (OpenSBI 3d29f380):
# QEMU virt's device tree with a raw table mapping QEMU's DTLB-read-miss
# selector, which QEMU then counts (tests/pmu/payloads/pmu_raw.cpp).
t=build/pmu/raw-dt; mkdir -p $t
qemu-system-riscv64 -M virt,dumpdtb=$t/virt.dtb -smp 1 -m 256M -cpu rv64,sscofpmf=true \
  -nographic </dev/null >/dev/null 2>&1
fdtput -t x $t/virt.dtb /pmu riscv,raw-event-to-mhpmcounters 0 0x10019 0xffffffff 0xffffffff 0x7fff8 ||
  { echo "FAIL: pmu_raw/device_tree: fdtput could not add the raw table to $t/virt.dtb"; rc=1; }
run --cpu sscofpmf=true --tag ours-raw-table --qemu-arg=-dtb --qemu-arg=$t/virt.dtb \
  build/pmu/pmu_raw.elf || rc=1
# With -icount QEMU's overflow timer expires in instruction time, which
# makes the start order checks of overflow/* deterministic.
run --cpu sscofpmf=true --icount --tag ours-smp1-sscofpmf-icount build/pmu/pmu.elf || rc=1
exit $rc
