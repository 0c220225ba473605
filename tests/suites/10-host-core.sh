#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Host unit tests of the firmware core (hart masks, memory ranges, DT) and of
# the SBI SSE event model.
. "$(dirname "$0")/../lib.sh"
build host-tests
tests/host/run_doctest.sh core build/host/test_core
tests/host/run_doctest.sh sse build/host/test_sse
