#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# mkdtb.sh QEMU CPU PROFILE OUT: QEMU's own virt device tree for `-cpu CPU`
# (1 hart, 256 MiB, as tests/payloads/run.py runs payloads) with
# /chosen/tsbi,ctr-profile = PROFILE, for `-dtb OUT`; and
# /chosen/tsbi,trace-owner = "m-mode": on a hart without Smctr, CTR's records
# come from the trace encoder only while the firmware keeps the trace
# components (by default S-mode owns them: firmware/trace/README.md).
set -euo pipefail
qemu=$1 cpu=$2 profile=$3 out=$4
"$qemu" -M "virt,dumpdtb=$out" -cpu "$cpu" -smp 1 -m 256M -nographic -bios none >/dev/null
fdtput -t s "$out" /chosen tsbi,ctr-profile "$profile"
fdtput -t s "$out" /chosen tsbi,trace-owner m-mode
