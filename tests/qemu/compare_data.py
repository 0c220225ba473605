#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Compare a decoded E-Trace data trace with the insnlog plugin's record of
loads and stores.

usage: compare_data.py DECODED RECORD MEMRECORD [--begin A[,A...]] [--end A[,A...]]
                       [--min N] [--no-value | --no-addr] [--within]

DECODED: `tsbi-trace etrace decode --data` output, one access per line
("load size=S addr=0xA data=0xV", "store ..."; a "data_lost" line is a
packet the encoder reported lost). RECORD: insnlog's instruction record of
the hart (one "0xADDR" line per instruction), MEMRECORD: its mem=on record
("IDX 0xPC L|S SIZE 0xADDR 0xVALUE [a]", IDX the line of the instruction in
RECORD). The traced window is cut from RECORD as tests/qemu/compare.py does
(--begin: from the first execution of any of the addresses; --end: through
the first execution of any of those at or after the start), and the decoded
data trace must equal, access for access (kind, size, address and value),
the loads and stores the instructions of that window made. Atomics ("a":
AMO, LR, SC) are not data traced by the model (hw_models/qemu/README.md,
"E-Trace data trace") and are left out of the record; their number is
printed. --min N: at least N accesses (default 1). --no-value / --no-addr:
the encoder left values / addresses out (trTeDataNoValue / NoAddr), so they
are not compared. --within (RECORD may be -): the record holds more than the
trace (suite 52: a whole run, the firmware starting and stopping the trace
by IPI, and a plugin mem=S record), and any contiguous run of its accesses
passes. Exit 0 on match.
"""
import re
import sys


def ints(s):
    return {int(x, 0) for x in s.split(",")}


def option(args, name, conv):
    if name in args:
        i = args.index(name)
        v = conv(args[i + 1])
        del args[i:i + 2]
        return v
    return None


def main():
    args = sys.argv[1:]
    begin = option(args, "--begin", ints)
    end = option(args, "--end", ints)
    least = option(args, "--min", int) or 1
    within = "--within" in args
    if within:
        args.remove("--within")
    blank = []
    for flag, field in (("--no-value", "data"), ("--no-addr", "addr")):
        if flag in args:
            args.remove(flag)
            blank.append(field)

    def norm(line):
        for field in blank:
            line = re.sub(r"\b%s=\S+" % field, "%s=-" % field, line)
        return line
    if len(args) != 3:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    decoded_path, rec_path, mem_path = args
    pcs = []
    if rec_path != "-":
        with open(rec_path) as f:
            for line in f:
                if line.startswith("0x"):
                    pcs.append(int(line.split()[0], 16))
    lo, hi = 0, len(pcs) if rec_path != "-" else 1 << 62
    if begin is not None:
        lo = next((i for i, pc in enumerate(pcs) if pc in begin), -1)
        if lo < 0:
            print("the record never executes a --begin address")
            return 1
    if end is not None:
        hi = next((i + 1 for i in range(lo, len(pcs)) if pcs[i] in end), -1)
        if hi < 0:
            print("the record never executes an --end address after its start")
            return 1
    want, where, atomics, atom_at = [], [], 0, []
    with open(mem_path) as f:
        for line in f:
            w = line.split()
            idx = int(w[0])
            if not lo <= idx < hi:
                continue
            if len(w) > 6 and w[6] == "a":
                atomics += 1
                atom_at.append(len(want))  # accesses recorded before it
                continue
            kind = "load" if w[2] == "L" else "store"
            want.append(norm("%s size=%x addr=%#x data=%#x" % (kind, int(w[3]), int(w[4], 16), int(w[5], 16))))
            where.append(w[1])
    with open(decoded_path) as f:
        got = [norm(line.strip()) for line in f if line.strip() and not line.startswith("#")]
    if within:
        k = len(got)
        first = next((i for i in range(len(want) - k + 1) if want[i] == got[0] and want[i:i + k] == got), -1) \
            if got else -1
        if first >= 0 and k >= least:
            inside = sum(first < a < first + k for a in atom_at)
            print("%d accesses equal (accesses %d..%d of the record, %d atomics inside left out)" % (
                k, first, first + k - 1, inside))
            return 0
        print("%d decoded accesses%s" % (k, " are no contiguous run of the %d recorded" % len(want) if first < 0
                                         else ", fewer than --min %d" % least))
        return 1
    n = next((i for i, (a, b) in enumerate(zip(got, want)) if a != b), min(len(got), len(want)))
    if n == len(got) == len(want) and n >= least:
        print("%d accesses equal (instructions %d..%d of the record, %d atomics left out)" % (n, lo, hi - 1, atomics))
        return 0
    if n == len(got) == len(want):
        print("%d accesses equal, fewer than --min %d" % (n, least))
        return 1
    print("first difference at access %d of %d decoded, %d recorded (window: instructions %d..%d):"
          % (n, len(got), len(want), lo, hi - 1))
    for i in range(max(0, n - 2), n + 3):
        a = got[i] if i < len(got) else "end"
        b = "%s (pc %s)" % (want[i], where[i]) if i < len(want) else "end"
        print("  %s%d decoded: %s\n  %s  recorded: %s" % ("*" if i == n else " ", i, a, " " * len(str(i)), b))
    return 1


if __name__ == "__main__":
    sys.exit(main())
