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
#   VERSION     package versions; written last, so it marks a complete cache
# Any failure to download or to resolve a library exits non-zero.
set -euo pipefail
. "$(dirname "$0")/common.sh"

top=$TSBI_CACHE/linux
mkdir -p "$top"
exec 9>"$top/.lock"
flock 9

if [ -z "${TSBI_LINUX_REFRESH:-}" ] && [ -f "$top/current/VERSION" ] &&
   [ -f "$top/current/dtbs/.complete" ]; then
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

# Kernel: keep only /boot/vmlinux-*, a raw Image with a PE header, and the
# board device trees (usr/lib/linux-image-*/<vendor>/*.dtb, 2 MB); drop the
# ~110 MB package with its modules (the config builds in all we need).
if [ ! -s "$dir/Image" ] || [ ! -f "$dir/dtbs/.complete" ]; then
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
pkgs_of() { for d in "$dir"/debs/*.deb; do [ -e "$d" ] && dpkg-deb -f "$d" Package; done | sort -u; }
deps_of() {
  for d in "$dir"/debs/*.deb; do
    [ -e "$d" ] || continue
    dpkg-deb -f "$d" Depends Pre-Depends | sed 's/^[A-Za-z-]*: //' | tr ',' '\n' |
      sed 's/|.*//; s/(.*)//; s/:any//; s/[[:space:]]//g'
  done | grep -E '^(lib|zlib)' | sort -u
}
if [ ! -f "$dir/perf-root/.complete" ]; then
  [ -n "$(ls "$dir"/debs/linux-perf_*.deb 2>/dev/null)" ] || fetch "$dir/debs" linux-perf
  while :; do
    new=$(comm -13 <(pkgs_of) <(deps_of))
    [ -z "$new" ] && break
    # shellcheck disable=SC2086
    fetch "$dir/debs" $new
  done
  rm -rf "$dir/stage" "$dir/perf-root"
  for d in "$dir"/debs/*.deb; do dpkg-deb -x "$d" "$dir/stage"; done
  s=$dir/stage r=$dir/perf-root
  mkdir -p "$r/usr/bin" "$r/usr/lib/riscv64-linux-gnu"
  ln -s usr/lib "$r/lib"
  cp "$s/usr/bin/perf" "$r/usr/bin/perf"
  interp=$("$readelf" -l "$s/usr/bin/perf" | sed -n 's/.*interpreter: \([^]]*\)].*/\1/p')
  [ "$interp" = /lib/ld-linux-riscv64-lp64d.so.1 ] || die "unexpected ELF interpreter '$interp' of perf"
  find_lib() {
    local p
    for p in usr/lib/riscv64-linux-gnu lib/riscv64-linux-gnu usr/lib lib; do
      [ -e "$s/$p/$1" ] && { echo "$s/$p/$1"; return; }
    done
  }
  cp -L "$(find_lib ld-linux-riscv64-lp64d.so.1)" "$r/usr/lib/riscv64-linux-gnu/" ||
    die "ld-linux-riscv64-lp64d.so.1 not in the staged packages"
  ln -s riscv64-linux-gnu/ld-linux-riscv64-lp64d.so.1 "$r/usr/lib/ld-linux-riscv64-lp64d.so.1"
  # Breadth-first walk over DT_NEEDED from perf.
  queue=("$r/usr/bin/perf")
  while ((${#queue[@]})); do
    f=${queue[0]}; queue=("${queue[@]:1}")
    for n in $("$readelf" -d "$f" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p'); do
      [ -e "$r/usr/lib/riscv64-linux-gnu/$n" ] && continue
      src=$(find_lib "$n")
      [ -n "$src" ] || die "perf needs $n (via $(basename "$f")), which no fetched package provides"
      cp -L "$src" "$r/usr/lib/riscv64-linux-gnu/$n"
      queue+=("$r/usr/lib/riscv64-linux-gnu/$n")
    done
  done
  rm -rf "$s"
  touch "$r/.complete"
  log "perf closure: $(ls "$r/usr/lib/riscv64-linux-gnu" | wc -l) files, $(du -sh "$r" | cut -f1)"
fi

{
  echo "kernel=$kpkg $kver"
  echo "busybox=$(cat "$dir/busybox.version" 2>/dev/null || echo unknown)"
  echo "perf=$(dpkg-deb -f "$dir"/debs/linux-perf_*.deb Version)"
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
