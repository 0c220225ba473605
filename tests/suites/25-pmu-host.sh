#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# tier: check
# PMU service host tests: firmware/pmu and firmware/sbi/pmu.cpp against the
# hart model (hw_models/hart), one line per doctest case; once as a 64-bit
# program on an RV64 hart model (pmu-host), once as a 32-bit x86 program on an
# RV32 hart model (pmu-host32, tests/pmu/build.mk).
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
rc=0
build pmu-host-tests
python3 tests/host/doctest_lines.py pmu-host build/pmu/host/pmu_tests || rc=1
build pmu-host32-tests
bin32=build/pmu/host32/pmu_tests
# Kernels without 32-bit x86 support (IA32 emulation off, as on some VMs)
# cannot execute it: then Debian's qemu-i386 (qemu-user) runs it, and a
# missing qemu-i386 is a FAIL like any other missing tool.
via=()
if ! "$bin32" --version >/dev/null 2>&1; then
  echo "INFO: pmu-host32: this kernel does not run 32-bit x86 programs, using qemu-i386"
  via=(--via qemu-i386)
fi
python3 tests/host/doctest_lines.py "${via[@]}" pmu-host32 "$bin32" || rc=1
exit $rc
