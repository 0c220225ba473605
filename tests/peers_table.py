#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""The peer comparison table of a test run (tests/run_all.sh): every
"PEER: <configuration>/<case> pass|fail|known [details]" line of the given
suite logs, counted per suite and peer configuration, then each failure.
Peers are compared, never counted in the run's pass/fail line."""
import os
import re
import sys
from collections import defaultdict

LINE = re.compile(r"^PEER: (\S+) (pass|fail|known|crash)\b ?(.*)$")


def main():
    rows = defaultdict(lambda: defaultdict(int))
    fails = []
    for path in sys.argv[1:]:
        suite = os.path.splitext(os.path.basename(path))[0]
        with open(path, errors="replace") as f:
            for line in f:
                m = LINE.match(line.rstrip("\n"))
                if not m:
                    continue
                config = m.group(1).split("/", 1)[0]
                rows[(suite, config)][m.group(2)] += 1
                if m.group(2) in ("fail", "crash"):
                    fails.append("%s: %s %s" % (suite, m.group(1), m.group(3)))
    print("# Peer firmware in this run (compared, not counted)\n")
    if not rows:
        print("No peer ran.")
        return
    print("| suite | peer configuration | pass | known difference | fail | runner crash |")
    print("|---|---|---|---|---|---|")
    for (suite, config), n in sorted(rows.items()):
        print("| %s | %s | %d | %d | %d | %d |" % (suite, config, n["pass"], n["known"], n["fail"],
                                                  n["crash"]))
    if fails:
        print("\nFailures not listed as known differences (the peer's, not ours):\n")
        for f in fails:
            print("- " + f)


if __name__ == "__main__":
    main()
