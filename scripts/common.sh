# SPDX-License-Identifier: BSD-2-Clause
# Shared shell settings for the project's scripts: where downloads and
# out-of-tree builds are cached (never inside the repository).
: "${TSBI_CACHE:=${XDG_CACHE_HOME:-$HOME/.cache}/tsbi}"
export TSBI_CACHE
TSBI_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export TSBI_ROOT
mkdir -p "$TSBI_CACHE"

# Files pinned in a lock file (lines "name version pool-path size sha256")
# come straight from the Debian pool and are checked against the pinned
# SHA-256, so no package index is needed: a mirror in the middle of a sync
# serves indices that apt rejects. pool_fetch LOCK NAME DEST prints nothing
# and returns 1 when NAME is not locked or its file has left the pool (the
# caller then asks apt); a file that arrives with another hash is fatal.
: "${TSBI_DEBIAN_MIRROR:=http://deb.debian.org/debian}"
pool_fetch() {
  local lock=$1 name=$2 dest=$3 ver file size sum out
  read -r _ ver file size sum < <(awk -v n="$name" '$1 == n' "$lock") || return 1
  [ -n "${sum:-}" ] || return 1
  mkdir -p "$dest"
  out=$dest/$(basename "$file")
  if [ -f "$out" ] && echo "$sum  $out" | sha256sum -c --status; then return 0; fi
  curl -fsS --retry 3 -o "$out.part" "$TSBI_DEBIAN_MIRROR/$file" || { rm -f "$out.part"; return 1; }
  if ! echo "$sum  $out.part" | sha256sum -c --status; then
    rm -f "$out.part"
    echo "pool_fetch: $file: SHA-256 differs from $lock" >&2
    exit 1
  fi
  mv "$out.part" "$out"
}

# pool_unpack LOCK NAME DIR: the locked .deb NAME (pool_fetch) unpacked once
# into DIR/root; DIR/.tsbi-complete marks a finished unpack, so a run killed
# half-way starts afresh. Returns 1 when pool_fetch cannot get the file.
pool_unpack() {
  local lock=$1 name=$2 d=$3 deb
  [ -f "$d/.tsbi-complete" ] && return 0
  rm -rf "$d"; mkdir -p "$d/debs" "$d/root"
  pool_fetch "$lock" "$name" "$d/debs" || return 1
  for deb in "$d"/debs/*.deb; do dpkg-deb -x "$deb" "$d/root"; done
  touch "$d/.tsbi-complete"
}
