#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# tier: check
# Host unit tests of CTR: the emulation against the specification's tables
# (both layouts), the draft-on-ratified translation over the ratified-hart
# model (hw_models/ctr), and the Linux driver's sequence.
. "$(dirname "$0")/../lib.sh"
build ctr-host-tests
python3 tests/host/doctest_lines.py ctr build/ctr/ctr_tests
