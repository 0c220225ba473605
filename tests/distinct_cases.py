#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Counts the distinct checks among the PASS/FAIL lines on stdin.

A suite line names one case in one configuration ("ours-smp4/hsm/start/ok",
"linux dynamic smp4: guest sees CPUs 0-3 online", "pmu-host32/counter ...").
The same case run on other hart counts, CPUs, images, QEMUs or XLENs is one
distinct check: this takes those configuration words out of each name, and
any measured value in a trailing "(...)", and prints how many names remain.
"""
import re
import sys

CONFIG = re.compile(
    r"(?<![A-Za-z0-9_])(?:rv32|rv64|qemu10|qemu7\.2|ours|jump|dynamic|smp\d+|sscofpmf|icount|"
    r"nosstc|noh|5g|core-only|noctr|ctr|fwft|default|\d+ harts?|\d+-harts?|host32|0-\d+)"
    r"(?![A-Za-z0-9_])")
VALUE = re.compile(r"\s*[(\[][^()\[\]]*[)\]]\s*$")
LINE = re.compile(r"^(?:PASS|FAIL): (.*)$")


def normal(name):
    name = VALUE.sub("", name.strip())
    name = CONFIG.sub("", name)
    return re.sub(r"[-/ :]+", lambda m: m.group(0)[0], name).strip("-/ :")


def main():
    names = set()
    for line in sys.stdin:
        m = LINE.match(line.rstrip("\n"))
        if m:
            names.add(normal(m.group(1)))
    print(len(names))


if __name__ == "__main__":
    main()
