#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The full `perf test` runs behind the table in tests/linux/README.md (issue
# 26, item 7): Debian's kernel and perf (initramfs "perf", which carries
# /usr/lib/perf-core) on 4 harts, tsbi.test=perf-test (every test of
# `perf test list`, each on its own with a 300 s limit), per firmware and QEMU.
#
#   tests/linux/perftest-run.sh [CONFIG...]     CONFIG: FW@QEMU, FW one of
#       ours, opensbi-1.1, opensbi-1.6; QEMU one of 7.2 (Debian's), 10 (the
#       project's). Default: all six. The runs go in parallel.
#   tests/linux/perftest.py table build/perftest/*.log   the README table
#
# Console logs: $PERFTEST_OUT (default build/perftest)/<FW>@<QEMU>.log.
# PERFTEST_ARGS adds kernel arguments (tsbi.perftest=N,..., tsbi.perftest_limit=S).
set -uo pipefail
. "$(dirname "$0")/../lib.sh"
. tests/linux/lib.sh
configs=${*:-ours@7.2 opensbi-1.1@7.2 opensbi-1.6@7.2 ours@10 opensbi-1.1@10 opensbi-1.6@10}
linux_prepare perf
out=${PERFTEST_OUT:-build/perftest}; mkdir -p "$out"
for c in $configs; do
  fw=${c%@*} q=${c#*@}
  case $fw in
    ours) bios=build/fw/tsbi_dynamic.bin ;;
    opensbi-*) bios=$(scripts/opensbi.sh path "${fw#opensbi-}") || exit 1 ;;
    *) echo "perftest-run: unknown firmware $fw" >&2; exit 2 ;;
  esac
  case $q in
    7.2) qemu=qemu-system-riscv64 ;;
    10) qemu=$(scripts/qemu10.sh path) || exit 1 ;;
    *) echo "perftest-run: unknown QEMU $q" >&2; exit 2 ;;
  esac
  # A hang is 1800 s of silence (one test's limit is 300 s); the whole run
  # is cut after 4 x 1800 s.
  QEMU=$qemu linux_boot "$out/$c.log" 1800 4 "$bios" "tsbi.test=perf-test ${PERFTEST_ARGS:-}" &
done
wait
