#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Runs a doctest binary with its XML reporter and prints one suite line per
test case: "PASS: <prefix>/<name>" or "FAIL: <prefix>/<name> <first failure>".
A binary that crashes or prints no test case is a FAIL, never silence.

    doctest_lines.py PREFIX BINARY [doctest options...]
"""
import subprocess
import sys
import xml.etree.ElementTree as ET


def main():
    prefix, binary, extra = sys.argv[1], sys.argv[2], sys.argv[3:]
    try:
        p = subprocess.run([binary, "-r=xml", "--no-version=true"] + extra,
                           capture_output=True, text=True, timeout=600)
    except (OSError, subprocess.TimeoutExpired) as e:
        print("FAIL: %s/run %s" % (prefix, e))
        return 1
    try:
        root = ET.fromstring(p.stdout)
    except ET.ParseError as e:
        print(p.stdout[-2000:])
        print(p.stderr[-2000:])
        print("FAIL: %s/run exit status %d, unreadable report (%s)" % (prefix, p.returncode, e))
        return 1
    n = failed = 0
    for tc in root.iter("TestCase"):
        if tc.get("skipped") == "true":
            continue
        n += 1
        name = "%s/%s" % (prefix, " ".join(tc.get("name").split()))
        res = tc.find("OverallResultsAsserts")
        ok = res is not None and res.get("test_case_success") == "true"
        if ok:
            print("PASS: " + name)
            continue
        failed += 1
        why = "crashed" if res is None else ""
        for e in tc.iter("Expression"):
            if e.get("success") == "false":
                exp = (e.findtext("Expanded") or e.findtext("Original") or "").strip()
                why = "%s:%s %s" % (e.get("filename"), e.get("line"), exp)
                break
        for e in tc.iter("Exception"):
            why = "exception: " + (e.text or "").strip()
        print("FAIL: %s %s" % (name, why))
    if n == 0:
        print("FAIL: %s/run no test case ran (exit status %d)" % (prefix, p.returncode))
        return 1
    return 1 if failed or p.returncode else 0


if __name__ == "__main__":
    sys.exit(main())
