#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# tier: check
# The board table: the generic image's cold-boot initialisation on the host
# against every board device tree of the pinned Debian kernel package (29
# boards; scripts/fetch_linux.sh keeps the DTBs), one line per board and
# property; a property that worked and no longer does fails
# (tests/boards/expected.txt). tests/boards/boards.py --write records a
# change and regenerates the table in platform/README.md.
. "$(dirname "$0")/../lib.sh"
build board-probe
linux=$(scripts/fetch_linux.sh) || { fail "boards: scripts/fetch_linux.sh"; exit 1; }
python3 tests/boards/boards.py --dtbs "$linux/dtbs"
exit 0
