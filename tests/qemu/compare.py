#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Compare a decoded N-Trace PC list with the insnlog plugin's record.

usage: compare.py DECODED RECORD [--min N] [--priv P[,P...]]

Both files hold one "0xADDR" per line. The decoded trace must appear in the
record as one contiguous run (tracing starts and stops at translation-block
boundaries, so it begins somewhere after the payload enabled it); every
decoded instruction must equal the executed one. Exit 0 on match.
With --priv the record (insnlog priv=on: "0xADDR PRIV" lines) is first cut
down to the instructions executed in those privilege levels, the ones a
privilege filter (trTeFilterMatchChoicePrivilege) lets the encoder trace.
"""
import sys


def load(path, privs=None):
    out = []
    with open(path) as f:
        for line in f:
            if not line.startswith("0x"):
                continue
            w = line.split()
            if privs is None or (len(w) > 1 and int(w[1]) in privs):
                out.append(int(w[0], 16))
    return out


def main():
    args = sys.argv[1:]
    minimum = 1
    if "--min" in args:
        i = args.index("--min")
        minimum = int(args[i + 1])
        del args[i:i + 2]
    privs = None
    if "--priv" in args:
        i = args.index("--priv")
        privs = {int(p) for p in args[i + 1].split(",")}
        del args[i:i + 2]
    dec, rec = load(args[0]), load(args[1], privs)
    if len(dec) < minimum:
        print(f"decoded {len(dec)} instructions, fewer than {minimum}")
        return 1
    best = (-1, 0)
    for start in (i for i, pc in enumerate(rec) if pc == dec[0]):
        n = 0
        lim = min(len(dec), len(rec) - start)
        while n < lim and rec[start + n] == dec[n]:
            n += 1
        if n == len(dec):
            print(f"{len(dec)} decoded instructions equal the record "
                  f"(record index {start}..{start + n - 1} of {len(rec)})")
            return 0
        if n > best[1]:
            best = (start, n)
    start, n = best
    if start < 0:
        print(f"first decoded address {dec[0]:#x} never executed")
        return 1
    got = f"{dec[n]:#x}" if n < len(dec) else "end"
    want = f"{rec[start + n]:#x}" if start + n < len(rec) else "end"
    print(f"mismatch after {n} of {len(dec)} instructions: decoded {got}, "
          f"executed {want} (record index {start + n})")
    return 1


if __name__ == "__main__":
    sys.exit(main())
