# SPDX-License-Identifier: BSD-2-Clause
# Shared shell settings for the project's scripts: where downloads and
# out-of-tree builds are cached (never inside the repository).
: "${TSBI_CACHE:=${XDG_CACHE_HOME:-$HOME/.cache}/tsbi}"
export TSBI_CACHE
TSBI_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export TSBI_ROOT
mkdir -p "$TSBI_CACHE"
