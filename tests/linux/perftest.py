#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""perf test results from the console logs of tests/linux/guest/perf-test.sh.

    perftest.py table LOG...            the Markdown table, one column per log
    perftest.py readme README LOG...    the table written into README between
                                        the perftest-table markers
    perftest.py compare NAME OURS PEER  PASS/FAIL per test for make test: no
                                        test fails on ours that passes on the
                                        peer (same QEMU, same run)
    perftest.py slow LOG SECONDS        the tests that took longer (on LOG)
    perftest.py readme-check NAME README COLUMN LOG
                                        PASS/FAIL: README's table (full run)
                                        gives each test LOG ran the result
                                        LOG has, in COLUMN (e.g. ours@10)

A log's column is named after its file: <firmware>@<qemu>.log. Results are
perf's words: Ok, FAILED!, Skip (reason); "timeout" when the guest's time
limit killed the test before it printed, "-" when the log lacks it.
tests/linux/perftest-notes.txt explains failures: lines "ID: text", ID a
test or subtest number ("4", "4.1"); a failure on ours without a note is
marked UNEXPLAINED in the table and fails the compare.
"""
import os
import re
import sys

ESC = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
# A kernel message printed in the middle of a result line (the guest script
# lowers the console log level, but an older log or an emergency may have one).
KMSG = re.compile(r"\[\s*\d+\.\d+\] [^\n]*\n")
RESULT = re.compile(r"^\s*(\d+(?:\.\d+)?): (.*?)\s*:\s*(Ok|FAILED!|Skip.*)?\s*$")
DONE = re.compile(r"^TSBI-PERFTEST n=(\d+) status=(\d+) seconds=([0-9.]+)")
NOTES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "perftest-notes.txt")


def parse(path):
    """{id: [name, result, seconds]} in the order the log has them."""
    out = {}
    with open(path, "rb") as f:
        text = ESC.sub("", f.read().decode("utf-8", "replace")).replace("\r", "")
    text = KMSG.sub("", text)
    pending = []
    listed = {}
    for line in text.splitlines():
        m = re.match(r"^perf-test-list: *(\d+)(?::(\d+))?: (.*?)\s*$", line)
        if m:
            listed[m.group(1) + ("." + m.group(2) if m.group(2) else "")] = m.group(3)
            continue
        m = DONE.match(line)
        if m:
            n, st, sec = m.group(1), int(m.group(2)), float(m.group(3))
            if n not in out:
                out[n] = ["", None, sec]
            out[n][2] = sec
            subs = [k for k in out if k.startswith(n + ".")]
            for i in ([] if subs else [n]) + subs:
                if out[i][1] is None:
                    out[i][1] = "timeout" if st in (124, 143) else f"exit {st}"
            continue
        m = RESULT.match(line)
        if m and not line.startswith("perf-test-list"):
            i, name, res = m.groups()
            out[i] = [name, res.strip() if res else None, None]
            if res is None:
                pending.append(i)
    # A test cut by the time limit printed no name: the list has it.
    for i, v in out.items():
        if not v[0]:
            v[0] = listed.get(i, "")
    # A parent without its own result is what its subtests are.
    for i in pending:
        subs = [v[1] for k, v in out.items() if k.startswith(i + ".")]
        if out[i][1] is None or out[i][1] == "":
            if not subs:
                continue
            if any(s and s.startswith("FAILED") for s in subs):
                out[i][1] = "(subtests failed)"
            elif all(s == "Ok" for s in subs):
                out[i][1] = "(subtests Ok)"
            else:
                out[i][1] = "(subtests)"
    return out


def notes():
    out = {}
    if os.path.exists(NOTES):
        for line in open(NOTES, encoding="utf-8"):
            line = line.strip()
            if line and not line.startswith("#"):
                k, _, v = line.partition(":")
                out[k.strip()] = v.strip()
    return out


def note(nt, i):
    """The note of test or subtest i (a subtest falls back to its test's)."""
    return nt.get(i) or nt.get(i.split(".")[0], "")


def key(i):
    return tuple(int(x) for x in i.split("."))


def failed(r):
    return r is not None and (r.startswith("FAILED") or r == "timeout" or r.startswith("exit")
                              or r == "(subtests failed)")


def col(path):
    return os.path.basename(path)[:-4] if path.endswith(".log") else os.path.basename(path)


def short(r):
    if r is None:
        return "-"
    if r.startswith("Skip"):
        return "Skip" + (" " + r[4:].strip() if r[4:].strip() else "")
    return {"FAILED!": "**FAILED**", "(subtests Ok)": "Ok", "(subtests failed)": "**FAILED** (a subtest)",
            "(subtests)": "see subtests"}.get(r, r)


def table(logs):
    runs = [(col(p), parse(p)) for p in logs]
    ids = sorted({i for _, r in runs for i in r}, key=key)
    nt = notes()
    ours = [k for k, (c, _) in enumerate(runs) if c.startswith("ours")]
    lines = ["| test | " + " | ".join(c for c, _ in runs) + " | s (" + runs[ours[0]][0] + ") | why it fails |"
             if ours else "| test | " + " | ".join(c for c, _ in runs) + " |"]
    lines.append("|" + "---|" * (len(runs) + (3 if ours else 1)))
    counts = {c: {} for c, _ in runs}
    for i in ids:
        name = next((r[i][0] for _, r in runs if i in r and r[i][0]), "")
        cells = []
        for c, r in runs:
            res = r.get(i, [None, None, None])[1]
            cells.append(short(res))
            if "." not in i:
                w = "ok" if res in ("Ok", "(subtests Ok)") else "timed out" if res == "timeout" else \
                    "failed" if failed(res) else "skipped" if res and res.startswith("Skip") else \
                    "not run" if res is None else "partly skipped"
                counts[c][w] = counts[c].get(w, 0) + 1
        row = f"| {i} {name.replace('|', '/')} | " + " | ".join(cells) + " |"
        if ours:
            sec = runs[ours[0]][1].get(i, [None, None, None])[2]
            anyfail = any(failed(r.get(i, [None, None])[1]) for _, r in runs)
            why = note(nt, i) if anyfail else ""
            if not why and any(failed(runs[k][1].get(i, [None, None])[1]) for k in ours):
                why = "UNEXPLAINED"
            row += f" {'' if sec is None else round(sec)} | {why} |"
        lines.append(row)
    order = ("ok", "failed", "skipped", "partly skipped", "timed out", "not run")
    summary = ["Top-level tests: " + "; ".join(
        f"{c}: " + ", ".join(f"{v[w]} {w}" for w in order if v.get(w)) for c, v in counts.items()) + "."]
    # The verdict the suite applies, over the full list: per QEMU, the tests
    # Ok on a peer and not Ok on ours.
    okv = ("Ok", "(subtests Ok)")
    for c, r in runs:
        if not c.startswith("ours@"):
            continue
        q = c.split("@", 1)[1]
        for pc, pr in runs:
            if pc.startswith("ours@") or pc.split("@", 1)[-1] != q:
                continue
            worse = [i for i in ids if pr.get(i, [None, None])[1] in okv
                     and r.get(i, [None, None])[1] not in okv]
            summary.append(f"Ok on {pc}, not on {c}: " + (", ".join(
                f"{i} ({short(r.get(i, [None, None])[1])}; "
                + ("see its note" if note(nt, i) else "UNEXPLAINED") + ")" for i in worse)
                if worse else "none") + ".")
    return summary + [""] + lines


def main():
    cmd = sys.argv[1] if len(sys.argv) > 1 else ""
    if cmd == "table":
        print("\n".join(table(sys.argv[2:])))
    elif cmd == "readme":
        readme, logs = sys.argv[2], sys.argv[3:]
        text = open(readme, encoding="utf-8").read()
        b, e = "<!-- perftest-table begin -->", "<!-- perftest-table end -->"
        if b not in text or e not in text:
            sys.exit(f"{readme}: no {b} ... {e} markers")
        body = "\n".join(["", "Generated by `tests/linux/perftest.py readme tests/linux/README.md "
                          + " ".join(logs) + "`.", ""] + table(logs) + [""])
        text = text[:text.index(b) + len(b)] + body + text[text.index(e):]
        open(readme, "w", encoding="utf-8").write(text)
    elif cmd == "compare":
        name, ours, peer = sys.argv[2], parse(sys.argv[3]), parse(sys.argv[4])
        nt = notes()
        if not ours:
            print(f"FAIL: {name}: perf test ran [no result line in {sys.argv[3]}]")
            return
        if not peer:
            # No peer can fail the run: ours is then judged alone (every
            # failure needs its note).
            print(f"PEER: {name}: the peer ran perf test fail no result line in {sys.argv[4]}")
        for i in sorted(set(ours) | set(peer), key=key):
            o = ours.get(i, [None, None])[1]
            p = peer.get(i, [None, None])[1]
            nm = (ours.get(i) or peer.get(i))[0]
            t = f"{name}: perf test {i} {nm}: ours {short(o)}, peer {short(p)}"
            if o is None:
                print(f"FAIL: {t} [no result on ours]")
            elif p in ("Ok", "(subtests Ok)") and o not in ("Ok", "(subtests Ok)"):
                print(f"FAIL: {t} [passes on the peer, not on ours]")
            elif failed(o) and not note(nt, i):
                print(f"FAIL: {t} [fails on both, and tests/linux/perftest-notes.txt does not say why]")
            else:
                print(f"PASS: {t}")
    elif cmd == "readme-check":
        name, readme, column, run = sys.argv[2], sys.argv[3], sys.argv[4], parse(sys.argv[5])
        text = open(readme, encoding="utf-8").read()
        b, e = "<!-- perftest-table begin -->", "<!-- perftest-table end -->"
        rows = [[c.strip() for c in line.strip().strip("|").split("|")]
                for line in text[text.index(b):text.index(e)].splitlines() if line.startswith("| ")]
        what = f"{name}: {readme}'s perf test table gives this run's results in column {column}"
        if not rows or column not in rows[0]:
            print(f"FAIL: {what} [no table, or no column {column}]")
            return
        k = rows[0].index(column)
        cells = {r[0].split(" ", 1)[0]: r[k] for r in rows[1:] if len(r) > k}
        bad = [f"{i}: README {cells.get(i, 'no row')}, this run {short(v[1])}"
               for i, v in sorted(run.items(), key=lambda x: key(x[0])) if cells.get(i) != short(v[1])]
        if not run:
            print(f"FAIL: {what} [no result line in {sys.argv[5]}]")
        elif bad:
            print(f"FAIL: {what} [{'; '.join(bad)}]")
        else:
            print(f"PASS: {what} ({len(run)} tests and subtests)")
    elif cmd == "slow":
        lim = float(sys.argv[3])
        for i, (n, r, s) in parse(sys.argv[2]).items():
            if s is not None and s > lim:
                print(f"{i}\t{s:.0f}\t{r}\t{n}")
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
