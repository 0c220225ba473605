#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Compare a decoded E-Trace data trace with the insnlog plugin's record of
loads, stores and atomics.

usage: compare_data.py DECODED RECORD MEMRECORD [--begin A[,A...]] [--end A[,A...]]
                       [--min N] [--no-value | --no-addr] [--within]

DECODED: `tsbi-trace etrace decode --data` output, one access per line
("load size=S addr=0xA data=0xV", "store ...", "amo size=S op=K addr=0xA
data=0xV operand=0xO", "sc_fail size=S addr=0xA"; a "data_lost" line is a
packet the encoder reported lost). RECORD: insnlog's instruction record of
the hart (one "0xADDR" line per instruction), MEMRECORD: its mem=on record
("IDX 0xPC L|S SIZE 0xADDR 0xVALUE [a|v|o]", IDX the line of the instruction in
RECORD). The traced window is cut from RECORD as tests/qemu/compare.py does
(--begin: from the first execution of any of the addresses; --end: through
the first execution of any of those at or after the start), and the decoded
data trace must equal, access for access (kind, size, address and value),
the loads, stores and atomics the instructions of that window made.

Atomics ("a": AMO, LR, SC; hw_models/qemu/README.md "E-Trace data trace"):
the record gives an LR as one load, an AMO and an SC that reached memory as
a load and a store of the same instruction. An LR must be decoded as a load.
A load+store pair must be one of: an AMO ("amo": its data the value loaded,
and the recorded store value its operand, as QEMU's parallel TCG reports
it, or the operation applied to both, as serial TCG stores it; max/min in
either signedness, the packet has one subtype for both); an SC that stored
("store" with the recorded store value; the value loaded equals the last LR's
value, QEMU's success condition); an SC that failed ("sc_fail"; it did not).
An "sc_fail" with no recorded access passes: QEMU's SC whose reservation
is gone (another SC, a privilege change, an address other than the LR's)
makes no access, and the record cannot tell when that is. The counts of
each are printed. Vector accesses ("v") and other ones ("o": cbo.zero's 64
byte stores) have no data trace packet in E-Trace 2.0: they are left out of
the record and counted, as `tsbi-trace acc compare` does on a whole boot. --min N: at least N accesses (default 1).
--no-value / --no-addr: the encoder left values / addresses out
(trTeDataNoValue / NoAddr), so they are not compared. --within (RECORD may
be -): the record holds more than the trace (suite 52: a whole run, the
firmware starting and stopping the trace by IPI, and a plugin mem=S
record), and any contiguous run of its accesses passes. Exit 0 on match.
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
    nv, na = "data" in blank, "addr" in blank

    def norm(line):
        if nv:
            line = re.sub(r"\b(data|operand)=\S+", r"\1=-", line)
        if na:
            line = re.sub(r"\baddr=\S+", "addr=-", line)
        return line
    # want: per expected decoded access, its line (a plain load or store, an
    # LR) or, for an atomic's load+store, (size, addr, loaded, stored, pc);
    # lr_before[i]: the last LR (size, addr, value) recorded before want[i]
    want, where, lr_before, lrs, last_lr, prev = [], [], [], set(), None, None
    untraced = {"v": 0, "o": 0}
    with open(mem_path) as f:
        for line in f:
            w = line.split()
            idx = int(w[0])
            if not lo <= idx < hi:
                continue
            mark = w[6] if len(w) > 6 else ""
            if mark in untraced:
                untraced[mark] += 1
                continue
            atomic = mark == "a"
            size, addr, val = int(w[3]), int(w[4], 16), int(w[5], 16)
            if atomic and w[2] == "S" and prev is not None and prev[0] == idx:
                # the store of an AMO or SC: the load before it becomes the pair
                want[-1] = (size, addr, prev[1], val, w[1])
                lrs.discard(len(want) - 1)
                last_lr = lr_before[-1]
                prev = None
                continue
            lr_before.append(last_lr)
            want.append(norm("%s size=%x addr=%#x data=%#x" % ("load" if w[2] == "L" else "store", size, addr, val)))
            where.append(w[1])
            prev = (idx, val) if atomic and w[2] == "L" else None
            if prev:
                lrs.add(len(want) - 1)
                last_lr = (size, addr, val)
    with open(decoded_path) as f:
        got = [norm(line.strip()) for line in f if line.strip() and not line.startswith("#")]

    def fields(line):
        w = line.split()
        d = {"kind": w[0]}
        for kv in w[1:]:
            key, _, v = kv.partition("=")
            d[key] = None if v == "-" else int(v, 16)
        return d

    def amo_result(op, old, operand, size):
        m = (1 << (8 << size)) - 1
        sign = 1 << ((8 << size) - 1)

        def sx(x):
            return x - (sign << 1) if x & sign else x
        r = {0: [operand], 1: [old + operand], 2: [old & operand], 3: [old | operand], 4: [old ^ operand],
             5: [max(sx(old), sx(operand)), max(old, operand)], 6: [min(sx(old), sx(operand)), min(old, operand)]}
        return {x & m for x in r.get(op, [])}

    def match(j, line):
        e = want[j]
        if isinstance(e, str):
            return e == line
        size, addr, loaded, stored, _ = e
        g = fields(line)
        if g.get("size") != size or (not na and g.get("addr") != addr):
            return False
        lr = lr_before[j]
        sc_stored = lr is not None and lr[2] == loaded
        if g["kind"] == "amo":
            return nv or (g.get("data") == loaded and
                          stored in {g.get("operand")} | amo_result(g.get("op"), loaded, g.get("operand"), size))
        if g["kind"] == "store":
            return sc_stored and (nv or g.get("data") == stored)
        return g["kind"] == "sc_fail" and not sc_stored

    def unrecorded_sc_fail(j, line):
        return line.startswith("sc_fail")

    def walk(j):
        """Match got against want from want[j]: (want index reached, first unmatched got index or None, counts)."""
        n = {"amo": 0, "lr": 0, "sc": 0, "sc_fail": 0, "sc_fail_noaccess": 0}
        for i, line in enumerate(got):
            if j < len(want) and match(j, line):
                if not isinstance(want[j], str):
                    n[{"amo": "amo", "store": "sc", "sc_fail": "sc_fail"}[line.split()[0]]] += 1
                elif j in lrs:
                    n["lr"] += 1
                j += 1
            elif unrecorded_sc_fail(j, line):
                n["sc_fail_noaccess"] += 1
            else:
                return j, i, n
        return j, None, n

    def counts(n):
        return ("atomics: %d AMOs, %d LRs, %d SCs stored, %d SCs failed, %d failed without an access; "
                "left out: %d vector, %d cbo.zero accesses") % (
            n["amo"], n["lr"], n["sc"], n["sc_fail"], n["sc_fail_noaccess"], untraced["v"], untraced["o"])
    if within:
        k = len(got)
        for first in range(len(want)):
            if not got or not match(first, got[0]):
                continue
            j, bad, n = walk(first)
            if bad is None:
                if k >= least:
                    print("%d accesses equal (accesses %d..%d of the record, %s)" % (k, first, j - 1, counts(n)))
                    return 0
                break
        print("%d decoded accesses%s" % (k, ", fewer than --min %d" % least if 0 < k < least
                                         else " are no contiguous run of the %d recorded" % len(want)))
        return 1
    j, bad, n = walk(0)
    if bad is None and j == len(want) and len(got) >= least:
        print("%d accesses equal (instructions %d..%d of the record, %s)" % (len(got), lo, hi - 1, counts(n)))
        return 0
    if bad is None and j == len(want):
        print("%d accesses equal, fewer than --min %d" % (len(got), least))
        return 1
    bad = len(got) if bad is None else bad
    print("first difference at access %d of %d decoded, %d recorded (window: instructions %d..%d):"
          % (bad, len(got), len(want), lo, hi - 1))
    for i in range(max(0, bad - 2), bad + 3):
        jj = j + i - bad
        a = got[i] if i < len(got) else "end"
        b = "end"
        if 0 <= jj < len(want):
            e = want[jj]
            b = e if isinstance(e, str) else \
                "atomic load+store size=%x addr=%#x loaded=%#x stored=%#x" % e[:4]
            b += " (pc %s)" % where[jj]
        print("  %s%d decoded: %s\n  %s  recorded: %s" % ("*" if i == bad else " ", i, a, " " * len(str(i)), b))
    return 1


if __name__ == "__main__":
    sys.exit(main())
