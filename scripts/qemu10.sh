#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Builds the project QEMU: Debian trixie's qemu 10.0.13 source plus the
# project's trace device models and ingress port from hw_models/qemu/.
#
#   qemu10.sh path [VARIANT]   print the qemu-system-riscv64 path (builds if needed)
#   qemu10.sh path32 [VARIANT] the same build's qemu-system-riscv32 (RV32 suites)
#   qemu10.sh build [VARIANT]  build (or reuse) and print the path
#   qemu10.sh key [VARIANT]    print the cache key <source-version>-<model hash>
#   qemu10.sh tree             print the patched source tree (for development)
#   qemu10.sh pristine         print the unpatched Debian source tree
#
# VARIANT is "trace" (default) or "noingress" (same models, ingress hook
# compiled out with -DTSBI_NO_INGRESS; used only by tests/bench/50-qemu.sh).
#
# Cache layout under $TSBI_CACHE/qemu10/ (never inside the repository):
#   src/        apt-get source output (Debian patches applied), never modified
#   pydeps/     trixie's meson and python3-pycotap, unpacked (bookworm's meson is too old)
#   tree-<ver>/ one stable working copy of the source; project files are
#               overlaid here and only copied when their content changed, so
#               ninja in tree-<ver>/build-<variant>/ rebuilds only what a model
#               change touches (seconds)
#   <ver>-<hash>[-variant]/qemu-system-riscv{64,32}   the installed binaries; <hash>
#               covers every file under hw_models/qemu/ and this script, so a
#               model change gives a new key and a fresh clone reuses the cache.
set -euo pipefail
. "$(dirname "$0")/common.sh"
cmd=${1:-path}
variant=${2:-trace}
case $variant in trace|noingress) ;; *) echo "qemu10.sh: unknown variant $variant" >&2; exit 2 ;; esac

Q=$TSBI_CACHE/qemu10
MODELS=$TSBI_ROOT/hw_models/qemu
SRCPKG=qemu
LOCK=$TSBI_ROOT/scripts/qemu10.lock
# Both targets in one build: the target-independent objects are shared.
TARGETS=(riscv64 riscv32)
CONFIGURE_ARGS=(--target-list=riscv64-softmmu,riscv32-softmmu --without-default-features --enable-fdt=system
                --disable-docs --disable-tools --disable-install-blobs --disable-werror --enable-plugins)
[ "$variant" = noingress ] && CONFIGURE_ARGS+=(--extra-cflags=-DTSBI_NO_INGRESS)

log() { echo "qemu10: $*" >&2; }

