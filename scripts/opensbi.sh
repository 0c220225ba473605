#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# The OpenSBI peers the conformance suite compares with (make conformance).
#
#   opensbi.sh path 1.1    Debian bookworm's fw_dynamic.bin (the system package)
#   opensbi.sh path 1.6    Debian trixie's fw_dynamic.bin, fetched once into
#                          $TSBI_CACHE/opensbi-1.6/ from the pinned .deb
#                          (scripts/opensbi.lock); the system's apt sources
#                          are never touched.
#   opensbi.sh path 1.6 32 the same package's RV32 fw_dynamic.bin (the RV32
#                          peer; bookworm's 1.1 has no RV32 image)
set -euo pipefail
. "$(dirname "$0")/common.sh"
cmd=${1:-}; ver=${2:-}; xlen=${3:-64}
[ "$cmd" = path ] || { echo "usage: opensbi.sh path 1.1|1.6 [64|32]" >&2; exit 2; }
case $xlen in
  64) FW=lib/riscv64-linux-gnu/opensbi/generic/fw_dynamic.bin ;;
  32) [ "$ver" = 1.6 ] || { echo "opensbi.sh: RV32 only for 1.6" >&2; exit 2; }
      FW=lib/riscv32-linux-gnu/opensbi/generic/fw_dynamic.bin ;;
  *) echo "opensbi.sh: xlen $xlen (64 or 32)" >&2; exit 2 ;;
esac
case $ver in
  1.1)
    f=/usr/$FW
    [ -f "$f" ] || { echo "opensbi.sh: $f missing (apt-get install opensbi)" >&2; exit 1; }
    echo "$f" ;;
  1.6)
    D=$TSBI_CACHE/opensbi-1.6
    [ -f "$D/.tsbi-complete" ] || echo "opensbi.sh: fetching Debian trixie's opensbi 1.6" >&2
    pool_unpack "$TSBI_ROOT/scripts/opensbi.lock" opensbi-1.6 "$D" ||
      { echo "opensbi.sh: opensbi_1.6-1_all.deb not in the pool any more" >&2; exit 1; }
    echo "$D/root/usr/$FW" ;;
  *) echo "opensbi.sh: unknown version $ver (1.1 or 1.6)" >&2; exit 2 ;;
esac
