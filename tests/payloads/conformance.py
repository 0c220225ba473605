#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""SBI conformance report for any firmware (make conformance, issue 19).

    conformance.py --fw IMAGE [--name NAME] [--qemu QEMU] [--smp N] [--cpu PROPS]
                   [--strict-tsbi] [--only-smp] [--no-variants] [--timeout S]
                   [--out DIR] [PAYLOAD...]
    conformance.py --compare DIR... > table.md

Runs every S-mode payload (tests/payloads, default: all but the fuzzer,
benchmarks and trace) through run.py on 1 and N harts of QEMU virt with the
firmware IMAGE, in conformance mode (bootarg conformance=1: the payloads
accept every answer the spec allows and skip extensions the firmware does
not probe as present) unless --strict-tsbi (this project's own exact
expectations). Every check names a spec clause (lib/payload.hpp clause(),
conformance/clauses.txt); the report groups the checks per extension and
function and writes, under DIR (default build/conformance/NAME):
  report.md     Markdown: totals, per function passed/failed/n.a./info,
                every failure with its clause (spec file, section, sentence)
                and expected vs returned, error-case coverage, information
  junit.xml     one testcase per check (JUnit XML for CI)
  summary.json  the counts (used by --compare and tests/suites/22-conformance.sh)
  results.jsonl every check as run.py recorded it; run-smpN.log its output
