#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Check the project's trace tables against the specifications' own tables.

    check.py [--tci TCI_REGS_DEF] [--ntrace NTRACE_MSGS_DEF] [--data DIR]

The .def files are expanded by the C preprocessor, as every user of them
sees them; the reference is the data extract.py took from the spec text
(DIR, default tests/spec_tables/data). Every register offset, array stride
and count, every field's bit position and width, every message's TCODE and
field order and kinds, every field width and limit, and the named values
whose meaning the spec's tables give are compared. Prints one PASS/FAIL line
per register, message and value group (a FAIL line per mismatch, citing the
spec table's line) and exits 1 on any mismatch.
"""
import argparse
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TCI_SPEC = "trace-control-interface-1.0.adoc"
NT_SPEC = "n-trace-1.0.adoc"

# How the .def names fields: the spec's name without the component prefix
# (trTe, trTs, trRam, trFunnel, ...) and, where the spec repeats the
# register's group in every field name, without that too (trTeInst...,
# trTeData..., trTeFilter..., trTeFilterMatch...).
COMPONENTS = ("trTe", "trTs", "trRam", "trFunnel", "trPib", "trAtbBridge")
GROUPS = ("", "Inst", "Data", "Filter", "FilterMatch", "Comp")

# Named values the spec's tables give a meaning to: .def group -> (spec
# register, spec field), and the words the meaning of each value contains.
TCI_VALUE_FIELDS = {
    "INSTMODE": ("trTeControl", "trTeInstMode"),
    "SYNCMODE": ("trTeControl", "trTeInstSyncMode"),
    "FORMAT": ("trTeControl", "trTeFormat"),
    "IRETMODE": ("trTeInstFeatures", "trTeInstImplicitReturnMode"),
    "TSMODE": ("trTsControl", "trTsMode"),
    "RAMMODE": ("trRamControl", "trRamMode"),
    "DADDRCOMPRESS": ("trTeDataControl", "trTeDataAddrCompress"),
    "COMPINPUT": ("trTeComp{j}Control", "trTeCompPInput"),
    "COMPFUNC": ("trTeComp{j}Control", "trTeCompPFunction"),
    "COMPMODE": ("trTeComp{j}Control", "trTeCompMatchMode"),
    "TRIGACTION": ("trTeTrigExtInControl", "trTeTrigExtInAction0"),
}
TCI_KEYWORDS = {
    ("INSTMODE", "OFF"): "disabled", ("INSTMODE", "BTM"): "Baseline", ("INSTMODE", "HTM"): "Optimized",
    ("SYNCMODE", "OFF"): "Off", ("SYNCMODE", "MESSAGES"): "messages", ("SYNCMODE", "CYCLES"): "cycles",
    ("SYNCMODE", "HALFWORDS"): "half-words",
    ("FORMAT", "ETRACE"): "E-Trace", ("FORMAT", "NTRACE"): "N-Trace",
    ("IRETMODE", "COUNT"): "counting", ("IRETMODE", "PARTIAL"): "Partial", ("IRETMODE", "FULL"): "Full address",
    ("TSMODE", "NONE"): "None", ("TSMODE", "EXTERNAL"): "External", ("TSMODE", "INTERNAL"): "Internal System",
    ("TSMODE", "CORE"): "Internal Core", ("TSMODE", "SHARED"): "Shared",
    ("RAMMODE", "SRAM"): "SRAM mode", ("RAMMODE", "SMEM"): "SMEM mode",
    ("DADDRCOMPRESS", "FULL"): "full", ("DADDRCOMPRESS", "XOR"): "XOR",
    ("DADDRCOMPRESS", "DIFF"): "differential", ("DADDRCOMPRESS", "PROTOCOL"): "Protocol defined",
    ("COMPINPUT", "IADDR"): "iaddr", ("COMPINPUT", "CONTEXT"): "context", ("COMPINPUT", "TVAL"): "tval",
    ("COMPINPUT", "DADDR"): "daddr",
    ("COMPFUNC", "EQ"): "equal to", ("COMPFUNC", "NE"): "not equal", ("COMPFUNC", "LT"): "less than",
    ("COMPFUNC", "LE"): "less than or equal", ("COMPFUNC", "GT"): "greater than",
    ("COMPFUNC", "GE"): "greater than or equal", ("COMPFUNC", "FALSE_OR_MASK"): "always false",
    ("COMPFUNC", "TRUE"): "always true",
    ("COMPMODE", "P"): "primary result true", ("COMPMODE", "P_AND_S"): "(P && S)",
    ("COMPMODE", "NOT_P_AND_S"): "!(P && S)", ("COMPMODE", "LATCH"): "Set when primary",
    ("TRIGACTION", "TRACE_ON"): "Trace-on", ("TRIGACTION", "TRACE_OFF"): "Trace-off",
    ("TRIGACTION", "TRACE_NOTIFY"): "Trace-notify",
}
COMPTYPE_IMPL = {"ENCODER": "trTeImpl", "FUNNEL": "trFunnelImpl", "RAMSINK": "trRamImpl",
                 "PIBSINK": "trPibImpl", "ATBBRIDGE": "trAtbBridgeImpl"}
# N-Trace: the spec's field names as C identifiers ("B-TYPE" -> BTYPE, as the
# spec's own reference code spells them); RDATA[1] is the HREPEAT count
# ("RDATA[1] field holds HREPEAT (History Repeat) value").
NT_ALIASES = {"RDATA[0]": "RDATA", "RDATA[1]": "HREPEAT"}
NT_KEYWORDS = {
    "SYNC": {"EXT_TRIGGER": "External Trace Trigger", "EXIT_RESET": "Exit from Reset", "PERIODIC": "Periodic",
             "EXIT_DEBUG": "Exit from Debug", "ICNT_FULL": "Sequential Instruction Counter",
             "TRACE_ENABLE": "Trace Enable", "TRACE_EVENT": "Trace Event", "FIFO_OVERRUN": "FIFO overrun",
             "EXIT_POWERDOWN": "Power-down"},
    "BTYPE": {"INDIRECT": "Indirect control flow change", "TRAP": "Exception or interrupt",
              "EXCEPTION": "Exception", "INTERRUPT": "Interrupt"},
    "EVCODE": {"DEBUG_ENTRY": "Debug Mode", "LOW_POWER": "Low-power", "TRACE_DISABLED": "Disabled"},
    "RCODE": {"ICNT_FULL": "I-CNT counter has reached", "HIST_FULL": "HIST field is full and is reported",
              "HIST_REPEAT": "is repeated"},
    "ETYPE": {"FIFO_OVERRUN": "FIFO overrun"},
    "ECODE": {"PROGRAM_LOST": "Program Trace", "OWNERSHIP_LOST": "Ownership Trace",
              "VENDOR_LOST": "Vendor Defined"},
    "PROCESS_FORMAT": {"PRIV": "PRV", "SCONTEXT": "scontext", "HCONTEXT": "hcontext"},
    "ITYPE": {"NONE": "No special type", "EXCEPTION": "Exception", "INTERRUPT": "Interrupt",
              "TRAP_RETURN": "Trap return", "BRANCH_NOT_TAKEN": "Not-taken branch", "BRANCH_TAKEN": "Taken branch",
              "INDIRECT_JUMP": "Indirect jump (with or without linkage)", "INDIRECT_CALL": "Indirect call",
              "DIRECT_CALL": "Direct call", "INDIRECT_JUMP_NOLINK": "Indirect jump (without linkage)",
              "DIRECT_JUMP_NOLINK": "Direct jump (without linkage)", "COROUTINE_SWAP": "Co-routine swap",
              "RETURN": "Return", "INDIRECT_JUMP_LINK": "Other indirect jump (with linkage)",
              "DIRECT_JUMP_LINK": "Other direct jump (with linkage)"},
}

failures = 0


def report(ok, name, detail=""):
    global failures
    failures += not ok
    print("%s: spec/%s%s" % ("PASS" if ok else "FAIL", name, " (%s)" % detail if detail else ""))


def read_tsv(data, name):
    rows = []
    with open(os.path.join(data, name), encoding="utf-8") as f:
        lines = [l.rstrip("\n") for l in f if not l.startswith("#")]
    head = lines[0].split("\t")
    for l in lines[1:]:
        rows.append(dict(zip(head, l.split("\t"))))
    return rows


def expand(deffile, macros):
    """Rows of a .def file as the C preprocessor expands it: each row macro
    prints '@ROW' then a tag and its arguments as tokens (macros used inside
    a row's arguments print without '@ROW')."""
    src = "".join("#define %s %s\n" % (m, body) for m, body in macros)
    src += '#include "%s"\n' % os.path.abspath(deffile)
    out = subprocess.run(["gcc", "-E", "-P", "-x", "c", "-"], input=src, capture_output=True, text=True)
    if out.returncode:
        sys.exit("check.py: the C preprocessor failed on %s:\n%s" % (deffile, out.stderr))
    rows = []
    for chunk in out.stdout.replace("\n", " ").split("@ROW")[1:]:
        toks = re.findall(r"[A-Za-z_][A-Za-z0-9_]*|0[xX][0-9A-Fa-f]+|\d+", chunk)
        rows.append(toks)
    return rows


def num(tok):
    return int(tok, 0)


def cite(spec, row):
    return "%s line %s" % (spec, row["line"])


def check_tci(deffile, data):
    regs = {r["register"].replace("{i}", "0").replace("{j}", "0"): r for r in read_tsv(data, "tci_registers.tsv")}
    layout = {r["register"]: r for r in read_tsv(data, "tci_layout.tsv")}
    fields = {}
    for f in read_tsv(data, "tci_fields.tsv"):
        fields.setdefault(f["register"].replace("{i}", "0").replace("{j}", "0"), []).append(f)
    values = read_tsv(data, "tci_values.tsv")
    rows = expand(deffile, [("TCI_REG(c, r, o)", "@ROW REG r o"), ("TCI_FIELD(r, n, l, w)", "@ROW FIELD r n l w"),
                            ("TCI_VALUE(g, n, v)", "@ROW VALUE g n v"), ("TCI_ARRAY(r, s, n)", "@ROW ARRAY r s n")])
    def_regs, def_fields, def_values, def_arrays = {}, {}, [], {}
    for r in rows:
        if r[0] == "REG":
            def_regs[r[1]] = num(r[2])
        elif r[0] == "FIELD":
            def_fields.setdefault(r[1], []).append((r[2], num(r[3]), num(r[4])))
        elif r[0] == "VALUE":
            def_values.append((r[1], r[2], num(r[3])))
        elif r[0] == "ARRAY":
            def_arrays[r[1]] = (num(r[2]), num(r[3]))

    # The spec registers a .def register stands for: itself, or for the
    # generic tr??Control / tr??Impl every component's.
    def spec_regs(reg):
        if reg in ("trControl", "trImpl"):
            suffix = reg[2:]
            return [n for n in regs if re.fullmatch(r"tr(Te|Ram|Funnel|Pib|AtbBridge)" + suffix, n)]
        return [reg] if reg in regs else []

    def find_field(sreg, name):
        comp = re.match(r"^(trTe|trTs|trRam|trFunnel|trPib|trAtbBridge)", sreg).group(1)
        if name == "Vendor":
            return [f for f in fields.get(sreg, [])
                    if f["field"] == "--" and f["reserved_for"].startswith("Reserved for vendor")]
        # The first group that names a field wins: trTeFilterComp1 is
        # (Filter, Comp1), trTeFilterMatchComp1 is (Filter, MatchComp1).
        for g in GROUPS:
            hits = [f for f in fields.get(sreg, []) if f["field"] == comp + g + name]
            if hits:
                return hits
        return []

    for reg, off in def_regs.items():
        problems = []
        if reg in ("trControl", "trImpl"):
            row = layout.get("tr??" + reg[2:])
            if not row or num(row["offset"]) != off:
                problems.append("offset 0x%03X, the spec's layout has %s" % (off, row["offset"] if row else "none"))
            where = TCI_SPEC
        elif reg not in regs:
            # A vendor register: only where the layout reserves room for them.
            vendor = next((r for r in layout.values() if "vendor" in r["meaning"]), None)
            lo, hi = (num(x) for x in vendor["offset"].split(" - ")) if vendor else (1, 0)
            report(lo <= off <= hi and reg.startswith(("trTeVendor", "trRamVendor", "trFunnelVendor")),
                   "tci/%s" % reg, "offset 0x%03X, no register of that name in %s; the layout's vendor range is "
                   "%s (%s)" % (off, TCI_SPEC, vendor["offset"] if vendor else "not found",
                                cite(TCI_SPEC, vendor) if vendor else ""))
            continue
        else:
            row = regs[reg]
            where = cite(TCI_SPEC, row)
            if num(row["offset"]) != off:
                problems.append("offset 0x%03X, spec 0x%03X" % (off, num(row["offset"])))
            if reg in def_arrays:
                stride, count = def_arrays[reg]
                group = next((r for n, r in regs.items() if n.endswith("??") and reg.startswith(n[:-2])), None)
                if not row["stride"] or num(row["stride"]) != stride:
                    problems.append("stride 0x%X, spec %s" % (stride, row["stride"] or "none"))
                elif not group or (num(group["last"]) + 1 - num(group["offset"])) // stride != count:
                    problems.append("%d instances, spec %s..%s" % (count, group and group["offset"],
                                                                  group and group["last"]))
        nfields = 0
        for name, lsb, width in def_fields.get(reg, []):
            for sreg in spec_regs(reg):
                hits = find_field(sreg, name)
                if len(hits) != 1:
                    problems.append("%s: %s in %s" % (name, "no field" if not hits else "ambiguous", sreg))
                    continue
                f = hits[0]
                if (int(f["lsb"]), int(f["width"])) != (lsb, width):
                    problems.append("%s: .def bit %d width %d, spec %s bit %s width %s (%s)" % (
                        name, lsb, width, f["field"], f["lsb"], f["width"], cite(TCI_SPEC, f)))
                nfields += 1
        for p in problems:
            report(False, "tci/%s" % reg, "%s; %s" % (p, where))
        if not problems:
            report(True, "tci/%s" % reg, "offset 0x%03X, %d field(s) against %s" % (off, nfields, where))

    unchecked = []
    for group, name, value in def_values:
        sfield = TCI_VALUE_FIELDS.get(group)
        if sfield:
            items = [v for v in values if (v["register"], v["field"]) == sfield
                     and int(v["value"]) <= value <= int(v["last"])]
            word = TCI_KEYWORDS.get((group, name))
            ok = len(items) == 1 and word is not None and word.lower() in items[0]["meaning"].lower()
            report(ok, "tci/value/%s_%s" % (group, name), "%d: %s" % (
                value, "%s.%s: %s" % (sfield[0], sfield[1], items[0]["meaning"][:60]) if items else "not in the spec"))
        elif group == "COMPTYPE":
            impl = COMPTYPE_IMPL.get(name)
            f = next((f for f in fields.get(impl, []) if f["field"].endswith("CompType")), None)
            report(bool(f) and num(f["reset"]) == value, "tci/value/COMPTYPE_%s" % name,
                   "%d: %s" % (value, "%s reset %s" % (f["field"], f["reset"]) if f else "no Impl table"))
        elif (group, name) == ("VERSION", "MAJOR"):
            majors = {f["reset"] for n in fields for f in fields[n] if f["field"].endswith("VerMajor")}
            report(majors == {str(value)}, "tci/value/VERSION_MAJOR", "spec resets: %s" % ",".join(sorted(majors)))
        elif (group, name) == ("RAM", "ADDR_ALIGN"):
            f = next(f for f in fields["trRamStartLow"] if f["field"] == "trRamStartLow")
            report(1 << int(f["lsb"]) == value, "tci/value/RAM_ADDR_ALIGN", "trRamStartLow from bit %s" % f["lsb"])
        else:
            unchecked.append("%s_%s" % (group, name))
    return unchecked


def check_ntrace(deffile, data):
    msgs = {}
    for r in read_tsv(data, "ntrace_messages.tsv"):
        msgs.setdefault(r["message"], []).append(r)
    limits = {r["symbol"]: r for r in read_tsv(data, "ntrace_limits.tsv")}
    summary = {r["message"]: r for r in read_tsv(data, "ntrace_tcodes.tsv")}
    common = {r["field"].replace("-", ""): r for r in read_tsv(data, "ntrace_common_fields.tsv")}
    tables = {"SYNC": [dict(r, meaning=r["name"]) for r in read_tsv(data, "ntrace_sync.tsv")],
              "PROCESS_FORMAT": [dict(r, value=r["format"], last=r["format"], meaning=r["reason"])
                                 for r in read_tsv(data, "ntrace_process_format.tsv")],
              "ITYPE": [dict(r, value=r["itype"], last=r["itype"]) for r in read_tsv(data, "ntrace_itype.tsv")]}
    for r in read_tsv(data, "ntrace_values.tsv"):
        tables.setdefault(r["field"].replace("-", ""), []).append(r)
    rows = expand(deffile, [("NTRACE_FIELD(i, k, b)", "@ROW FIELD i k b"), ("NTRACE_MSG(n, t, f)", "@ROW MSG n t f"),
                            ("NTRACE_F(i)", "F i"), ("NTRACE_FC(i, c, v)", "FC i c v"),
                            ("NTRACE_ENUM(g, n, v)", "@ROW ENUM g n v"), ("NTRACE_LIMIT(n, v)", "@ROW LIMIT n v")])
    def_fields, def_msgs, def_enums, def_limits = {}, {}, [], {}
    for r in rows:
        if r[0] == "FIELD":
            def_fields[r[1]] = (r[2].replace("NTRACE_KIND_", ""), num(r[3]))
        elif r[0] == "MSG":
            flds, k = [], 3
            while k < len(r):
                if r[k] == "F":
                    flds.append((r[k + 1], False))
                    k += 2
                else:
                    flds.append((r[k + 1], True))
                    k += 4
            def_msgs[r[1]] = (num(r[2]), flds)
        elif r[0] == "ENUM":
            def_enums.append((r[1], r[2], num(r[3])))
        elif r[0] == "LIMIT":
            def_limits[r[1]] = num(r[2])

    def kind_ok(name, bits):
        kind, width = def_fields.get(name, (None, None))
        if bits.isdigit():
            return kind == "FIX" and width == int(bits)
        if bits == "Cfg":
            return kind == "SRC"
        if bits in ("Var", "Var,Cfg"):
            return kind == ("ADDR" if name.endswith("ADDR") else "VAR")
        return False

    for name, (kind, width) in def_fields.items():
        c = common.get(name)
        uses = [r for rs in msgs.values() for r in rs if NT_ALIASES.get(r["field"], r["field"].replace("-", "")) == name]
        if not c and not uses:
            report(False, "ntrace/field/%s" % name, "in no table of %s" % NT_SPEC)
            continue
        bad = [r for r in ([c] if c else []) + uses if not kind_ok(name, r["bits"])]
        report(not bad, "ntrace/field/%s" % name, "%s %s%s" % (kind, width or "", "; spec says %s (%s)" % (
            bad[0]["bits"], cite(NT_SPEC, bad[0])) if bad else " against %d table row(s)" % (len(uses) + bool(c))))

    for msg in sorted(set(msgs) | set(def_msgs)):
        if msg not in def_msgs or msg not in msgs:
            report(False, "ntrace/msg/%s" % msg, "only in %s" % (NT_SPEC if msg in msgs else "the .def"))
            continue
        tcode, flds = def_msgs[msg]
        spec = msgs[msg]
        problems = []
        if num(spec[0]["tcode"] or "-1") != tcode or spec[0]["field"] != "TCODE":
            problems.append("TCODE %d, spec %s" % (tcode, spec[0]["tcode"]))
        # The "Fields in Messages" summary says the same.
        if msg not in summary or int(summary[msg]["tcode"]) != tcode:
            problems.append("TCODE %d, the summary table has %s (%s)" % (
                tcode, summary[msg]["tcode"] if msg in summary else "no row",
                cite(NT_SPEC, next(iter(summary.values())))))
        if spec[1]["field"] != "SRC" or spec[-1]["field"] != "TSTAMP":
            problems.append("spec rows do not start with TCODE, SRC and end with TSTAMP")
        body = [(NT_ALIASES.get(r["field"], r["field"].replace("-", "")), r["bits"] == "Var,Cfg") for r in spec[2:-1]]
        if body != flds:
            problems.append(".def fields %s, spec %s" % (
                " ".join(n + ("?" if c else "") for n, c in flds), " ".join(n + ("?" if c else "") for n, c in body)))
        for p in problems:
            report(False, "ntrace/msg/%s" % msg, "%s; %s" % (p, cite(NT_SPEC, spec[0])))
        if not problems:
            report(True, "ntrace/msg/%s" % msg, "TCODE %d, %d field(s); %s" % (tcode, len(flds), cite(NT_SPEC, spec[0])))

    for name, value in def_limits.items():
        row = limits.get("NTRACE_" + name)
        if row:
            report(int(row["bits"]) == value, "ntrace/limit/%s" % name, "%d, spec %s (%s)" % (
                value, row["bits"], cite(NT_SPEC, row)))
    unchecked = ["LIMIT_" + n for n in def_limits if "NTRACE_" + n not in limits]

    vendor = summary.get("Vendor Defined")
    for group, name, value in def_enums:
        if group == "TCODE" and name in ("VENDOR_FIRST", "VENDOR_LAST") and vendor:
            want = int(vendor["tcode" if name == "VENDOR_FIRST" else "last"])
            report(value == want, "ntrace/value/TCODE_%s" % name, "%d, spec Vendor Defined %s..%s (%s)" % (
                value, vendor["tcode"], vendor["last"], cite(NT_SPEC, vendor)))
            continue
        words = NT_KEYWORDS.get(group, {})
        if name not in words or group not in tables:
            unchecked.append("%s_%s" % (group, name))
            continue
        items = [r for r in tables[group] if int(r["value"]) <= value <= int(r["last"])]
        ok = len(items) == 1 and words[name].lower() in items[0]["meaning"].lower()
        report(ok, "ntrace/value/%s_%s" % (group, name), "%d: %s" % (
            value, items[0]["meaning"][:60] if items else "not in the spec"))
    return unchecked


# E-Trace: Bits cells the .def reads other than the spec text says, because
# the text is wrong (each with why): the CSR table drops the '+' that every
# other data/op length cell has ("Number of bytes of data is data_len + 1",
# the description in the same row).
ET_ERRATA = {("Packet format for Unified CSR, with address, data and operand", "data"):
             ("8 * (data_len 1)", "8 * (data_len + 1)")}


def expand_etrace(deffile):
    """The packet rows of etrace_pkts.def as the C preprocessor expands them:
    [(id, title, [(name, kind, bits, text)])]."""
    src = ('#define ETRACE_PKT(id, title, ...) @PKT id title __VA_ARGS__ @END\n'
           '#define ETRACE_F(n, k, b, t) @F n k b t\n#include "%s"\n' % os.path.abspath(deffile))
    out = subprocess.run(["gcc", "-E", "-P", "-x", "c", "-"], input=src, capture_output=True, text=True)
    if out.returncode:
        sys.exit("check.py: the C preprocessor failed on %s:\n%s" % (deffile, out.stderr))
    text = out.stdout.replace("\n", " ")
    string = r'"((?:[^"\\]|\\.)*)"'
    pkts = []
    for m in re.finditer(r"@PKT (\w+) " + string + r"(.*?)@END", text):
        flds = [(f.group(1), f.group(2).replace("ETRACE_", ""), int(f.group(3)), f.group(4))
                for f in re.finditer(r"@F (\w+) (\w+) (\d+) " + string, m.group(3))]
        pkts.append((m.group(1), m.group(2), flds))
    return pkts


def check_etrace(deffile, data):
    spec = {}
    for r in read_tsv(data, "etrace_packets.tsv"):
        spec.setdefault(r["packet"], []).append(r)
    pkts = expand_etrace(deffile)
    titles = {t for _, t, _ in pkts}
    for title in spec:
        if title not in titles:
            report(False, "etrace/packet/%s" % title, "a table of the spec (%s line %s) with no .def row" % (
                spec[title][0]["file"], spec[title][0]["line"]))
    for pid, title, flds in pkts:
        rows = spec.get(title)
        if not rows:
            report(False, "etrace/%s" % pid, "title '%s' is no packet table of the spec" % title)
            continue
        where = "%s line %s" % (rows[0]["file"], rows[0]["line"])
        problems = []
        if [f[0] for f in flds] != [r["field"] for r in rows]:
            problems.append(".def fields %s, spec %s" % (" ".join(f[0] for f in flds),
                                                        " ".join(r["field"] for r in rows)))
        for (name, kind, width, text), r in zip(flds, rows):
            bits = r["bits"]
            err = ET_ERRATA.get((title, name))
            if err and bits == err[0]:
                bits = err[1]
            alts = [int(x) for x in re.findall(r"\d+", bits)] if re.fullmatch(r"\d+( or \d+)*", bits) else []
            if kind == "FIX":
                ok = bits.isdigit() and int(bits) == width
            elif kind == "ALT":
                ok = len(alts) > 1 and width == max(alts)
            elif kind == "MAP":
                ok = bits.startswith("Determined by branches") and width == 31
            elif kind == "LEN":
                ok = re.fullmatch(r"8 \* \(\w+_len \+ 1\)", bits) is not None
            elif kind == "SIZE":
                ok = bits == "size"
            else:
                ok = kind == "PARAM" and not alts and not bits.isdigit()
            if not ok or (kind != "FIX" and text != bits):
                problems.append("%s: .def %s %d '%s', spec '%s'" % (name, kind, width, text, r["bits"]))
        for p in problems:
            report(False, "etrace/%s" % pid, "%s; %s" % (p, where))
        if not problems:
            report(True, "etrace/%s" % pid, "%d field(s); %s" % (len(flds), where))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tci", default=os.path.join(ROOT, "hw_models/trace/tci_regs.def"))
    ap.add_argument("--ntrace", default=os.path.join(ROOT, "hw_models/trace/ntrace_msgs.def"))
    ap.add_argument("--etrace", default=os.path.join(ROOT, "hw_models/trace/etrace_pkts.def"))
    ap.add_argument("--data", default=os.path.join(HERE, "data"))
    a = ap.parse_args()
    unchecked = check_tci(a.tci, a.data) + check_ntrace(a.ntrace, a.data)
    check_etrace(a.etrace, a.data)
    # Named values with no table in these two specs (the ingress port's priv
    # codes are E-Trace's; sizes and vendor ranges are prose): listed, so a
    # reader sees what the oracle does not cover.
    print("# not in the specs' tables: %s" % " ".join(unchecked))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
