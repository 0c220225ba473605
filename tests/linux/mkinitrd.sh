#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Builds a test initramfs: busybox, tests/linux/init as /init, the guest test
# scripts as /tsbi/*.sh and, for KIND=perf, perf with its libraries.
#   mkinitrd.sh boot|perf OUT.cpio.gz
set -euo pipefail
kind=$1 out=$2
here=$(cd "$(dirname "$0")" && pwd)
cache=$("$here/../../scripts/fetch_linux.sh")
stage=$(mktemp -d "$(dirname "$out")/.stage-$kind.XXXXXX")
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"/{bin,dev,proc,sys,tmp,root,tsbi}
cp "$cache/busybox" "$stage/bin/busybox"
install -m 755 "$here/init" "$stage/init"
install -m 644 "$here"/guest/*.sh "$stage/tsbi/"
case $kind in
  boot) ;;
  perf) cp -a "$cache/perf-root/." "$stage/"; rm -f "$stage/.complete" ;;
  *) echo "mkinitrd: unknown kind $kind" >&2; exit 2 ;;
esac
python3 "$here/mkcpio.py" "$out" "$stage" dev/console:c:5:1:600 dev/null:c:1:3:666
echo "mkinitrd: $out ($(du -h "$out" | cut -f1))" >&2
