#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""The instructions-per-call table of tests/bench/10-sbi.sh and 11-sbi-rv32.sh:
sbi_table.py OURS.txt PEER.txt TITLE PEER-NAME, where both files hold the
bench payload's BENCH lines (name | per call | net | counter)."""
import sys


def load(path):
    rows, ctr = {}, "?"
    for line in open(path):
        if line.startswith("BENCH: "):
            name, per, net, ctr = [x.strip() for x in line[7:].split("|")]
            rows[name] = (float(per), float(net))
    return rows, ctr


ours, c1 = load(sys.argv[1])
osbi, c2 = load(sys.argv[2])
title, peer = sys.argv[3], sys.argv[4]
print("\n%s (counter: ours %s, %s %s)" % (title, c1, peer, c2))
print("%-40s %12s %12s %8s   %9s %9s" % ("call", "tsbi", peer, "ratio", "tsbi net", "OSBI net"))
for name in ours:
    o = ours[name]; s = osbi.get(name)
    if s is None:
        print("%-40s %12.0f %12s %8s   %9.0f" % (name, o[0], "-", "-", o[1])); continue
    ratio = o[0] / s[0] if s[0] else 0
    print("%-40s %12.0f %12.0f %8.2f   %9.0f %9.0f" % (name, o[0], s[0], ratio, o[1], s[1]))
