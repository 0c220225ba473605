#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Compare a decoded N-Trace PC list with the insnlog plugin's record.

usage: compare.py DECODED RECORD [--min N] [--priv P[,P...]]
                  [--trap-window ENTRY [--causes C[,C...]] [--irq 0|1]]

Both files hold one "0xADDR" per line. The decoded trace must appear in the
record as one contiguous run (tracing starts and stops at translation-block
boundaries, so it begins somewhere after the payload enabled it); every
decoded instruction must equal the executed one. Exit 0 on match.

With insnlog priv=on the record's lines are "0xADDR PRIV [x|r]" ("x": the
instruction never retires, e.g. ecall; "r": a trap return), and the record
is first cut down to what the encoder's filters let through:
  --priv       instructions executed in those privilege levels
               (trTeFilterMatchChoicePrivilege);
  --trap-window ENTRY: trap windows (MatchEcause / MatchInterrupt): from
               the arrival at ENTRY (the payload's only trap vector) of a
               trap whose cause is in --causes and whose kind is --irq
               (1 interrupt, 0 exception), through the trap return that
               ends it, nested traps counted. A trap right after an "x"
               instruction is its exception (ecall: cause 8, 9 or 11 by
               privilege); any other arrival is the payload's only
               interrupt, the machine timer (cause 7).
"""
import itertools
import sys

ECALL_CAUSE = {0: 8, 1: 9, 3: 11}
TIMER_CAUSE = 7
DEPTH_MAX = 255


def load(path):
    out = []
    with open(path) as f:
        for line in f:
            if not line.startswith("0x"):
                continue
            w = line.split()
            priv = int(w[1]) if len(w) > 1 else None
            flag = w[2] if len(w) > 2 else ""
            out.append((int(w[0], 16), priv, flag))
    return out


def trap_windows(rec, entry, causes, irq):
    out, depth, pending = [], 0, None
    for addr, priv, flag in rec:
        if flag == "x":
            pending = ECALL_CAUSE.get(priv, -1)
            continue
        if addr == entry:
            interrupt = pending is None
            cause = TIMER_CAUSE if interrupt else pending
            pending = None
            if depth:
                depth = min(depth + 1, DEPTH_MAX)
            elif (causes is None or cause in causes) and (irq is None or interrupt == irq):
                depth = 1
        if depth:
            out.append(addr)
            if flag == "r":
                depth -= 1
    return out


MAX_CANDIDATES = 2000
HASH_MOD = (1 << 61) - 1
HASH_BASE = 1000003


def find_run(rec, dec):
    """Index where dec occurs in rec as one contiguous run, or -1. A rolling
    hash keeps this linear: a plain search is quadratic when the trace starts
    in a loop (every iteration is a candidate start)."""
    k = len(dec)
    if k == 0 or k > len(rec):
        return -1
    target = 0
    for pc in dec:
        target = (target * HASH_BASE + pc) % HASH_MOD
    top = pow(HASH_BASE, k - 1, HASH_MOD)
    h = 0
    for i, pc in enumerate(rec):
        if i >= k:
            h = (h - rec[i - k] * top) % HASH_MOD
        h = (h * HASH_BASE + pc) % HASH_MOD
        if i >= k - 1 and h == target and rec[i - k + 1:i + 1] == dec:
            return i - k + 1
    return -1


def option(args, name, conv):
    if name not in args:
        return None
    i = args.index(name)
    v = conv(args[i + 1])
    del args[i:i + 2]
    return v


def main():
    args = sys.argv[1:]
    minimum = option(args, "--min", int) or 1
    ints = lambda s: {int(x, 0) for x in s.split(",")}
    privs = option(args, "--priv", ints)
    entry = option(args, "--trap-window", lambda s: int(s, 0))
    causes = option(args, "--causes", ints)
    irq = option(args, "--irq", lambda s: bool(int(s)))
    dec = [a for a, _, _ in load(args[0])]
    rec = load(args[1])
    if privs is not None:
        rec = [r for r in rec if r[1] in privs]
    if entry is not None:
        rec = trap_windows(rec, entry, causes, irq)
    else:
        rec = [a for a, _, flag in rec if flag != "x"]
    if len(dec) < minimum:
        print(f"decoded {len(dec)} instructions, fewer than {minimum}")
        return 1
    start = find_run(rec, dec)
    if start >= 0:
        print(f"{len(dec)} decoded instructions equal the record "
              f"(record index {start}..{start + len(dec) - 1} of {len(rec)})")
        return 0
    # No exact run: report the longest matching prefix (first candidates
    # only: an idle loop at the start makes every iteration a candidate).
    best = (-1, 0)
    for start in itertools.islice((i for i, pc in enumerate(rec) if pc == dec[0]), MAX_CANDIDATES):
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
