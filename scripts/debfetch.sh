#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Fetches Debian packages through a *private* apt state under the cache
# directory (../shared/reference/linux.md), so the system's apt sources and
# dpkg architectures are never changed.
#
#   debfetch.sh download SUITE ARCH DESTDIR PKG...   binary .debs (ARCH may be "all")
#   debfetch.sh source   SUITE DESTDIR PKG            unpacked source with Debian patches
#   debfetch.sh policy   SUITE ARCH PKG               candidate version
set -euo pipefail
. "$(dirname "$0")/common.sh"
cmd=$1; suite=$2; shift 2
types=deb; arch=
case $cmd in
  download|policy) arch=$1; shift ;;
  source) types=deb-src ;;
  *) echo "usage: see header of $0" >&2; exit 2 ;;
esac
A=$TSBI_CACHE/apt/$suite-$types-${arch:-any}
mkdir -p "$A/lists/partial" "$A/cache/archives/partial" "$A/etc" "$A/state"
touch "$A/state/status"
{
  echo "Types: $types"
  echo "URIs: http://deb.debian.org/debian"
  echo "Suites: $suite"
  echo "Components: main"
  [ -n "$arch" ] && [ "$arch" != all ] && echo "Architectures: $arch"
  echo "Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg"
} > "$A/etc/sources.sources"
O=(-o "Dir::Etc::SourceList=$A/etc/sources.sources" -o Dir::Etc::SourceParts=/dev/null
   -o "Dir::State::Lists=$A/lists" -o "Dir::Cache=$A/cache" -o "Dir::State::status=$A/state/status"
   -o Debug::NoLocking=1 -o APT::Sandbox::User=root)
if [ -n "$arch" ] && [ "$arch" != all ]; then
  O+=(-o "APT::Architecture=$arch" -o "APT::Architectures=$arch")
fi
# Refresh the package lists at most once a day.
stamp=$A/updated
if [ ! -f "$stamp" ] || [ -n "$(find "$stamp" -mmin +1440)" ]; then
  apt-get "${O[@]}" -q --error-on=any update >&2
  touch "$stamp"
fi
case $cmd in
  download)
    dest=$1; shift; mkdir -p "$dest"
    (cd "$dest" && apt-get "${O[@]}" -q download "$@" >&2) ;;
  source)
    dest=$1; pkg=$2; mkdir -p "$dest"
    (cd "$dest" && apt-get "${O[@]}" -q source "$pkg" >&2) ;;
  policy)
    apt-cache "${O[@]}" policy "$1" | awk '/Candidate:/ {print $2}' ;;
esac
