#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Extract the register and message tables of the RISC-V trace specifications
(AsciiDoc sources) into the tab-separated data files beside this script.

    extract.py [SPEC_DIR] [OUT_DIR]

SPEC_DIR holds trace-control-interface-1.0.adoc and n-trace-1.0.adoc
(default ../shared/specs/trace from the project root); OUT_DIR defaults to
tests/spec_tables/data. The files are data taken from the specifications
(CC-BY-4.0, see README.md); check.py compares hw_models/trace/tci_regs.def
and ntrace_msgs.def with them. Nothing here knows the project's tables: the
tables are read as the AsciiDoc text lays them out (cells split at '|',
grouped into rows by the table's column count).
"""
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TCI = "trace-control-interface-1.0.adoc"
NTRACE = "n-trace-1.0.adoc"
# E-Trace 2.0 chapters, in the etrace directory beside SPEC_DIR.
ETRACE_INST = "payload.adoc"
ETRACE_DATA = "dataTracePayload.adoc"


def clean(text):
    """Cell text without AsciiDoc markup: <<ref,label>> -> label, `x` and
    *x* -> x, hard line breaks ' +' and newlines -> one space."""
    text = re.sub(r"<<[^,>]*,([^>]*)>>", r"\1", text)
    text = re.sub(r"<<([^>]*)>>", r"\1", text)
    text = re.sub(r"\[\[[^\]]*\]\]", "", text)
    text = text.replace("`", "").replace("*", "").replace("__", "")
    text = re.sub(r"\s\+(\s|$)", " ", text)
    return " ".join(text.split())


def cells(body, ncols):
    """Rows of an AsciiDoc table body: cells start at '|' (a column span
    'N+' or a style letter may come right before it), rows are filled
    ncols cells at a time."""
    out, row = [], []
    parts = re.split(r"(?<!\\)\|", body)
    # parts[0] is what precedes the first '|' (a specifier at most).
    spans = [1]
    for i, p in enumerate(parts[1:], 1):
        span = 1
        m = re.search(r"(?:^|\s)(\d+)\+([adehlmsv])?$", p) or re.search(r"(?:^|\s)()([adehlmsv])$", p)
        if m and i < len(parts) - 1:
            if m.group(1):
                span = int(m.group(1))
            p = p[: m.start()]
        spans.append(span)
        parts[i] = p
    for i in range(1, len(parts)):
        row.append(parts[i])
        row.extend([""] * (spans[i - 1] - 1) if i > 1 else [])
        if len(row) >= ncols:
            out.append(row[:ncols])
            row = row[ncols:]
    return out


def tables(lines):
    """(title, ncols, rows) for every table: the '.Title' line, the
    [cols=...] attribute line and the body between the '|===' fences."""
    i = 0
    while i < len(lines):
        if not re.match(r"^\|={3,}\s*$", lines[i]):
            i += 1
            continue
        title, ncols = "", 0
        for k in range(i - 1, max(i - 5, -1), -1):
            m = re.match(r'^\[cols="([^"]*)"', lines[k])
            if m and not ncols:
                ncols = len(m.group(1).split(","))
            if lines[k].startswith(".") and not lines[k].startswith(".."):
                title = lines[k][1:].strip()
                break
        j = i + 1
        while j < len(lines) and not re.match(r"^\|={3,}\s*$", lines[j]):
            j += 1
        body = "\n".join(lines[i + 1 : j])
        if not ncols:
            first = next((l for l in lines[i + 1 : j] if l.startswith("|")), "")
            ncols = len(re.findall(r"(?<!\\)\|", first))
        yield i + 1, title, ncols, cells(body, ncols)
        i = j + 1


def short(text):
    """The first sentence, at most 80 characters: enough to name a value."""
    m = re.match(r"(.*?[.;])(\s|$)", text)
    return (m.group(1) if m else text)[:80]


def bits(text):
    m = re.fullmatch(r"(\d+)(?::(\d+))?", text.strip())
    if not m:
        return None
    hi = int(m.group(1))
    lo = int(m.group(2)) if m.group(2) is not None else hi
    return lo, hi - lo + 1


def enum_items(desc):
    """'*N:* text', '*N-M:* text', '*N..M:* text' items of a description,
    and bit masks '*xxxxx1xx:* text' (the value with that bit set)."""
    items = []
    pat = re.compile(r"\*(?:(\d+)(?:(?:-|\.\.)(\d+))?|([x01]{8})):?\*:?\s*")
    ms = list(pat.finditer(desc))
    for k, m in enumerate(ms):
        end = ms[k + 1].start() if k + 1 < len(ms) else len(desc)
        text = clean(desc[m.end() : end])
        if m.group(3):
            lo = hi = int(m.group(3).replace("x", "0"), 2)
        else:
            lo = int(m.group(1))
            hi = int(m.group(2)) if m.group(2) else lo
        items.append((lo, hi, text))
    return items


def tci(path):
    lines = open(path, encoding="utf-8").read().split("\n")
    regs, fields, values, layout = [], [], [], []
    for line, title, ncols, rows in tables(lines):
        if title.startswith("*Register Layout"):
            for r in rows[1:]:
                layout.append((clean(r[0]), clean(r[1]), clean(r[2]), short(clean(r[3])), line))
            continue
        m = re.match(r"^\*Register: (.*)\*$", title)
        if not m:
            continue
        head = m.group(1)
        names = [n for n in re.findall(r"\btr[A-Za-z_?]+", head) if "Base" not in n]
        name = names[0].replace("__i__", "{i}").replace("__j__", "{j}")
        off = re.search(r"\+\s*(0x[0-9A-Fa-f]+)(?:\.\.(0x[0-9A-Fa-f]+))?", head)
        stride = re.search(r"\+\s*(0x[0-9A-Fa-f]+)__[ij]__", head)
        regs.append((name, off.group(1), off.group(2) or "", stride.group(1) if stride else "", line))
        for r in rows[1:]:
            b = bits(clean(r[0]))
            if not b:
                continue
            fname = clean(r[1]) or "--"
            desc = r[2]
            # A reserved range keeps what it is reserved for; a field's
            # description stays in the spec.
            fields.append((name, fname, b[0], b[1], clean(r[3]), clean(r[4]),
                           short(clean(desc)) if fname == "--" else "", line))
            for lo, hi, text in enum_items(desc):
                values.append((name, fname, lo, hi, short(text), line))
    return regs, fields, values, layout


def ntrace(path):
    lines = open(path, encoding="utf-8").read().split("\n")
    msgs, common, limits, syncs, values, process, itypes, tcodes = [], [], [], [], [], [], [], []
    for line, title, ncols, rows in tables(lines):
        if title.endswith("Message Fields") and rows and clean(rows[0][1]) == "Name":
            # The message's name: the '=== <Name> Message' heading above.
            msg = ""
            for k in range(line - 1, 0, -1):
                h = re.match(r"^=== (\w+) Message\s*$", lines[k])
                if h:
                    msg = h.group(1)
                    break
            for n, r in enumerate(rows[1:]):
                size, fname, desc = clean(r[0]), clean(r[1]), r[2]
                tcode = re.search(r"Value=(\d+)", clean(desc))
                msgs.append((msg, n, fname.replace(" ", ""), size, tcode.group(1) if tcode else "", line))
                if fname not in ("TCODE", "SRC", "TSTAMP"):
                    for lo, hi, text in enum_items(desc):
                        values.append((fname, lo, hi, short(text), line))
        elif title == "Details of Common Fields":
            for r in rows[1:]:
                if clean(r[0]) in ("Name", "") or clean(r[0]).startswith("Fields used"):
                    continue
                common.append((clean(r[0]), clean(r[1]), clean(r[2]), line))
                for lo, hi, text in enum_items(r[3]):
                    values.append((clean(r[0]), lo, hi, short(text), line))
        elif title == "Maximum Field Sizes":
            for r in rows[1:]:
                limits.append((clean(r[0]), clean(r[1]), clean(r[2]), line))
        elif title.startswith("Encoding of PROCESS field"):
            for r in rows[1:]:
                process.append((int(clean(r[1]), 2), clean(r[0]), line))
        elif title.startswith("Handling of") and title.endswith("itype values"):
            for r in rows[1:]:
                itypes.append((int(clean(r[0])), clean(r[1]), line))
        elif title == "Fields in Messages":
            for r in rows[1:]:
                v = re.fullmatch(r"(\d+)(?:\.\.(\d+))?", clean(r[1]))
                if v:
                    tcodes.append((clean(r[0]), int(v.group(1)), int(v.group(2) or v.group(1)), line))
        elif title == "SYNC Field Values":
            for r in rows[1:]:
                v = re.fullmatch(r"(\d+)(?:\.\.(\d+))?", clean(r[0]))
                if v:
                    syncs.append((int(v.group(1)), int(v.group(2) or v.group(1)), clean(r[1]), clean(r[2]), line))
    return msgs, common, limits, syncs, values, process, itypes, tcodes


def etrace_bits(text):
    """A Bits cell of the E-Trace packet tables as plain text: markup
    (*x*, _x_, __x__, <<ref>>) and line breaks removed, '+' kept (it is
    arithmetic here, not a hard line break)."""
    text = re.sub(r"<<([^,>]*)(?:,[^>]*)?>>", r"\1", text)
    text = re.sub(r"\*(\S[^*]*?)\*", r"\1", text).replace("`", "")
    text = re.sub(r"(?<![A-Za-z0-9])_+|_+(?![A-Za-z0-9])", "", text)
    text = " ".join(text.split())
    return re.sub(r"\(\s+", "(", text)


def etrace(path):
    """Every packet table ('Field name', 'Bits', 'Description' columns):
    the table's title, each field in transmission order and its Bits."""
    lines = open(path, encoding="utf-8").read().split("\n")
    rows_out = []
    for line, title, ncols, rows in tables(lines):
        if not rows or clean(rows[0][0]) != "Field name" or clean(rows[0][1]) != "Bits":
            continue
        for n, r in enumerate(rows[1:]):
            rows_out.append((title, n, clean(r[0]), etrace_bits(r[1]), os.path.basename(path), line))
    return rows_out


def write(out, name, header, rows, source):
    with open(os.path.join(out, name), "w", encoding="utf-8") as f:
        f.write("# %s, extracted by tests/spec_tables/extract.py (CC-BY-4.0: README.md)\n" % source)
        f.write("\t".join(header) + "\n")
        for r in rows:
            f.write("\t".join(str(x) for x in r) + "\n")


def main():
    spec = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(ROOT), "shared/specs/trace")
    out = sys.argv[2] if len(sys.argv) > 2 else os.path.join(HERE, "data")
    os.makedirs(out, exist_ok=True)
    regs, fields, values, layout = tci(os.path.join(spec, TCI))
    src = "RISC-V Trace Control Interface 1.0 (%s)" % TCI
    write(out, "tci_registers.tsv", ["register", "offset", "last", "stride", "line"], regs, src)
    write(out, "tci_fields.tsv", ["register", "field", "lsb", "width", "rw", "reset", "reserved_for", "line"],
          fields, src)
    write(out, "tci_values.tsv", ["register", "field", "value", "last", "meaning", "line"], values, src)
    write(out, "tci_layout.tsv", ["offset", "register", "compliance", "meaning", "line"], layout, src)
    msgs, common, limits, syncs, nvalues, process, itypes, tcodes = ntrace(os.path.join(spec, NTRACE))
    src = "RISC-V N-Trace 1.0 (%s)" % NTRACE
    write(out, "ntrace_messages.tsv", ["message", "position", "field", "bits", "tcode", "line"], msgs, src)
    write(out, "ntrace_common_fields.tsv", ["field", "bits", "meaning", "line"], common, src)
    write(out, "ntrace_limits.tsv", ["field", "symbol", "bits", "line"], limits, src)
    write(out, "ntrace_sync.tsv", ["value", "last", "name", "required", "line"], syncs, src)
    write(out, "ntrace_values.tsv", ["field", "value", "last", "meaning", "line"], nvalues, src)
    write(out, "ntrace_process_format.tsv", ["format", "reason", "line"], process, src)
    write(out, "ntrace_itype.tsv", ["itype", "meaning", "line"], itypes, src)
    write(out, "ntrace_tcodes.tsv", ["message", "tcode", "last", "line"], tcodes, src)
    et = os.path.join(os.path.dirname(os.path.abspath(spec)), "etrace")
    pkts = etrace(os.path.join(et, ETRACE_INST)) + etrace(os.path.join(et, ETRACE_DATA))
    write(out, "etrace_packets.tsv", ["packet", "position", "field", "bits", "file", "line"], pkts,
          "E-Trace 2.0 (%s, %s)" % (ETRACE_INST, ETRACE_DATA))
    print("extract.py: %d E-Trace packet tables, %d fields; " % (len(set(r[0] for r in pkts)), len(pkts)), end="")
    print("extract.py: %d registers, %d fields, %d values; %d message rows, %d common fields, %d limits, "
          "%d SYNC values" % (len(regs), len(fields), len(values), len(msgs), len(common), len(limits), len(syncs)))


if __name__ == "__main__":
    main()
