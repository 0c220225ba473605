#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# EDK2's RISC-V virt firmware, the UEFI next stage (tests/suites/32-next-stages.sh):
# Debian trixie's qemu-efi-riscv64 (architecture all), fetched once into
# $TSBI_CACHE/edk2/ from the pinned .deb (scripts/edk2.lock); the system's apt
# sources are never touched.
#
#   edk2.sh path    print the folder holding RISCV_VIRT_CODE.fd (QEMU pflash
#                   unit 0, read-only) and RISCV_VIRT_VARS.fd (unit 1: give
#                   each run its own copy, EDK2 writes it)
set -euo pipefail
. "$(dirname "$0")/common.sh"
[ "${1:-}" = path ] || { echo "usage: edk2.sh path" >&2; exit 2; }
D=$TSBI_CACHE/edk2
[ -f "$D/.tsbi-complete" ] || echo "edk2.sh: fetching Debian trixie's qemu-efi-riscv64" >&2
pool_unpack "$TSBI_ROOT/scripts/edk2.lock" qemu-efi-riscv64 "$D" ||
  { echo "edk2.sh: the locked qemu-efi-riscv64 .deb is not in the pool any more (scripts/edk2.lock)" >&2; exit 1; }
f=$D/root/usr/share/qemu-efi-riscv64
[ -f "$f/RISCV_VIRT_CODE.fd" ] && [ -f "$f/RISCV_VIRT_VARS.fd" ] ||
  { echo "edk2.sh: $f has no RISCV_VIRT_CODE.fd/RISCV_VIRT_VARS.fd" >&2; exit 1; }
echo "$f"
