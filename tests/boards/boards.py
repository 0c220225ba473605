#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""The board table: runs the board probe (tests/boards/probe.cpp, the generic
image's cold-boot initialisation on the host) against every board device tree
of the pinned Debian kernel package, judges each board, and compares with the
recorded results (tests/boards/expected.txt).

    boards.py [--probe BIN] [--dtbs DIR] [--write]

Prints "PASS: boards/<board>/<property>" per property, "FAIL: ... (expected
X, got Y)" when a property that worked no longer does or a board's verdict
got worse. An improvement passes and says so; --write records the new
results and regenerates the table in platform/README.md (between the
"board-table" markers).
"""
import argparse
import os
import signal
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
EXPECTED = os.path.join(ROOT, "tests/boards/expected.txt")
README = os.path.join(ROOT, "platform/README.md")
BEGIN, END = "<!-- board-table: begin (tests/boards/boards.py --write) -->", "<!-- board-table: end -->"
# The Kendryte K210 has no S-mode (no MMU Linux uses): out of scope.
EXCLUDED_VENDORS = {"canaan"}
PROPS = ["console", "ipi-timer", "pmp", "poweroff", "reboot", "pmu", "quirks", "verdict"]
VERDICT_RANK = {"boots": 2, "boots-missing": 1, "cannot-boot": 0}


def probe(binary, dtb):
    """The probe's "key value" lines as a dict (lists for repeated keys)."""
    try:
        p = subprocess.run([binary, dtb], capture_output=True, text=True, timeout=600)
        out, rc = p.stdout, p.returncode
    except subprocess.TimeoutExpired as e:
        out, rc = (e.stdout or b"").decode(), "timeout"
    d = {}
    for line in out.splitlines():
        k, _, v = line.partition(" ")
        d.setdefault(k, []).append(v)
    if "end" not in d:
        last = out.splitlines()[-1] if out.strip() else "no output"
        d.setdefault("fatal", []).append("probe stopped (%s): %s" % (
            "hangs" if rc in ("timeout", -signal.SIGPROF) else "exit %s" % rc, last))
    return d


def one(d, k, dflt="-"):
    return d.get(k, [dflt])[0]


def judge(d):
    """Per property (status, text); status ok, missing or n/a."""
    r = {}
    con = one(d, "console")
    node = one(d, "console-node").split(" ")
    if con.startswith("ok"):
        r["console"] = ("ok", "%s (%s)" % (node[0], node[1] if len(node) > 1 else "-"))
    elif node[0] == "-":
        r["console"] = ("n/a", "no /chosen/stdout-path")
    else:
        r["console"] = ("missing", "%s: %s" % (node[1] if len(node) > 1 else "-",
                                               "no driver" if con == "none" else con))
    ipi, timer = one(d, "ipi", ""), one(d, "timer", "")
    full = lambda s: s and s.split("/")[0] == s.split("/")[1]
    if full(ipi) and full(timer):
        r["ipi-timer"] = ("ok", "%s, time from %s" % (one(d, "mmode-only"), one(d, "time")))
    else:
        why = one(d, "ipi-timer-problem", "no CLINT/ACLINT driver matched")
        r["ipi-timer"] = ("missing", "ipi %s timer %s: %s" % (ipi or "-", timer or "-", why))
    unprot, takes = one(d, "pmp-unprotected"), d.get("pmp-takes", [])
    if "ipi" not in d:
        r["pmp"] = ("n/a", "no CLINT/ACLINT")
    elif takes:
        r["pmp"] = ("missing", "the M-mode-only regions take " + ",".join(takes))
    elif unprot != "-":
        r["pmp"] = ("missing", "cannot protect " + unprot)
    else:
        r["pmp"] = ("ok", "CLINT/ACLINT closed to S-mode")
    for kind in ("poweroff", "reboot"):
        have, dt = one(d, kind, "none"), one(d, "dt-" + kind)
        if have.startswith("failed"):
            r[kind] = ("missing", have)
        elif have != "none":
            r[kind] = ("ok", have)
        elif dt == "-":
            r[kind] = ("n/a", "none in the DT")
        else:
            r[kind] = ("missing", "no driver: " + dt)
    pmu = one(d, "pmu", "none").split()
    if pmu[0] == "none":
        r["pmu"] = ("n/a", "no riscv,pmu node")
    else:
        f = dict(zip(pmu[::2], pmu[1::2]))
        text = "%s ranges, %s selectors, %s raw" % (f["ranges"], f["selectors"], f["raw"])
        if f["ignored"] != "0":
            r["pmu"] = ("missing", text + ", %s dropped" % f["ignored"])
        else:
            r["pmu"] = ("ok", text)
    need = [q for q in one(d, "quirks-needed").split(",") if q != "-"]
    have = [q for q in one(d, "quirks-provided").split(",") if q != "-"]
    lack = [q for q in need if q not in have]
    if not need:
        r["quirks"] = ("n/a", "none needed")
    elif lack:
        r["quirks"] = ("missing", "lacks " + ",".join(lack))
    else:
        r["quirks"] = ("ok", ",".join(need))
    fatal = d.get("fatal", [])
    missing = [p for p in PROPS[:-1] if r[p][0] == "missing"]
    if fatal:
        r["verdict"] = ("cannot-boot", fatal[0])
    elif missing:
        r["verdict"] = ("boots-missing", ",".join(missing))
    else:
        r["verdict"] = ("boots", "-")
    notes = [a for a in d.get("added", [])]
    notes += ["unmapped " + u for u in d.get("unmapped", [])]
    r["notes"] = ("", "; ".join(notes) or "-")
    return r


