#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Trap handling seen from S-mode: illegal-instruction redirects, PMP
# protection of the firmware, misaligned accesses, counter access.
. "$(dirname "$0")/../lib.sh"
build firmware traps-payload
python3 tests/payloads/run.py --smp 1 --tag ours build/traps/traps.elf
python3 tests/payloads/run.py --smp 1 --tag ours-sscofpmf --cpu sscofpmf=true build/traps/traps.elf
