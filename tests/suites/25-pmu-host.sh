#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# PMU service host tests: firmware/pmu and firmware/sbi/pmu.cpp against the
# hart model (hw_models/hart), one line per doctest case.
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
build pmu-host-tests
python3 tests/host/doctest_lines.py pmu-host build/pmu/host/pmu_tests