def load_expected():
    exp = {}
    if os.path.exists(EXPECTED):
        for line in open(EXPECTED):
            if line.startswith("#") or not line.strip():
                continue
            board, prop, status, text = (line.rstrip("\n").split(" ", 3) + [""])[:4]
            exp[(board, prop)] = (status, text)
    return exp


def worse(prop, old, new):
    if prop == "verdict":
        return VERDICT_RANK[new] < VERDICT_RANK[old]
    return old == "ok" and new != "ok"


def cell(s):
    return s.replace("|", "\\|")


def table(results):
    counts = {v: sum(1 for r in results.values() if r["verdict"][0] == v) for v in VERDICT_RANK}
    out = ["%d boards (the Kendryte K210 boards excluded): %d boot, %d boot with something "
           "missing, %d cannot boot." % (len(results), counts["boots"], counts["boots-missing"],
                                          counts["cannot-boot"]), "",
           "| board | verdict | console | IPI/timer (M-mode-only regions) | PMP | power-off | reboot "
           "| PMU event map | quirks | notes |", "|---|---|---|---|---|---|---|---|---|---|"]
    for b in sorted(results):
        r = results[b]
        v = r["verdict"][0] + ("" if r["verdict"][1] == "-" else ": " + r["verdict"][1])
        row = [b, v] + ["%s%s" % ("" if r[p][0] == "ok" else r[p][0] + ": ", r[p][1])
                        for p in PROPS[:-1]] + [r["notes"][1]]
        out.append("| " + " | ".join(cell(c) for c in row) + " |")
    return "\n".join(out) + "\n"


def write(results):
    with open(EXPECTED, "w") as f:
        f.write("# SPDX-License-Identifier: BSD-2-Clause\n# Written by tests/boards/boards.py "
                "--write: <board> <property> <status> <detail>.\n")
        for b in sorted(results):
            for p in PROPS:
                f.write("%s %s %s %s\n" % (b, p, results[b][p][0], results[b][p][1]))
    text = open(README).read()
    i, j = text.find(BEGIN), text.find(END)
    if i < 0 or j < 0:
        sys.exit("boards.py: %s has no %s ... %s section" % (README, BEGIN, END))
    text = text[:i + len(BEGIN)] + "\n" + table(results) + text[j:]
    with open(README, "w") as f:
        f.write(text)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--probe", default=os.path.join(ROOT, "build/host/board_probe"))
    ap.add_argument("--dtbs", required=True)
    ap.add_argument("--write", action="store_true")
    a = ap.parse_args()
    dtbs = sorted(os.path.join(dp, f) for dp, _, fs in os.walk(a.dtbs) for f in fs
                  if f.endswith(".dtb") and os.path.basename(dp) not in EXCLUDED_VENDORS)
    if not dtbs:
        print("FAIL: boards/dtbs (no device tree under %s)" % a.dtbs)
        return 1
    results = {}
    for dtb in dtbs:
        results[os.path.basename(dtb)[:-4]] = judge(probe(a.probe, dtb))
    exp = load_expected()
    rc = 0
    for b in sorted(results):
        for p in PROPS:
            st, text = results[b][p]
            old = exp.get((b, p))
            if old is None:
                print("PASS: boards/%s/%s (new: %s %s)" % (b, p, st, text))
            elif worse(p, old[0], st):
                print("FAIL: boards/%s/%s (expected %s %s, got %s %s)" % (b, p, old[0], old[1], st, text))
                rc = 1
            elif old[0] != st:
                print("PASS: boards/%s/%s (improved: %s, was %s; record with --write)" % (b, p, st, old[0]))
            else:
                print("PASS: boards/%s/%s" % (b, p))
    for b, p in sorted(exp):
        if b not in results and p == "verdict":
            print("FAIL: boards/%s/verdict (expected %s, got no device tree)" % (b, exp[(b, p)][0]))
            rc = 1
    counts = {v: sum(1 for r in results.values() if r["verdict"][0] == v) for v in VERDICT_RANK}
    print("boards: %d boot, %d boot with something missing, %d cannot boot" % (
        counts["boots"], counts["boots-missing"], counts["cannot-boot"]))
    if a.write:
        write(results)
    return rc


if __name__ == "__main__":
    sys.exit(main())
