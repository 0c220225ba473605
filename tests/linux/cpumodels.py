#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""CPU models: what Debian's Linux sees on our firmware against OpenSBI 1.6.

Reads the console logs of tests/linux/hwprobe.c run as init (the TSBI-CPUINFO
and TSBI-HWPROBE lines) and compares /proc/cpuinfo and every riscv_hwprobe
answer, decoded (key names, IMA_EXT_0 extension bits, misaligned-access
speeds), so that a difference reads as what it is ("hwprobe cpus=all
IMA_EXT_0: ours lacks ZICBOZ"), and the U-mode probes of the same program
(TSBI-UPROBE).

  cpumodels.py compare NAME OURS.log PEER.log README
      One CPU model (NAME is "<qemu>/<cpu>", e.g. 10/max). Prints each
      difference and exits 0 when there is none or every one is explained
      in README's table (tests/linux/README.md, between the
      cpu-models-known markers: | QEMU/-cpu | difference | why |), 1 when
      one is not, 2 when a log lacks the answers.
  cpumodels.py readme README LOGDIR
      Rewrites README's table of every model (cpu-models-table markers)
      from LOGDIR's cpu-<qemu>-<cpu>-ours.log and -opensbi-1.6.log (suite
      62-cpu-models: build/test-logs/linux).
  cpumodels.py readme-check README LOGDIR
      Exits 0 when README's table has the rows LOGDIR's logs give, 1 (and
      prints the rows that differ) when not. The misaligned column is left
      out: it is the kernel's timing of copies at boot, a measurement.
