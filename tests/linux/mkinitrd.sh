#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Builds a test initramfs: busybox, tests/linux/init as /init, the guest test
# scripts as /tsbi/*.sh and, for KIND=perf, perf with its libraries and
# /usr/lib/perf-core (what `perf test` runs). KIND=kvm is the KVM host's
# image: perf, trixie's qemu-system-riscv64, /kvm/kvm.ko, and the guest's
# kernel (the same Image) and initramfs (GUEST_INITRD, the perf image) in /kvm.
# Every kind has the hwprobe dumper (tests/linux/hwprobe.c, built by make) as
# /bin/tsbi-hwprobe, given in HWPROBE.
#   HWPROBE=build/linux/tsbi-hwprobe mkinitrd.sh boot|perf OUT.cpio.gz
#   HWPROBE=build/linux/tsbi-hwprobe mkinitrd.sh kvm OUT.cpio.gz GUEST_INITRD
set -euo pipefail
kind=$1 out=$2
here=$(cd "$(dirname "$0")" && pwd)
cache=$("$here/../../scripts/fetch_linux.sh")
stage=$(mktemp -d "$(dirname "$out")/.stage-$kind.XXXXXX")
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"/{bin,dev,proc,sys,tmp,root,tsbi}
cp "$cache/busybox" "$stage/bin/busybox"
[ -f "${HWPROBE:-}" ] || { echo "mkinitrd: HWPROBE=${HWPROBE:-} is not the hwprobe dumper (make builds it)" >&2; exit 1; }
install -m 755 "$HWPROBE" "$stage/bin/tsbi-hwprobe"
install -m 755 "$here/init" "$stage/init"
install -m 644 "$here"/guest/*.sh "$stage/tsbi/"
case $kind in
  boot) ;;
  perf) cp -a "$cache/perf-root/." "$cache/perf-tests/." "$stage/"; rm -f "$stage/.complete" ;;
  kvm) cp -a "$cache/perf-root/." "$cache/qemu-root/." "$stage/"; rm -f "$stage/.complete"
       mkdir -p "$stage/kvm"
       cp "$cache/modules/kvm.ko" "$cache/Image" "$stage/kvm/"
       cp "$3" "$stage/kvm/initrd.cpio.gz" ;;
  *) echo "mkinitrd: unknown kind $kind" >&2; exit 2 ;;
esac
python3 "$here/mkcpio.py" "$out" "$stage" dev/console:c:5:1:600 dev/null:c:1:3:666
echo "mkinitrd: $out ($(du -h "$out" | cut -f1))" >&2
