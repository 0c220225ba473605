#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# tier: check
# Host unit tests of the firmware trace driver (firmware/trace): device-tree
# topologies, the TCI 1.0 sequences and the SBI trace service, against the
# register-level TCI fake (hw_models/tci).
. "$(dirname "$0")/../lib.sh"
build trace-fw-host-tests
python3 tests/host/doctest_lines.py trace-fw build/trace_fw/trace_fw_tests