"""
import os
import re
import sys

KEYS = {
    0: "MVENDORID", 1: "MARCHID", 2: "MIMPID", 3: "BASE_BEHAVIOR",
    4: "IMA_EXT_0", 5: "CPUPERF_0", 6: "ZICBOZ_BLOCK_SIZE",
    7: "HIGHEST_VIRT_ADDRESS", 8: "TIME_CSR_FREQ",
    9: "MISALIGNED_SCALAR_PERF", 10: "MISALIGNED_VECTOR_PERF",
}
# RISCV_HWPROBE_KEY_IMA_EXT_0's bits as of Linux 6.12 (uapi asm/hwprobe.h);
# later bits print as "bit N".
IMA_EXT_0 = [
    "FD", "C", "V", "ZBA", "ZBB", "ZBS", "ZICBOZ", "ZBC", "ZBKB", "ZBKC",
    "ZBKX", "ZKND", "ZKNE", "ZKNH", "ZKSED", "ZKSH", "ZKT", "ZVBB", "ZVBC",
    "ZVKB", "ZVKG", "ZVKNED", "ZVKNHA", "ZVKNHB", "ZVKSED", "ZVKSH", "ZVKT",
    "ZFH", "ZFHMIN", "ZIHINTNTL", "ZVFH", "ZVFHMIN", "ZFA", "ZTSO", "ZACAS",
    "ZICOND", "ZIHINTPAUSE", "ZVE32X", "ZVE32F", "ZVE64X", "ZVE64F", "ZVE64D",
    "ZIMOP", "ZCA", "ZCB", "ZCD", "ZCF", "ZCMOP", "ZAWRS",
]
MISALIGNED = {0: "UNKNOWN", 1: "EMULATED", 2: "SLOW", 3: "FAST", 4: "UNSUPPORTED"}
PEER = "OpenSBI"


def key_name(k):
    return KEYS.get(k, f"key {k}")


def bit_names(v):
    return [IMA_EXT_0[b] if b < len(IMA_EXT_0) else f"bit {b}" for b in range(64) if v >> b & 1]


def show(k, v):
    """A value as the table shows it."""
    if v is None:
        return "unknown key"
    if k in (5, 9, 10):
        return MISALIGNED.get(v, hex(v))
    if k in (6, 8):
        return str(v)
    return hex(v)


def parse(path):
    """The answers in one console log: {'cpuinfo': {hart: {field: value}},
    'hwprobe': {query: (rc, {key: value or None})}, 'uprobe': {name:
    result}, 'ratio': [kernel lines], 'init': bool, 'end': bool}. A per-CPU
    hwprobe query is named by the CPU's hart ("hart=1"): which hart boots
    first, and so becomes CPU 0, is a race among the harts."""
    out = {"cpuinfo": {}, "hwprobe": {}, "uprobe": {}, "ratio": [], "init": False, "end": False}
    try:
        text = open(path, encoding="utf-8", errors="replace").read()
    except OSError:
        return out
    fields, hart_of, raw = None, {}, {}
    for line in text.splitlines():
        line = line.replace("\r", "")
        # A firmware's message from M-mode may come first on the line
        # (OpenSBI 1.6 prints one, with no newline, for each CSR access it
        # cannot emulate: the U-mode probes make some).
        if "TSBI-" in line:
            line = line[line.index("TSBI-"):]
        if line.startswith("TSBI-RESULT init=ok"):
            out["init"] = True
        elif re.match(r"TSBI-RESULT end .*\brc=0\b", line):
            out["end"] = True
        elif line.startswith("TSBI-CPUINFO "):
            body = line[len("TSBI-CPUINFO "):]
            if ":" not in body:
                continue
            field, value = (x.strip() for x in body.split(":", 1))
            if field == "processor":
                fields = {}
                cpu = value
            elif fields is not None:
                fields[field] = value
                if field == "hart":
                    hart_of[cpu] = value
                    out["cpuinfo"][value] = fields
        elif line.startswith("TSBI-HWPROBE "):
            # A line cut by other console output is left out: its query
            # then reads as not answered.
            try:
                f = dict(w.split("=", 1) for w in line.split()[1:] if "=" in w)
                vals = {int(k): (None if v == "-" else int(v, 16))
                        for k, v in f.items() if k.isdigit()}
                raw[f"cpus={f['cpus']}" if "cpus" in f else f"flags={f['flags']}"] = (int(f["rc"]), vals)
            except (KeyError, ValueError):
                continue
        elif line.startswith("TSBI-UPROBE"):
            out["uprobe"] = dict(w.split("=", 1) for w in line.split()[1:] if "=" in w)
        else:
            m = re.search(r"cpu\d+: Ratio of byte access time to unaligned word access is .*", line)
            if m:
                out["ratio"].append(m.group(0))
    for query, answer in raw.items():
        cpu = query[len("cpus="):]
        out["hwprobe"][f"hart={hart_of[cpu]}" if cpu in hart_of else query] = answer
    return out


def compare(ours, peer):
    """The differences, one short line each (the same wording every run, so
    that the README's table can name them)."""
    diffs = []
    # /proc/cpuinfo, hart by hart: per field, the harts where they differ.
    if set(ours["cpuinfo"]) != set(peer["cpuinfo"]):
        diffs.append(f"cpuinfo harts: ours {' '.join(sorted(ours['cpuinfo']))}, "
                     f"{PEER} {' '.join(sorted(peer['cpuinfo']))}")
    by_field = {}
    for hart in sorted(set(ours["cpuinfo"]) & set(peer["cpuinfo"])):
        a, b = ours["cpuinfo"][hart], peer["cpuinfo"][hart]
        for field in sorted(set(a) | set(b)):
            if a.get(field) != b.get(field):
                by_field.setdefault((field, isa_diff(field, a.get(field), b.get(field))), []).append(hart)
    for (field, desc), harts in by_field.items():
        diffs.append(f"cpuinfo {field} (hart {','.join(harts)}): {desc}")
    # hwprobe: every query, every key.
    for query in sorted(set(ours["hwprobe"]) | set(peer["hwprobe"])):
        if query not in ours["hwprobe"] or query not in peer["hwprobe"]:
            who = "ours" if query not in ours["hwprobe"] else PEER
            diffs.append(f"hwprobe {query}: no answer on {who}")
            continue
        (rc1, a), (rc2, b) = ours["hwprobe"][query], peer["hwprobe"][query]
        if rc1 != rc2:
            diffs.append(f"hwprobe {query}: returns {rc1}, on {PEER} {rc2}")
            continue
        for k in sorted(set(a) | set(b)):
            v1, v2 = a.get(k), b.get(k)
            if v1 == v2:
                continue
            if k == 4 and v1 is not None and v2 is not None:
                lacks = bit_names(v2 & ~v1)
                adds = bit_names(v1 & ~v2)
                desc = "; ".join(s for s in (
                    "ours lacks " + " ".join(lacks) if lacks else "",
                    "ours adds " + " ".join(adds) if adds else "") if s)
            else:
                desc = f"ours {show(k, v1)}, {PEER} {show(k, v2)}"
            diffs.append(f"hwprobe {query} {key_name(k)}: {desc}")
    # U-mode uses of what the answers advertise.
    a, b = ours["uprobe"], peer["uprobe"]
    for name in sorted(set(a) | set(b)):
        if a.get(name) != b.get(name):
            diffs.append(f"U-mode {name}: ours {a.get(name, 'not run')}, {PEER} {b.get(name, 'not run')}")
    return diffs


def isa_diff(field, v1, v2):
    if "isa" not in field or v1 is None or v2 is None:
        return f"ours '{v1}', {PEER} '{v2}'"
    e1, e2 = set(v1.split("_")[1:]), set(v2.split("_")[1:])
    parts = []
    if v1.split("_")[0] != v2.split("_")[0]:
        parts.append(f"base ours {v1.split('_')[0]}, {PEER} {v2.split('_')[0]}")
    if e2 - e1:
        parts.append("ours lacks " + " ".join(sorted(e2 - e1)))
    if e1 - e2:
        parts.append("ours adds " + " ".join(sorted(e1 - e2)))
    return "; ".join(parts) or "same extensions, another order"


def known(readme, name):
    """The explained differences of model NAME in README's table."""
    text = open(readme, encoding="utf-8").read()
    m = re.search(r"<!-- cpu-models-known begin -->(.*?)<!-- cpu-models-known end -->", text, re.S)
    rows = {}
    for line in (m.group(1) if m else "").splitlines():
        cols = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cols) >= 3 and cols[0].strip("`") == name:
            rows[cols[1].strip("`")] = cols[2]
    return rows


