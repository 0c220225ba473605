#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Prints the path of libfdt's sources (from Debian's device-tree-compiler
# source package, trixie), fetching and unpacking them into the cache once.
# The firmware compiles libfdt itself because Debian ships libfdt only as a
# host (hosted, PIC) library; the host tests link Debian's libfdt-dev (64-bit
# only), the 32-bit PMU host tests compile these sources (tests/pmu/build.mk).
set -euo pipefail
. "$(dirname "$0")/common.sh"
ver=1.7.2
sha=92d8ca769805ae1f176204230438fe52808f4e1c7944053c9eec0e649b237539
dir=$TSBI_CACHE/src/dtc-$ver
if [ ! -f "$dir/libfdt/libfdt.h" ]; then
  dl=$TSBI_CACHE/src/dl-dtc; mkdir -p "$dl"
  tarball=$dl/device-tree-compiler_$ver.orig.tar.xz
  if [ ! -f "$tarball" ]; then
    # Only the upstream tarball is needed: straight from the pool, or through
    # apt's source index when it has left the pool (the mirror may lack the
    # Debian revision's .dsc/.debian.tar, so their failure is not fatal).
    echo "dtc.orig $ver pool/main/d/device-tree-compiler/device-tree-compiler_$ver.orig.tar.xz 169668 $sha" > "$dl/lock"
    pool_fetch "$dl/lock" dtc.orig "$dl" ||
      "$(dirname "$0")/debfetch.sh" source trixie "$dl" device-tree-compiler >&2 || true
  fi
  echo "$sha  $tarball" | sha256sum -c --quiet - >&2 || { echo "fetch_libfdt: cannot get $tarball" >&2; exit 1; }
  tar -C "$TSBI_CACHE/src" -xf "$tarball"
fi
echo "$dir/libfdt"
