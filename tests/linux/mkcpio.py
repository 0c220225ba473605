#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Writes a gzip'd newc cpio archive (the initramfs format the kernel unpacks,
Documentation/driver-api/early-userspace/buffer-format.rst) from a directory
tree plus extra device nodes, without needing root: every entry is owned by
root, timestamps are zero, and entries are sorted so the output only depends
on the inputs.

usage: mkcpio.py OUT.cpio.gz ROOTDIR [NAME:c|b:MAJOR:MINOR:MODE ...]
"""
import gzip
import os
import stat
import sys

NEWC_MAGIC = b"070701"
TRAILER = "TRAILER!!!"


class Writer:
    def __init__(self, out):
        self.out = out
        self.ino = 1
        self.pos = 0

    def _write(self, data):
        self.out.write(data)
        self.pos += len(data)

    def _pad4(self):
        if self.pos % 4:
            self._write(b"\0" * (4 - self.pos % 4))

    def entry(self, name, mode, data=b"", nlink=1, rdev=(0, 0)):
        name_b = name.encode() + b"\0"
        fields = [self.ino, mode, 0, 0, nlink, 0, len(data), 0, 0,
                  rdev[0], rdev[1], len(name_b), 0]
        self.ino += 1
        self._write(NEWC_MAGIC + b"".join(b"%08X" % f for f in fields))
        self._write(name_b)
        self._pad4()
        self._write(data)
        self._pad4()


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    out, root, extra = argv[1], argv[2], argv[3:]
    entries = []
    for dirpath, dirnames, filenames in os.walk(root):
        rel_dir = os.path.relpath(dirpath, root)
        for n in dirnames + filenames:
            entries.append(os.path.normpath(os.path.join(rel_dir, n)))
    entries.sort()
    tmp = f"{out}.tmp{os.getpid()}"
    with open(tmp, "wb") as raw, \
            gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=6, mtime=0) as gz:
        w = Writer(gz)
        for rel in entries:
            path = os.path.join(root, rel)
            st = os.lstat(path)
            perm = stat.S_IMODE(st.st_mode)
            if stat.S_ISLNK(st.st_mode):
                w.entry(rel, stat.S_IFLNK | 0o777, os.readlink(path).encode())
            elif stat.S_ISDIR(st.st_mode):
                w.entry(rel, stat.S_IFDIR | perm, nlink=2)
            elif stat.S_ISREG(st.st_mode):
                with open(path, "rb") as f:
                    w.entry(rel, stat.S_IFREG | perm, f.read())
            else:
                sys.exit(f"mkcpio: unsupported file type: {path}")
        for spec in extra:
            name, kind, major, minor, mode = spec.split(":")
            fmt = {"c": stat.S_IFCHR, "b": stat.S_IFBLK}[kind]
            w.entry(name, fmt | int(mode, 8), rdev=(int(major), int(minor)))
        w.entry(TRAILER, 0)
    os.replace(tmp, out)


if __name__ == "__main__":
    main(sys.argv)