def summary(o, p):
    """The table cell for one model: what each side reached, and how the
    answers compare."""
    if not (o["init"] and o["hwprobe"]):
        return "ours: no answers"
    if not (p["init"] and p["hwprobe"]):
        return f"{PEER}: no answers"
    d = compare(o, p)
    return "equal" if not d else "<br>".join(f"`{x}`" for x in d)


def cmd_compare(name, ours_log, peer_log, readme):
    o, p = parse(ours_log), parse(peer_log)
    for who, r, log in (("ours", o, ours_log), (PEER, p, peer_log)):
        if not r["hwprobe"] or not r["cpuinfo"] or not r["uprobe"]:
            print(f"{name}: no cpuinfo/hwprobe answers from {who} ({log})")
            return 2
    diffs = compare(o, p)
    ok = known(readme, name)
    bad = [d for d in diffs if d not in ok]
    for d in diffs:
        print(f"{name}: {d}" + (f"  [explained: {ok[d]}]" if d in ok else "  [UNEXPLAINED]"))
    for d in ok:
        if d not in diffs:
            print(f"{name}: note: the README explains '{d}', which did not occur")
    if not diffs:
        print(f"{name}: equal: cpuinfo of {len(o['cpuinfo'])} harts, {len(o['hwprobe'])} hwprobe queries, "
              f"{len(o['uprobe'])} U-mode probes")
    for r in o["ratio"] + p["ratio"]:
        print(f"{name}: kernel: {r}")
    return 1 if bad else 0


