#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""The reports of a test run (tests/run_all.sh), from the suites' logs.

    report.py --peers PEERS.md --junit JUNIT.xml LOG...

Prints the number of distinct checks among the PASS/FAIL lines; writes the
peer comparison table and a JUnit XML file (one testsuite per suite log, one
testcase per PASS/FAIL line, for CI tools that read JUnit).

Distinct checks: a suite line names one case in one configuration
("ours-smp4/hsm/start/ok", "linux dynamic smp4: guest sees CPUs 0-3 online",
"pmu-host32/counter ..."). The same case on other hart counts, CPUs,
machines, images, QEMUs or XLENs is one distinct check: the leading
configuration tag of a "<tag>/<payload>/<case>" name, the configuration
words below, and any measured value in a trailing "(...)" or "[...]" are
taken out of each name, and the names that remain are counted.

Peers: "PEER: <configuration>/<case> pass|fail|known|crash [details]" lines,
counted per suite and peer configuration, then each failure. Peers are
compared, never counted in the run's pass/fail line.
"""
import argparse
import os
import re
import sys
from collections import defaultdict
from xml.sax.saxutils import escape, quoteattr

CONFIG = re.compile(
    r"(?<![A-Za-z0-9_])(?:rv32|rv64|qemu10|qemu7\.2|ours|jump|dynamic|smp\d+|sscofpmf|icount|"
    r"nosstc|noh|5g|core-only|noctr|ctr|fwft|default|\d+ harts?|\d+-harts?|host32|0-\d+)"
    r"(?![A-Za-z0-9_])")
VALUE = re.compile(r"\s*[(\[][^()\[\]]*[)\]]\s*$")
RESULT = re.compile(r"^(PASS|FAIL): (\S+(?: \S+)*?)(?: (\[.*|\(.*))?$")
PEER = re.compile(r"^PEER: (\S+) (pass|fail|known|crash)\b ?(.*)$")


def normal(name):
    name = VALUE.sub("", name.strip())
    # "<configuration>/<payload>/<case>" (tests/payloads/run.py and the
    # suites built like it): the first part is the configuration's tag.
    head, sep, rest = name.partition("/")
    if sep and " " not in head and "/" in rest:
        name = rest
    name = CONFIG.sub("", name)
    return re.sub(r"[-/ :]+", lambda m: m.group(0)[0], name).strip("-/ :")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--peers", required=True)
    ap.add_argument("--junit", required=True)
    ap.add_argument("logs", nargs="*")
    args = ap.parse_args()
    distinct = set()
    peers = defaultdict(lambda: defaultdict(int))
    peer_fails = []
    suites = []
    for path in args.logs:
        suite = os.path.splitext(os.path.basename(path))[0]
        cases = []
        with open(path, errors="replace") as f:
            for raw in f:
                line = raw.rstrip("\n")
                if line.startswith(("PASS: ", "FAIL: ")):
                    name = line[6:]
                    distinct.add(normal(name))
                    cases.append((line[:4] == "PASS", name))
                    continue
                m = PEER.match(line)
                if m:
                    config = m.group(1).split("/", 1)[0]
                    peers[(suite, config)][m.group(2)] += 1
                    if m.group(2) in ("fail", "crash"):
                        peer_fails.append("%s: %s %s" % (suite, m.group(1), m.group(3)))
        suites.append((suite, path, cases))
    print(len(distinct))

    with open(args.peers, "w") as out:
        out.write("# Peer firmware in this run (compared, not counted)\n\n")
        if not peers:
            out.write("No peer ran.\n")
        else:
            out.write("| suite | peer configuration | pass | known difference | fail | runner crash |\n")
            out.write("|---|---|---|---|---|---|\n")
            for (suite, config), n in sorted(peers.items()):
                out.write("| %s | %s | %d | %d | %d | %d |\n" % (suite, config, n["pass"], n["known"],
                                                                n["fail"], n["crash"]))
            if peer_fails:
                out.write("\nFailures not listed as known differences (the peer's, not ours):\n\n")
                out.writelines("- %s\n" % f for f in peer_fails)

    with open(args.junit, "w") as out:
        out.write('<?xml version="1.0" encoding="UTF-8"?>\n<testsuites>\n')
        for suite, path, cases in suites:
            nfail = sum(1 for ok, _ in cases if not ok)
            out.write("  <testsuite name=%s tests=\"%d\" failures=\"%d\">\n" %
                      (quoteattr(suite), len(cases), nfail))
            for ok, name in cases:
                if ok:
                    out.write("    <testcase classname=%s name=%s/>\n" % (quoteattr(suite), quoteattr(name)))
                else:
                    out.write("    <testcase classname=%s name=%s><failure message=%s>see %s</failure></testcase>\n"
                              % (quoteattr(suite), quoteattr(name), quoteattr(name), escape(path)))
            out.write("  </testsuite>\n")
        out.write("</testsuites>\n")


if __name__ == "__main__":
    sys.exit(main())