# The Debian source, unpacked once through the private apt state.
fetch_source() {
  local d
  d=$(ls -d "$Q"/src/qemu-*/ 2>/dev/null | head -1 || true)
  if [ -z "$d" ] || [ ! -f "$d/.tsbi-complete" ]; then
    rm -rf "$Q/src"; mkdir -p "$Q/src"
    log "fetching Debian trixie source of $SRCPKG"
    # Pinned files straight from the pool (scripts/qemu10.lock); apt when
    # one of them has left it.
    if pool_fetch "$LOCK" qemu.dsc "$Q/src" && pool_fetch "$LOCK" qemu.orig "$Q/src" &&
       pool_fetch "$LOCK" qemu.debian "$Q/src"; then
      (cd "$Q/src" && dpkg-source -q --no-check -x ./*.dsc >&2)
    else
      rm -rf "$Q/src"; mkdir -p "$Q/src"
      "$TSBI_ROOT/scripts/debfetch.sh" source trixie "$Q/src" "$SRCPKG"
    fi
    d=$(ls -d "$Q"/src/qemu-*/ | head -1)
    touch "$d/.tsbi-complete"
  fi
  PRISTINE=${d%/}
  # Version from the .dsc, e.g. 10.0.13+ds-0+deb13u1.
  SRCVER=$(awk '/^Version:/ {print $2; exit}' "$Q"/src/*.dsc | tr ':' '_')
}

fetch_pydeps() {
  if [ ! -f "$Q/pydeps/.tsbi-complete" ]; then
    rm -rf "$Q/pydeps"; mkdir -p "$Q/pydeps/debs" "$Q/pydeps/root"
    log "fetching trixie meson and python3-pycotap"
    pool_fetch "$LOCK" meson "$Q/pydeps/debs" && pool_fetch "$LOCK" python3-pycotap "$Q/pydeps/debs" ||
      "$TSBI_ROOT/scripts/debfetch.sh" download trixie all "$Q/pydeps/debs" meson python3-pycotap
    for deb in "$Q"/pydeps/debs/*.deb; do dpkg-deb -x "$deb" "$Q/pydeps/root"; done
    touch "$Q/pydeps/.tsbi-complete"
  fi
  export PYTHONPATH=$Q/pydeps/root/usr/lib/python3/dist-packages${PYTHONPATH:+:$PYTHONPATH}
  export PATH=$Q/pydeps/root/usr/bin:$PATH
}

# The N-Trace message table and the Trace Control Interface register map,
# written once for the host codec, the firmware, the payloads and this model.
SHARED=(hw_models/trace/ntrace_msgs.def:include/hw/riscv/ntrace_msgs.def
        hw_models/trace/ntrace_defs.h:include/hw/riscv/ntrace_defs.h
        hw_models/trace/tci_regs.def:include/hw/riscv/tci_regs.def
        hw_models/trace/tci_regs.h:include/hw/riscv/tci_regs.h
        hw_models/trace/strc_regs.h:include/hw/riscv/strc_regs.h)

model_hash() {
  (cd "$TSBI_ROOT" && { find hw_models/qemu scripts/qemu10.sh -type f -print0
                        for m in "${SHARED[@]}"; do printf '%s\0' "${m%%:*}"; done; } | LC_ALL=C sort -z |
     xargs -0 sha256sum) | sha256sum | cut -c1-16
}

# Copy $1 to $2 only if the content differs (keeps mtimes => incremental ninja).
sync_file() {
  if ! cmp -s "$1" "$2"; then mkdir -p "$(dirname "$2")"; cp "$1" "$2"; fi
}

# Overlay the project's files onto the stable tree:
#  - hw_models/qemu/src/<path>   new files, copied to <path>
#  - hw_models/qemu/patches/*.patch  unified diffs (-p1) against the Debian source
# Files overlaid last time but not now are restored from the pristine source.
overlay() {
  local tree=$1 stage manifest new
  stage=$(mktemp -d); manifest=$tree/.tsbi-overlay
  if [ -d "$MODELS/src" ]; then (cd "$MODELS/src" && find . -type f | sed 's|^\./||') > "$stage/.new"; else : > "$stage/.new"; fi
  while read -r f; do mkdir -p "$stage/t/$(dirname "$f")"; cp "$MODELS/src/$f" "$stage/t/$f"; done < "$stage/.new"
  for m in "${SHARED[@]}"; do
    mkdir -p "$stage/t/$(dirname "${m#*:}")"; cp "$TSBI_ROOT/${m%%:*}" "$stage/t/${m#*:}"; echo "${m#*:}" >> "$stage/.new"
  done
  for p in $(ls "$MODELS"/patches/*.patch 2>/dev/null | LC_ALL=C sort); do
    for f in $(awk '/^\+\+\+ / {sub(/^b\//, "", $2); print $2}' "$p"); do
      if [ ! -e "$stage/t/$f" ]; then
        mkdir -p "$stage/t/$(dirname "$f")"
        [ -e "$PRISTINE/$f" ] && cp "$PRISTINE/$f" "$stage/t/$f"
        echo "$f" >> "$stage/.new"
      fi
    done
    if ! patch -s -p1 -d "$stage/t" --no-backup-if-mismatch < "$p"; then
      log "patch $(basename "$p") does not apply"; rm -rf "$stage"; return 1
    fi
  done
  sort -u "$stage/.new" -o "$stage/.new"
  while read -r f; do sync_file "$stage/t/$f" "$tree/$f"; done < "$stage/.new"
  if [ -f "$manifest" ]; then
    comm -23 <(sort -u "$manifest") "$stage/.new" | while read -r f; do
      if [ -e "$PRISTINE/$f" ]; then sync_file "$PRISTINE/$f" "$tree/$f"; else rm -f "$tree/$f"; fi
    done
  fi
  cp "$stage/.new" "$manifest"
  rm -rf "$stage"
}

build() {
  fetch_source
  local key dest tree bdir
  key=$SRCVER-$(model_hash)
  dest=$Q/$key
  [ "$variant" = noingress ] && dest=$Q/$key-noingress
  if installed "$dest"; then echo "$dest/qemu-system-$BIN"; return; fi
  # Every checkout builds in the one tree-<ver>: one build at a time. The
  # lock is released when this script exits; a build that finished while
  # we waited for it is reused.
  local lockfd
  exec {lockfd}> "$Q/build.lock"
  if ! flock -n "$lockfd"; then
    log "waiting for another build ($Q/build.lock)"
    flock "$lockfd"
  fi
  if installed "$dest"; then echo "$dest/qemu-system-$BIN"; return; fi
  fetch_pydeps
  tree=$Q/tree-$SRCVER
  if [ ! -f "$tree/.tsbi-complete" ]; then
    log "creating working tree $tree"
    rm -rf "$tree"; cp -a "$PRISTINE" "$tree"; touch "$tree/.tsbi-complete"
  fi
  overlay "$tree"
  # The folder names the targets: a checkout with another target list
  # configures its own instead of wiping this one.
  bdir=$tree/build-$variant-$(IFS=-; echo "${TARGETS[*]}")
  local want; want="${CONFIGURE_ARGS[*]}"
  if [ ! -f "$bdir/build.ninja" ] || [ "$(cat "$bdir/.tsbi-configure" 2>/dev/null)" != "$want" ]; then
    log "configuring ($variant)"
    rm -rf "$bdir"; mkdir -p "$bdir"
    (cd "$bdir" && ../configure "${CONFIGURE_ARGS[@]}" > configure.log 2>&1) ||
      { tail -30 "$bdir/configure.log" >&2; log "configure failed"; return 1; }
    echo "$want" > "$bdir/.tsbi-configure"
  fi
  log "building ${TARGETS[*]/#/qemu-system-} ($variant) in $bdir"
  (cd "$bdir" && ninja -j"${TSBI_JOBS:-2}" "${TARGETS[@]/#/qemu-system-}" > ninja.log 2>&1) ||
    { grep -A8 -E 'error|FAILED' "$bdir/ninja.log" | grep -v '^cc ' | head -60 >&2 || tail -40 "$bdir/ninja.log" >&2; log "build failed"; return 1; }
  mkdir -p "$dest.tmp"
  for t in "${TARGETS[@]}"; do cp "$bdir/qemu-system-$t" "$dest.tmp/"; done
  rm -rf "$dest"; mv "$dest.tmp" "$dest"
  echo "$dest/qemu-system-$BIN"
}

installed() {
  local t
  for t in "${TARGETS[@]}"; do [ -x "$1/qemu-system-$t" ] || return 1; done
}

BIN=riscv64
case $cmd in
  path|build) build ;;
  path32) BIN=riscv32; build ;;
  key) fetch_source; echo "$SRCVER-$(model_hash)" ;;
  tree) fetch_source; echo "$Q/tree-$SRCVER" ;;
  pristine) fetch_source; echo "$PRISTINE" ;;
  *) sed -n '3,12p' "$0" >&2; exit 2 ;;
esac
