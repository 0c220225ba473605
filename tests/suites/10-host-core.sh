#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# tier: check
# Host unit tests of the firmware core (hart masks, memory ranges, DT), of the
# device-tree drivers against QEMU's device trees, and of the SBI SSE event model.
. "$(dirname "$0")/../lib.sh"
build host-tests
python3 tests/host/doctest_lines.py core build/host/test_core
python3 tests/host/doctest_lines.py dbtr build/host/test_dbtr
python3 tests/host/doctest_lines.py sse build/host/test_sse
# The device-tree drivers against QEMU's virt, sifive_u and spike device trees
# and the board devices' trees (tests/host/data); one process per tree (the
# drivers keep static state, as in firmware).
for m in virt sifive_u spike dw-apb-uart thead-clint thead-aclint sunxi-wdt gpio-poweroff jh7110-gpio-restart jh7100-gpio-restart jh7110-axp15060 unmatched-da9063 sg2042-mcu; do
  python3 tests/host/doctest_lines.py drivers-$m build/host/test_drivers "-tc=$m*"
done
