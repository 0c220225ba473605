#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""The one doctest adapter of the test suites. Runs a doctest binary and prints
one suite line per leaf subcase (doctest's JUnit report):
"PASS: <prefix>/<name>" or "FAIL: <prefix>/<name> <first failure>".
A binary that crashes, prints no test case, or has a case marked
doctest::skip is a FAIL, never silence.

    doctest_lines.py [--via RUNNER] PREFIX BINARY [doctest options...]

--via runs the binary through RUNNER (a program such as qemu-i386 that
executes it where the kernel cannot).
"""
import subprocess
import sys
import xml.etree.ElementTree as ET


def run(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=600)
    except (OSError, subprocess.TimeoutExpired) as e:
        return e


def report(p, prefix, what):
    """The XML document in p's stdout, or None after printing a FAIL line."""
    if not isinstance(p, subprocess.CompletedProcess):
        print("FAIL: %s/run %s: %s" % (prefix, what, p))
        return None
    text = p.stdout
    start = text.find("<?xml")
    try:
        return ET.fromstring(text[start:] if start >= 0 else text)
    except ET.ParseError as e:
        print(text[-2000:])
        print(p.stderr[-2000:])
        print("FAIL: %s/run %s: exit status %d, unreadable report (%s)"
              % (prefix, what, p.returncode, e))
        return None


def main():
    args = sys.argv[1:]
    via = []
    if args[:1] == ["--via"]:
        via, args = [args[1]], args[2:]
    prefix, binary, extra = args[0], via + [args[1]], args[2:]
    bad = 0
    # doctest's JUnit reporter leaves skipped cases out: list them first.
    listing = report(run(binary + ["-r=xml", "-ltc", "--no-skip=true"] + extra),
                     prefix, "listing")
    if listing is None:
        return 1
    for tc in listing.iter("TestCase"):
        if tc.get("skipped") == "true":
            bad += 1
            print("FAIL: %s/%s skipped (doctest::skip hides a test)"
                  % (prefix, " ".join(tc.get("name").split())))
    p = run(binary + ["-r=junit"] + extra)
    root = report(p, prefix, "tests")
    if root is None:
        return 1
    n = 0
    for tc in root.iter("testcase"):
        n += 1
        name = "%s/%s" % (prefix, " ".join(tc.get("name").split()))
        fails = [c for c in tc if c.tag in ("failure", "error")]
        if not fails:
            print("PASS: " + name)
            continue
        bad += 1
        msg = (fails[0].get("message") or fails[0].text or "").strip().splitlines()
        print("FAIL: %s %s" % (name, msg[0] if msg else ""))
        for c in fails:
            print((c.text or "").strip())
    # doctest's JUnit report counts assertions in <testsuite tests=...>;
    # tests/run_all.sh adds these up beside its closing line.
    asserts = sum(int(s.get("tests") or 0) for s in root.iter("testsuite"))
    print("INFO: %s doctest: %d test cases, %d assertions" % (prefix, n, asserts))
    if n == 0:
        print("FAIL: %s/run no test case ran (exit status %d)" % (prefix, p.returncode))
        return 1
    if p.returncode and not bad:
        print("FAIL: %s/run exit status %d with every case passing" % (prefix, p.returncode))
        return 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