def facts(o):
    """What ours answered on one model, for the README's table."""
    a = o["hwprobe"].get("cpus=all", (None, {}))[1]
    if not a:
        return ["", "", "", "", "", ""]
    ids = "/".join(hex(a[k]) for k in (0, 1, 2))
    ext = " ".join(n.lower() for n in bit_names(a[4]))
    v = a.get(7) or 0
    va = f"2^{v.bit_length() - 1}" if v and v & (v - 1) == 0 else hex(v)
    u = o["uprobe"]
    uses = ", ".join(f"{k} {u.get(k, '?')}" for k in ("cbo.zero", "vlenb", "wrs.nto"))
    return [ids, ext, str(a[6]) if a.get(6) else "-", va, show(9, a[9]), uses]


HEADER = ["| QEMU | `-cpu` | ours vs OpenSBI 1.6 | MVENDORID/MARCHID/MIMPID | IMA_EXT_0 "
          "| ZICBOZ_BLOCK_SIZE | HIGHEST_VIRT_ADDRESS | misaligned | U-mode |",
          "|---|---|---|---|---|---|---|---|---|"]
MARKERS = ("<!-- cpu-models-table begin -->", "<!-- cpu-models-table end -->")
MISALIGNED_COL = 7


def table_rows(logdir):
    """One row per model whose logs LOGDIR holds, as lists of cells."""
    found = []
    for f in os.listdir(logdir):
        m = re.fullmatch(r"cpu-(7|10)-(.+)-ours\.log", f)
        if m:
            found.append((int(m.group(1)), m.group(2)))
    rows = []
    for q, cpu in sorted(found):
        o = parse(os.path.join(logdir, f"cpu-{q}-{cpu}-ours.log"))
        p = parse(os.path.join(logdir, f"cpu-{q}-{cpu}-opensbi-1.6.log"))
        rows.append([("7.2" if q == 7 else "10.0"), cpu, summary(o, p)] + facts(o))
    return rows


def readme_parts(readme):
    """README's text before the table, the table's lines, and after."""
    text = open(readme, encoding="utf-8").read()
    begin, end = MARKERS
    if begin not in text or end not in text:
        return None
    head, rest = text.split(begin, 1)
    body, tail = rest.split(end, 1)
    return head, body.strip("\n").split("\n"), tail


def cmd_readme(readme, logdir):
    parts = readme_parts(readme)
    if parts is None:
        print(f"cpumodels: {readme} has no {MARKERS[0]} ... {MARKERS[1]}", file=sys.stderr)
        return 2
    head, _, tail = parts
    rows = HEADER + ["| " + " | ".join(r) + " |" for r in table_rows(logdir)]
    open(readme, "w", encoding="utf-8").write(head + MARKERS[0] + "\n" + "\n".join(rows) + "\n" + MARKERS[1] + tail)
    return 0


def cmd_readme_check(readme, logdir):
    parts = readme_parts(readme)
    if parts is None:
        print(f"cpumodels: {readme} has no {MARKERS[0]} ... {MARKERS[1]}")
        return 2

    def key(cells):
        return " | ".join(c for i, c in enumerate(cells) if i != MISALIGNED_COL)
    have = [key([c.strip() for c in line.strip().strip("|").split("|")])
            for line in parts[1] if line.startswith("| ") and line not in HEADER]
    want = [key(r) for r in table_rows(logdir)]
    if have == want:
        print(f"cpumodels: {readme}: the {len(want)} rows are this run's")
        return 0
    for line in have:
        if line not in want:
            print(f"README:   {line}")
    for line in want:
        if line not in have:
            print(f"this run: {line}")
    if sorted(have) == sorted(want):
        print("the same rows in another order")
    return 1


def main(argv):
    if len(argv) == 6 and argv[1] == "compare":
        return cmd_compare(*argv[2:])
    if len(argv) == 4 and argv[1] == "readme":
        return cmd_readme(argv[2], argv[3])
    if len(argv) == 4 and argv[1] == "readme-check":
        return cmd_readme_check(argv[2], argv[3])
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
