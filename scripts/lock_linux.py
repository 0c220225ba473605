#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Writes scripts/linux.lock: the Debian trixie riscv64 packages the Linux
tests need (kernel, busybox-static, linux-perf and the lib*/zlib packages of
its recursive Depends, first alternatives, as scripts/fetch_linux.sh walks
them), one line each: package version pool-filename size sha256.

    lock_linux.py PACKAGES_FILE > scripts/linux.lock

PACKAGES_FILE is trixie's main/binary-riscv64/Packages (uncompressed), e.g.
the one apt keeps under $TSBI_CACHE/apt/trixie-deb-riscv64/lists/.
fetch_linux.sh downloads the locked files straight from the pool and checks
their SHA-256, so the tests do not depend on the mirror's index being
consistent (apt refuses an index whose size differs from the Release file's,
which a mirror in the middle of a sync serves); it falls back to apt when a
locked version has left the pool.
"""
import re
import sys


def parse(path):
    pkgs = {}
    with open(path, encoding="utf-8", errors="replace") as f:
        for block in f.read().split("\n\n"):
            fields = {}
            key = None
            for line in block.splitlines():
                if line[:1] in (" ", "\t") and key:
                    fields[key] += "\n" + line
                    continue
                key, _, val = line.partition(":")
                fields[key] = val.strip()
            if "Package" in fields:
                pkgs[fields["Package"]] = fields
    return pkgs


def deps(fields):
    out = []
    for key in ("Depends", "Pre-Depends"):
        for d in fields.get(key, "").split(","):
            name = re.sub(r"\(.*\)", "", d.split("|")[0]).replace(":any", "").strip()
            if re.match(r"^(lib|zlib)", name):
                out.append(name)
    return out


def main():
    pkgs = parse(sys.argv[1])
    meta = pkgs["linux-image-riscv64"]
    m = re.search(r"(linux-image-6\.12\.[^ ]*-riscv64) \(= ([^)]*)\)", meta["Depends"])
    if not m:
        sys.exit("unexpected Depends of linux-image-riscv64: " + meta["Depends"])
    want = ["linux-image-riscv64", m.group(1), "busybox-static", "linux-perf"]
    seen = set()
    queue = list(want)
    while queue:
        p = queue.pop(0)
        if p in seen:
            continue
        if p not in pkgs:
            sys.exit(f"{p}: not in the index")
        seen.add(p)
        if p not in want[:3]:
            queue.extend(deps(pkgs[p]))
    print("# Debian trixie riscv64 packages for tests/linux (scripts/lock_linux.py)")
    print("# package version filename size sha256")
    for p in sorted(seen):
        f = pkgs[p]
        print(p, f["Version"], f["Filename"], f["Size"], f["SHA256"])


if __name__ == "__main__":
    main()