A firmware that hangs, resets or traps the payload gets that recorded
against the clause that was running (CHECK-BEGIN lines), and the next
payload runs. Exit status 0 when the report was written (failures of the
firmware are in the report), 2 when the run itself could not be done.
"""
import argparse
import collections
import datetime
import hashlib
import json
import os
import re
import subprocess
import sys
from xml.sax.saxutils import escape, quoteattr

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CLAUSES = os.path.join(HERE, "conformance", "clauses.txt")
SPEC_ERRORS = os.path.join(HERE, "conformance", "spec-errors.txt")
# Payloads that are not conformance checks: the fuzzer checks this
# firmware's documented choices, bench measures, trace is tsbi's own
# extension, stall tests the runner (it hangs on purpose), dtdump writes the
# tree it was handed to the host by semihosting (suite 52).
EXCLUDE = {"fuzz", "bench", "trace", "trace_bench", "stall", "dtdump"}
NO_CLAUSE = "(no clause)"
# Extra runs that reach error cases the default machine cannot: RFENCE's
# hfence functions answer NOT_SUPPORTED on harts without H. (tag suffix,
# -cpu properties, payloads); skipped when --cpu is given.
# The PMU payload once more with Sscofpmf (overflow, the snapshot's
# overflow bitmap), under -icount: its overflow cases wait a bounded time
# for an interrupt due a few cycles after a start, which only instruction
# counting makes independent of the host's load (firmware/pmu/README.md).
# (tag suffix, -cpu properties, payloads, extra run.py options)
VARIANTS = [("noh", "h=false", ["rfence"], []),
            ("sscofpmf", "sscofpmf=true", [os.path.join(ROOT, "build", "pmu", "pmu.elf")], ["--icount"])]
# Error-table rows no payload can provoke on purpose: an unspecified failure.
UNPROVOKABLE = {"SBI_ERR_FAILED"}
STATUSES = ("pass", "fail", "na", "info")


def load_clauses(path=CLAUSES):
    """id -> {kind, file, section, text}. Format per line:
    id | kind | spec file | section | sentence or table row."""
    out = {}
    with open(path, encoding="utf-8") as f:
        for n, raw in enumerate(f, 1):
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            parts = [p.strip() for p in line.split(" | ", 4)]
            if len(parts) != 5 or parts[1] not in ("spec", "impl"):
                raise ValueError("%s:%d: want 'id | spec|impl | file | section | text'" % (path, n))
            cid, kind, spec, section, text = parts
            if cid in out:
                raise ValueError("%s:%d: clause %s listed twice" % (path, n, cid))
            out[cid] = {"kind": kind, "file": spec, "section": section, "text": text}
    return out


def load_spec_errors(path=SPEC_ERRORS):
    """[(file, section, code, description)] of every error-table row."""
    rows = []
    with open(path, encoding="utf-8") as f:
        for raw in f:
            if raw.startswith("#") or not raw.strip():
                continue
            rows.append(tuple(p.strip() for p in raw.split(" | ", 3)))
    return rows


def error_row_of(clause):
    """(file, section, code) when the clause is an error-table row."""
    m = re.match(r"(SBI_ERR_[A-Z_]+)\b", clause["text"])
    return (clause["file"], clause["section"], m.group(1)) if m else None


# The PMU extension's payloads live with the PMU code (tests/pmu/payloads,
# built by `make pmu-payloads` into build/pmu); pmu_bench only measures.
PMU_PAYLOADS = ("pmu", "pmu_smp")


def default_payloads():
    """Every payload the source tree has (tests/payloads/<name>.cpp, and
    the PMU payloads as build/pmu/<name>.elf), not whatever else lies in
    build/payloads."""
    d = os.path.join(ROOT, "tests", "payloads")
    names = sorted(os.path.splitext(n)[0] for n in os.listdir(d) if n.endswith(".cpp"))
    return [n for n in names if n not in EXCLUDE] + [
        os.path.join(ROOT, "build", "pmu", n + ".elf") for n in PMU_PAYLOADS]


def resolve_fw(fw):
    """An image path, or ours / opensbi-1.1 / opensbi-1.6."""
    if fw == "ours":
        return os.path.join(ROOT, "build/fw/tsbi_dynamic.bin")
    m = re.fullmatch(r"opensbi-(1\.1|1\.6)", fw)
    if m:
        return subprocess.run([os.path.join(ROOT, "scripts/opensbi.sh"), "path", m.group(1)],
                              check=True, capture_output=True, text=True).stdout.strip()
    return fw


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def hart_counts(args):
    return [args.smp] if args.only_smp else sorted({1, args.smp})


def run(args, fw, out):
    """Runs the payloads on every hart count; returns the records."""
    results = os.path.join(out, "results.jsonl")
    if os.path.exists(results):
        os.remove(results)
    payloads = args.payloads or default_payloads()
    runs = [("smp%d" % smp, smp, args.cpu, payloads, []) for smp in hart_counts(args)]
    if not args.cpu and not args.no_variants:
        runs += [("%s-smp%d" % (v, args.smp), args.smp, cpu, [p for p in ps if p in payloads], extra)
                 for v, cpu, ps, extra in VARIANTS]
    for label, smp, cpu, pls, extra in runs:
        if not pls:
            continue
        log = os.path.join(out, "console-%s.log" % label)
        if os.path.exists(log):
            os.remove(log)
        cmd = [sys.executable, os.path.join(HERE, "run.py"), "--fw", fw, "--smp", str(smp),
               "--tag", "%s-%s" % (args.name, label), "--results", results,
               "--timeout", str(args.timeout), "--log", log]
        if args.qemu:
            cmd += ["--qemu", args.qemu]
        if cpu:
            cmd += ["--cpu", cpu]
        cmd += extra
        if not args.strict_tsbi:
            cmd.append("--conformance")
        cmd += pls
        print("conformance: %s %s%s: %s" % (args.name, label, " -cpu " + cpu if cpu else "",
                                             " ".join(pls)), file=sys.stderr)
        with open(os.path.join(out, "run-%s.log" % label), "w") as f:
            p = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT)
        if p.returncode > 1:
            print("conformance: run.py exited %d (see %s)" % (p.returncode, f.name),
                  file=sys.stderr)
            return None
    with open(results) as f:
        return [json.loads(line) for line in f]


def classify(rec, clauses, strict):
    """(status, group extension, group function, clause id or None)."""
    cid = rec.get("clause")
    status = rec["status"]
    payload = rec["case"].split("/", 1)[0]
    if cid is None:
        if rec.get("origin") == "runner" and status == "pass":
            return status, "harness", payload, None
        if status == "na":
            return status, payload, "(not present)", None
        return status, payload, NO_CLAUSE, None
    parts = cid.split("/")
    ext, func = parts[0], parts[1] if len(parts) > 1 else "?"
    c = clauses.get(cid)
    if status == "fail" and c and c["kind"] == "impl" and not strict:
        status = "info"
    return status, ext, func, cid


def build_report(args, fw, records, clauses, spec_errors):
    groups = collections.OrderedDict()  # (ext, func) -> Counter
    failures, infos, unknown = [], [], set()
    checked_clauses = set()
    totals = collections.Counter()
    payload_lines = collections.Counter()
    dups = collections.Counter()
    for rec in records:
        if rec["status"] == "dup":
            dups[rec["dup_of"]] += 1
            continue
        status, ext, func, cid = classify(rec, clauses, args.strict_tsbi)
        if rec.get("origin") != "runner":
            payload_lines[rec["status"]] += 1
        if cid and cid not in clauses:
            unknown.add(cid)
        groups.setdefault((ext, func), collections.Counter())[status] += 1
        totals[status] += 1
        if cid and status in ("pass", "fail"):
            checked_clauses.add(cid)
        if cid is None and rec.get("origin") != "runner" and status in ("pass", "fail"):
            totals["no_clause"] += 1
        entry = dict(rec, status=status, clause=cid)
        if status == "fail":
            failures.append(entry)
        elif status == "info":
            infos.append(entry)
    # Error-case coverage: rows of the spec's error tables with a clause
    # that had at least one check in this run.
    covered_rows = {error_row_of(clauses[c]) for c in checked_clauses if c in clauses}
    rows = []
    for spec, section, code, desc in spec_errors:
        rows.append({"file": spec, "section": section, "code": code, "desc": desc,
                     "covered": (spec, section, code) in covered_rows,
                     "provokable": code not in UNPROVOKABLE})
    summary = {
        "name": args.name, "firmware": fw, "sha256": sha256(fw),
        "mode": "strict-tsbi" if args.strict_tsbi else "conformance",
        "smp": hart_counts(args), "cpu": args.cpu or "",
        "qemu": args.qemu or os.environ.get("QEMU") or "qemu-system-riscv64",
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "totals": {k: totals[k] for k in STATUSES + ("no_clause",)},
        "payload_lines": dict(payload_lines),
        # Results of a payload's rerun (after a hang or reset) that repeat a
        # case of the first run: the first result stands.
        "duplicates": dict(dups),
        "groups": {"%s/%s" % k: {s: v[s] for s in STATUSES} for k, v in groups.items()},
        "unknown_clauses": sorted(unknown),
        "error_cases": {"listed": len(rows), "provokable": sum(r["provokable"] for r in rows),
                        "covered": sum(r["covered"] for r in rows)},
        "error_cases_per_file": {
            f: {"listed": sum(r["file"] == f for r in rows),
                "provokable": sum(r["file"] == f and r["provokable"] for r in rows),
                "covered": sum(r["file"] == f and r["covered"] for r in rows)}
            for f in dict.fromkeys(r["file"] for r in rows)},
        "failures": [{"case": f["case"], "tag": f["tag"], "clause": f["clause"],
                      "details": f["details"]} for f in failures],
    }
    return summary, groups, failures, infos, rows


def clause_ref(cid, clauses):
    c = clauses.get(cid) if cid else None
    if not c:
        return "%s (not in clauses.txt)" % cid if cid else NO_CLAUSE
    return "%s, %s: \"%s\"" % (c["file"], c["section"], c["text"])


def md_escape(s):
    return str(s).replace("|", "\\|").replace("\n", " ")


def write_markdown(path, summary, groups, failures, infos, rows, clauses):
    t = summary["totals"]
    L = []
    L.append("# SBI conformance: %s\n" % summary["name"])
    L.append("- firmware: `%s` (SHA-256 `%s`)" % (summary["firmware"], summary["sha256"][:16]))
    L.append("- mode: %s; harts: %s; QEMU: `%s`%s; %s" % (
        summary["mode"], ", ".join(map(str, summary["smp"])), summary["qemu"],
        "; -cpu " + summary["cpu"] if summary["cpu"] else "", summary["date"]))
    L.append("- checks: **%d passed, %d failed**, %d not applicable, %d information; "
             "%d without a clause" % (t["pass"], t["fail"], t["na"], t["info"], t["no_clause"]))
    ec = summary["error_cases"]
    L.append("- error cases of the spec's function tables covered: %d of %d listed "
             "(%d of them provokable: all but SBI_ERR_FAILED)" %
             (ec["covered"], ec["listed"], ec["provokable"]))
    if summary["unknown_clauses"]:
        L.append("- clauses missing from clauses.txt: %s" % ", ".join(summary["unknown_clauses"]))
    L.append("\n## Per extension and function\n")
    L.append("| extension | function | passed | failed | n/a | info |")
    L.append("|---|---|---:|---:|---:|---:|")
    for (ext, func), c in sorted(groups.items()):
        L.append("| %s | %s | %d | %s | %d | %d |" % (ext, func, c["pass"],
                                                    "**%d**" % c["fail"] if c["fail"] else "0",
                                                    c["na"], c["info"]))
    L.append("\n## Failures\n")
    if not failures:
        L.append("None.")
    for f in failures:
        L.append("- `%s` (%s): %s  \n  clause `%s`: %s" % (
            f["case"], f["tag"], md_escape(f["details"]),
            f["clause"] or NO_CLAUSE, md_escape(clause_ref(f["clause"], clauses))))
    L.append("\n## Error cases listed by the spec\n")
    L.append("Rows of the error tables of the `Function:` sections "
             "(conformance/spec-errors.txt); covered = a check of this run names the row.\n")
    by_file = collections.OrderedDict()
    for r in rows:
        by_file.setdefault(r["file"], []).append(r)
    L.append("| spec file | covered / provokable / listed | provokable, not covered |")
    L.append("|---|---:|---|")
    for spec, rs in by_file.items():
        missing = ["%s %s" % (re.sub(r"^Function: | \(FID #\d+\)$", "", r["section"]),
                              r["code"].replace("SBI_ERR_", ""))
                   for r in rs if not r["covered"] and r["provokable"]]
        L.append("| %s | %d / %d / %d | %s |" % (
            spec, sum(r["covered"] for r in rs), sum(r["provokable"] for r in rs), len(rs),
            md_escape("; ".join(missing)) or "-"))
    L.append("\n## Information (implementation-specific)\n")
    seen = set()
    for i in infos:
        key = (i["case"], i["details"])
        if key in seen:
            continue
        seen.add(key)
        L.append("- `%s` (%s): %s%s" % (i["case"], i["tag"], md_escape(i["details"]),
                                        " [%s]" % i["clause"] if i["clause"] else ""))
    with open(path, "w") as f:
        f.write("\n".join(L) + "\n")


def write_junit(path, summary, records, clauses, strict):
    suites = collections.OrderedDict()
    for rec in records:
        if rec["status"] == "dup":
            continue
        status, ext, func, cid = classify(rec, clauses, strict)
        suites.setdefault("%s.%s" % (ext, func), []).append((status, rec, cid))
    out = ['<?xml version="1.0" encoding="UTF-8"?>',
           '<testsuites name=%s tests="%d" failures="%d" skipped="%d">' % (
               quoteattr("sbi-conformance " + summary["name"]),
               sum(r["status"] != "dup" for r in records),
               summary["totals"]["fail"], summary["totals"]["na"] + summary["totals"]["info"])]
    for name, cases in suites.items():
        out.append('  <testsuite name=%s tests="%d" failures="%d" skipped="%d">' % (
            quoteattr(name), len(cases), sum(s == "fail" for s, _, _ in cases),
            sum(s in ("na", "info") for s, _, _ in cases)))
        for status, rec, cid in cases:
            tc = '    <testcase classname=%s name=%s' % (
                quoteattr(name), quoteattr("%s@%s" % (rec["case"], rec["tag"])))
            ref = clause_ref(cid, clauses)
            if status == "pass":
                out.append(tc + "/>")
            elif status == "fail":
                out.append(tc + ">")
                out.append('      <failure message=%s>%s</failure>' % (
                    quoteattr(rec["details"]), escape("clause: %s" % ref)))
                out.append("    </testcase>")
            else:
                out.append(tc + ">")
                out.append('      <skipped message=%s/>' % quoteattr(
                    "%s: %s" % ("not applicable" if status == "na" else "information",
                                rec["details"])))
                out.append("    </testcase>")
        out.append("  </testsuite>")
    out.append("</testsuites>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")


def compare(dirs):
    """Side-by-side table of several reports (README)."""
    sums = []
    for d in dirs:
        with open(os.path.join(d, "summary.json")) as f:
            sums.append(json.load(f))
    # The runner's own cases (done, power-off, boots) as one row.
    harness = "harness (runner: done, power-off, boots)"
    for s in sums:
        g = {k: v for k, v in s["groups"].items() if not k.startswith("harness/")}
        g[harness] = {st: sum(v[st] for k, v in s["groups"].items() if k.startswith("harness/"))
                      for st in STATUSES}
        s["groups"] = g
    keys = sorted({k for s in sums for k in s["groups"]})
    head = "| extension/function | " + " | ".join(s["name"] for s in sums) + " |"
    print("Passed / failed / not applicable per extension and function "
          "(`make conformance`, 1 and %s harts, QEMU `%s`):\n" % (
              sums[0]["smp"][-1], os.path.basename(sums[0]["qemu"])))
    print(head)
    print("|---|" + "---|" * len(sums))
    for k in keys:
        cells = []
        for s in sums:
            g = s["groups"].get(k)
            if not g:
                cells.append("-")
                continue
            cell = "%d / %s / %d" % (g["pass"], "**%d**" % g["fail"] if g["fail"] else "0",
                                     g["na"])
            cells.append(cell)
        print("| %s | %s |" % (k, " | ".join(cells)))
    tot = []
    for s in sums:
        t = s["totals"]
        tot.append("**%d / %d / %d**" % (t["pass"], t["fail"], t["na"]))
    print("| total | %s |" % " | ".join(tot))
    cov = ["%d/%d" % (s["error_cases"]["covered"], s["error_cases"]["provokable"]) for s in sums]
    print("| error cases covered / provokable | %s |" % " | ".join(cov))


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("payloads", nargs="*")
    ap.add_argument("--fw", help="firmware image, or ours / opensbi-1.1 / opensbi-1.6")
    ap.add_argument("--name", help="report name (default from --fw)")
    ap.add_argument("--qemu", default=os.environ.get("QEMU"))
    ap.add_argument("--smp", type=int, default=4, help="hart count besides 1 (default 4)")
    ap.add_argument("--cpu", default="", help="extra -cpu rv64 properties (no variant runs then)")
    ap.add_argument("--only-smp", action="store_true", help="run on --smp harts only, not also on 1")
    ap.add_argument("--no-variants", action="store_true",
                    help="skip the extra runs on other harts (rfence without H)")
    ap.add_argument("--strict-tsbi", action="store_true",
                    help="tsbi's own exact expectations (implementation choices are failures)")
    ap.add_argument("--timeout", type=float, default=float(os.environ.get("TSBI_PAYLOAD_TIMEOUT", 20)))
    ap.add_argument("--out", help="report directory (default build/conformance/NAME)")
    ap.add_argument("--compare", nargs="+", metavar="DIR", help="print a side-by-side table")
    args = ap.parse_args()
    if args.compare:
        compare(args.compare)
        return 0
    if not args.fw:
        ap.error("--fw is required")
    try:
        fw = os.path.abspath(resolve_fw(args.fw))
    except subprocess.CalledProcessError as e:
        print("conformance: cannot resolve %s: %s" % (args.fw, e.stderr), file=sys.stderr)
        return 2
    if not os.path.isfile(fw):
        print("conformance: no firmware image %s" % fw, file=sys.stderr)
        return 2
    if not args.name:
        args.name = args.fw if not os.path.exists(args.fw) else \
            "%s-%s" % (os.path.splitext(os.path.basename(fw))[0], sha256(fw)[:8])
        if args.strict_tsbi:
            args.name += "-strict"
    out = os.path.abspath(args.out or os.path.join(ROOT, "build", "conformance", args.name))
    os.makedirs(out, exist_ok=True)
    clauses = load_clauses()
    records = run(args, fw, out)
    if records is None:
        return 2
    summary, groups, failures, infos, rows = build_report(args, fw, records, clauses,
                                                          load_spec_errors())
    with open(os.path.join(out, "summary.json"), "w") as f:
        json.dump(summary, f, indent=1)
    write_markdown(os.path.join(out, "report.md"), summary, groups, failures, infos, rows,
                   clauses)
    write_junit(os.path.join(out, "junit.xml"), summary, records, clauses, args.strict_tsbi)
    t = summary["totals"]
    print("conformance: %s: %d passed, %d failed, %d n/a, %d info, %d without clause; "
          "error cases %d/%d; report %s/report.md" % (
              args.name, t["pass"], t["fail"], t["na"], t["info"], t["no_clause"],
              summary["error_cases"]["covered"], summary["error_cases"]["listed"], out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
