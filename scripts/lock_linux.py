#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Writes scripts/linux.lock: the Debian trixie riscv64 packages the Linux
tests need (kernel, busybox-static, linux-perf, qemu-system-riscv for the
KVM test's nested QEMU, and the lib*/zlib packages of their recursive
Depends, first alternatives, as scripts/fetch_linux.sh walks them), one line
each: package version pool-filename size sha256.

    lock_linux.py PACKAGES_FILE [OLD_LOCK] > scripts/linux.lock

With OLD_LOCK, a package pinned there keeps its line (so adding a package
does not move the kernel and perf every test uses to a newer version); only
the packages it lacks come from PACKAGES_FILE. Without it everything is
pinned anew from the index.

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


def old_lock(path):
    """name -> the lock line of each package OLD_LOCK pins."""
    out = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                out[line.split()[0]] = line.rstrip("\n")
    return out


def main():
    pkgs = parse(sys.argv[1])
    old = old_lock(sys.argv[2]) if len(sys.argv) > 2 else {}
    if "linux-image-riscv64" in old:
        kernel = [p for p in old if re.match(r"linux-image-6\.12\..*-riscv64$", p)]
        if len(kernel) != 1:
            sys.exit("OLD_LOCK pins no single versioned kernel package")
        kpkg = kernel[0]
    else:
        meta_dep = pkgs["linux-image-riscv64"]["Depends"]
        m = re.search(r"(linux-image-6\.12\.[^ ]*-riscv64) \(= ([^)]*)\)", meta_dep)
        if not m:
            sys.exit("unexpected Depends of linux-image-riscv64: " + meta_dep)
        kpkg = m.group(1)
    # The first three are taken without their Depends (the kernel's modules
    # and busybox are used as files); perf and QEMU with their libraries.
    want = ["linux-image-riscv64", kpkg, "busybox-static", "linux-perf", "qemu-system-riscv"]
    seen = set()
    queue = list(want)
    while queue:
        p = queue.pop(0)
        if p in seen:
            continue
        if p not in pkgs:
            if p in old:
                seen.add(p)
                continue
            sys.exit(f"{p}: not in the index")
        seen.add(p)
        if p not in want[:3]:
            queue.extend(deps(pkgs[p]))
    print("# Debian trixie riscv64 packages for tests/linux (scripts/lock_linux.py)")
    print("# package version filename size sha256")
    for p in sorted(seen):
        if p in old:
            print(old[p])
            continue
        f = pkgs[p]
        print(p, f["Version"], f["Filename"], f["Size"], f["SHA256"])


if __name__ == "__main__":
    main()
