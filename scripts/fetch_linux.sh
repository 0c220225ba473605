#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Fetches what the Linux boot and perf tests (tests/linux) need from Debian
# trixie riscv64: the kernel of `linux-image-riscv64`, `busybox-static`, and
# `linux-perf` with the shared-library closure of its ELF NEEDED entries.
#
# Everything lives under $TSBI_CACHE/linux/<kernel package version>/, and
# $TSBI_CACHE/linux/current points at the complete one. When `current` is
# complete nothing is downloaded (no network access at all); set
# TSBI_LINUX_REFRESH=1 to resolve the newest trixie version again.
#
# Prints the directory on stdout; it holds
#   Image       the raw RISC-V kernel image (what `qemu -kernel` loads)
#   dtbs/       the package's board device trees, <vendor>/<board>.dtb (the
#               board table, tests/boards)
#   busybox     static busybox
#   perf-root/  usr/bin/perf, its libraries in usr/lib/riscv64-linux-gnu,
#               the ld.so link and lib -> usr/lib: copy into an initramfs as is
#   perf-tests/ usr/lib/perf-core from linux-perf: the shell tests, attr
#               tests and scripts `perf test` runs (copy over perf-root)
#   modules/    kvm.ko, uncompressed, from the kernel package (CONFIG_KVM=m;
#               it depends on no other module)
#   qemu-root/  trixie's qemu-system-riscv64 (package qemu-system-riscv) and
#               its libraries, laid out like perf-root: the KVM test's VMM
#               (trixie has no riscv64 kvmtool)
#   VERSION     package versions; written last, so it marks a complete cache
# Any failure to download or to resolve a library exits non-zero.
set -euo pipefail
. "$(dirname "$0")/common.sh"

top=$TSBI_CACHE/linux
mkdir -p "$top"
exec 9>"$top/.lock"
flock 9

complete() { local d=$1 m
             for m in VERSION dtbs/.complete perf-tests/.complete modules/.complete qemu-root/.complete; do
               [ -f "$d/$m" ] || return 1
             done; }
if [ -z "${TSBI_LINUX_REFRESH:-}" ] && complete "$top/current"; then
  echo "$top/current"; exit 0
fi

