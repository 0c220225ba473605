#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Adds System.map and the kernel config of the kernel package pinned in
# scripts/linux.lock to the Linux cache (scripts/fetch_linux.sh keeps only the
# Image). Prints the System.map path. The package is downloaded once; the two
# files stay next to the Image.
set -euo pipefail
. "$(dirname "$0")/../../scripts/common.sh"
dir=$(readlink -f "$("$TSBI_ROOT/scripts/fetch_linux.sh")")
if [ ! -s "$dir/System.map" ] || [ ! -s "$dir/config" ]; then
  kpkg=$(sed -n 's/^kernel=\(linux-image-[^ ]*\) .*/\1/p' "$dir/VERSION")
  [ -n "$kpkg" ] || { echo "fetch_sysmap: no kernel package in $dir/VERSION" >&2; exit 1; }
  krel=${kpkg#linux-image-}
  tmp=$(mktemp -d "$dir/.sysmap.XXXXXX"); trap 'rm -rf "$tmp"' EXIT
  pool_fetch "$TSBI_ROOT/scripts/linux.lock" "$kpkg" "$tmp" ||
    { echo "fetch_sysmap: $kpkg is not in scripts/linux.lock or left the pool" >&2; exit 1; }
  dpkg-deb --fsys-tarfile "$tmp/${kpkg}_"*.deb |
    tar -x -C "$tmp" "./boot/System.map-$krel" "./boot/config-$krel"
  mv "$tmp/boot/config-$krel" "$dir/config"
  mv "$tmp/boot/System.map-$krel" "$dir/System.map"
fi
echo "$dir/System.map"
