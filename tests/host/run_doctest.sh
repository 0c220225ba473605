#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-2-Clause
# Runs a doctest binary and prints one PASS/FAIL line per test case
# (tests/run_all.sh protocol). Usage: run_doctest.sh PREFIX BINARY [ARGS...]
prefix=$1; bin=$2; shift 2
out=$(mktemp); trap 'rm -f "$out"' EXIT
"$bin" -r=junit "$@" >"$out" 2>&1; rc=$?
python3 - "$out" "$prefix" "$rc" <<'PY'
import sys, xml.etree.ElementTree as ET
path, prefix, rc = sys.argv[1], sys.argv[2], int(sys.argv[3])
text = open(path, errors="replace").read()
start = text.find("<?xml")
if start < 0:
    print(text); print(f"FAIL: {prefix}: no junit report (exit {rc})"); sys.exit(1)
root = ET.fromstring(text[start:])
n = 0
for tc in root.iter("testcase"):
    n += 1
    bad = [c for c in tc if c.tag in ("failure", "error")]
    name = f"{prefix}/{tc.get('name')}"
    if bad:
        msg = (bad[0].get("message") or bad[0].text or "").strip().splitlines()
        print(f"FAIL: {name}: {msg[0] if msg else ''}")
        for c in bad: print((c.text or "").strip())
    else:
        print(f"PASS: {name}")
if n == 0:
    print(f"FAIL: {prefix}: no test case ran")
PY