log() { echo "fetch_linux: $*" >&2; }
die() { echo "fetch_linux: error: $*" >&2; exit 1; }
# Packages pinned in scripts/linux.lock come straight from the pool
# (pool_fetch in common.sh); the rest, or a pinned version that has left the
# pool, through apt's private state.
fetch() { local dest=$1 p rest=(); shift
          mkdir -p "$dest"
          for p in "$@"; do pool_fetch "$TSBI_ROOT/scripts/linux.lock" "$p" "$dest" || rest+=("$p"); done
          [ ${#rest[@]} -eq 0 ] && return 0
          log "not locked or gone from the pool, through apt: ${rest[*]}"
          "$TSBI_ROOT/scripts/debfetch.sh" download trixie riscv64 "$dest" "${rest[@]}" ||
            die "download of ${rest[*]} (Debian trixie riscv64) failed"; }
readelf=${CROSS:-riscv64-linux-gnu-}readelf
command -v "$readelf" >/dev/null || die "$readelf not found (run scripts/bootstrap.sh)"

# The metapackage names the versioned kernel package in its Depends.
tmp=$(mktemp -d "$top/.meta.XXXXXX"); trap 'rm -rf "$tmp"' EXIT
fetch "$tmp" linux-image-riscv64
dep=$(dpkg-deb -f "$tmp"/linux-image-riscv64_*.deb Depends)
kpkg=$(sed -n 's/^\(linux-image-6\.12\.[^ ]*-riscv64\) (= \([^)]*\)).*/\1/p' <<<"$dep")
kver=$(sed -n 's/^linux-image-6\.12\.[^ ]*-riscv64 (= \([^)]*\)).*/\1/p' <<<"$dep")
[ -n "$kpkg" ] && [ -n "$kver" ] || die "unexpected Depends of linux-image-riscv64: $dep"
krel=${kpkg#linux-image-}
dir=$top/$kver
mkdir -p "$dir/debs"
log "kernel package $kpkg $kver in $dir"

# Kernel: keep only /boot/vmlinux-*, a raw Image with a PE header, the
# board device trees (usr/lib/linux-image-*/<vendor>/*.dtb, 2 MB) and kvm.ko;
# drop the ~110 MB package with its other modules (the config builds in all
# else we need).
if [ ! -s "$dir/Image" ] || [ ! -f "$dir/dtbs/.complete" ] || [ ! -f "$dir/modules/.complete" ]; then
  fetch "$tmp" "$kpkg"
  if [ ! -s "$dir/Image" ]; then
    dpkg-deb --fsys-tarfile "$tmp/${kpkg}_"*.deb | tar -xO "./boot/vmlinux-$krel" >"$dir/Image.part" ||
      die "no /boot/vmlinux-$krel in $kpkg"
    mv "$dir/Image.part" "$dir/Image"
  fi
  rm -rf "$dir/dtbs" "$dir/dtbs.part"
  mkdir -p "$dir/dtbs.part"
  dpkg-deb --fsys-tarfile "$tmp/${kpkg}_"*.deb |
    tar -x -C "$dir/dtbs.part" --strip-components=4 --wildcards "./usr/lib/linux-image-$krel/*.dtb" ||
    die "no device trees under /usr/lib/linux-image-$krel in $kpkg"
  touch "$dir/dtbs.part/.complete"
  mv "$dir/dtbs.part" "$dir/dtbs"
  rm -rf "$dir/modules" "$dir/modules.part"
  mkdir -p "$dir/modules.part"
  dpkg-deb --fsys-tarfile "$tmp/${kpkg}_"*.deb |
    tar -xO "./usr/lib/modules/$krel/kernel/arch/riscv/kvm/kvm.ko.xz" | xz -d >"$dir/modules.part/kvm.ko" ||
    die "no kvm.ko.xz under /usr/lib/modules/$krel in $kpkg"
  touch "$dir/modules.part/.complete"
  mv "$dir/modules.part" "$dir/modules"
fi

if [ ! -x "$dir/busybox" ]; then
  fetch "$tmp" busybox-static
  dpkg-deb --fsys-tarfile "$tmp"/busybox-static_*.deb | tar -xO ./usr/bin/busybox >"$dir/busybox.part"
  dpkg-deb -f "$tmp"/busybox-static_*.deb Version >"$dir/busybox.version"
  chmod 755 "$dir/busybox.part"; mv "$dir/busybox.part" "$dir/busybox"
fi

# linux-perf and the library packages of its recursive Depends (first
# alternative, only lib*/zlib names: perl/python runtimes are not needed for
# stat/record/report), downloaded level by level until nothing new appears.
pkgs_of() { for d in "$1"/*.deb; do [ -e "$d" ] && dpkg-deb -f "$d" Package; done | sort -u; }
deps_of() {
  for d in "$1"/*.deb; do
    [ -e "$d" ] || continue
    dpkg-deb -f "$d" Depends Pre-Depends | sed 's/^[A-Za-z-]*: //' | tr ',' '\n' |
      sed 's/|.*//; s/(.*)//; s/:any//; s/[[:space:]]//g'
  done | grep -E '^(lib|zlib)' | sort -u
}
# fetch_closure DEBS PKG: PKG and the lib* packages of its recursive Depends
# into DEBS, level by level until nothing new appears.
fetch_closure() {
  local debs=$1 pkg=$2 new
  [ -n "$(ls "$debs/${pkg}"_*.deb 2>/dev/null)" ] || fetch "$debs" "$pkg"
  while :; do
    new=$(comm -13 <(pkgs_of "$debs") <(deps_of "$debs"))
    [ -z "$new" ] && break
    # shellcheck disable=SC2086
    fetch "$debs" $new
  done
}
# elf_root DEBS ROOT BIN: unpacks DEBS and lays out ROOT with usr/bin/BIN,
# the ld.so, lib -> usr/lib and the libraries BIN needs (a breadth-first
# walk over DT_NEEDED), ready to copy into an initramfs.
elf_root() {
  local debs=$1 r=$2 bin=$3 s=$dir/stage d f n src interp queue
  rm -rf "$s" "$r"
  for d in "$debs"/*.deb; do dpkg-deb -x "$d" "$s"; done
  mkdir -p "$r/usr/bin" "$r/usr/lib/riscv64-linux-gnu"
  ln -s usr/lib "$r/lib"
  cp "$s/usr/bin/$bin" "$r/usr/bin/$bin"
  interp=$("$readelf" -l "$s/usr/bin/$bin" | sed -n 's/.*interpreter: \([^]]*\)].*/\1/p')
  [ "$interp" = /lib/ld-linux-riscv64-lp64d.so.1 ] || die "unexpected ELF interpreter '$interp' of $bin"
  find_lib() {
    local p
    for p in usr/lib/riscv64-linux-gnu lib/riscv64-linux-gnu usr/lib lib; do
      [ -e "$s/$p/$1" ] && { echo "$s/$p/$1"; return; }
    done
  }
  cp -L "$(find_lib ld-linux-riscv64-lp64d.so.1)" "$r/usr/lib/riscv64-linux-gnu/" ||
    die "ld-linux-riscv64-lp64d.so.1 not in the staged packages"
  ln -s riscv64-linux-gnu/ld-linux-riscv64-lp64d.so.1 "$r/usr/lib/ld-linux-riscv64-lp64d.so.1"
  queue=("$r/usr/bin/$bin")
  while ((${#queue[@]})); do
    f=${queue[0]}; queue=("${queue[@]:1}")
    for n in $("$readelf" -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
      [ -e "$r/usr/lib/riscv64-linux-gnu/$n" ] && continue
      src=$(find_lib "$n")
      [ -n "$src" ] || die "$bin needs $n (via $(basename "$f")), which no fetched package provides"
      cp -L "$src" "$r/usr/lib/riscv64-linux-gnu/$n"
      queue+=("$r/usr/lib/riscv64-linux-gnu/$n")
    done
  done
  rm -rf "$s"
  touch "$r/.complete"
  log "$bin closure: $(ls "$r/usr/lib/riscv64-linux-gnu" | wc -l) files, $(du -sh "$r" | cut -f1)"
}
if [ ! -f "$dir/perf-root/.complete" ]; then
  fetch_closure "$dir/debs" linux-perf
  elf_root "$dir/debs" "$dir/perf-root" perf
fi
if [ ! -f "$dir/perf-tests/.complete" ]; then
  fetch_closure "$dir/debs" linux-perf
  rm -rf "$dir/perf-tests"; mkdir -p "$dir/perf-tests"
  dpkg-deb --fsys-tarfile "$dir"/debs/linux-perf_*.deb | tar -x -C "$dir/perf-tests" ./usr/lib/perf-core ||
    die "no /usr/lib/perf-core in linux-perf"
  touch "$dir/perf-tests/.complete"
fi
# The nested QEMU of the KVM test, with -accel kvm -bios none: neither its
# firmware (opensbi) nor qemu-system-common/-data are needed.
if [ ! -f "$dir/qemu-root/.complete" ]; then
  fetch_closure "$dir/debs-qemu" qemu-system-riscv
  elf_root "$dir/debs-qemu" "$dir/qemu-root" qemu-system-riscv64
fi

{
  echo "kernel=$kpkg $kver"
  echo "busybox=$(cat "$dir/busybox.version" 2>/dev/null || echo unknown)"
  echo "perf=$(dpkg-deb -f "$dir"/debs/linux-perf_*.deb Version)"
  echo "qemu=$(dpkg-deb -f "$dir"/debs-qemu/qemu-system-riscv_*.deb Version)"
} >"$dir/VERSION.part"
# Rewrite VERSION only when it changes: its mtime keys the cached initramfs.
if ! cmp -s "$dir/VERSION.part" "$dir/VERSION"; then mv "$dir/VERSION.part" "$dir/VERSION"; else rm "$dir/VERSION.part"; fi
ln -sfn "$kver" "$top/current"
# Older versions are never used again.
for d in "$top"/*/; do
  d=${d%/}
  [ "$(basename "$d")" = "$kver" ] || [ -L "$d" ] || rm -rf "$d"
done
echo "$top/current"
