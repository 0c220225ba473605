#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Compare a decoded N-Trace PC list with the insnlog plugin's record.

usage: compare.py DECODED RECORD [--min N] [--begin A[,A...]] [--end A[,A...]]
                  [--lost-head | --lost-tail | --within] [--priv P[,P...]]
                  [--trap-window ENTRY [--causes C[,C...]] [--irq 0|1]]
                  [--addr-range LO:HI | --latch P:S | --trig ON:OFF]
                  [--notify PC [--notify-count N]]
       compare.py --batch RECORD DECODED... [the same options]

Both files hold one "0xADDR" per line. The decoded trace must equal the
record's traced window instruction for instruction, from the first traced
instruction to the last: a trace that lost its head or its tail fails. Exit
0 on match.

The traced window is the whole record unless cut:
  --begin A    it starts at the first execution of any of the addresses A,
               the first instruction the encoder traces (suite 50: the one
               after the store that enables tracing; one address per caller
               of the enabling code may be given);
  --end A      it ends with the first execution of any of the addresses A
               at or after its start, the last traced instruction (suite
               50: the store that disables tracing).
Two documented exceptions, each only when the caller names it:
  --lost-head  the trace is known to have lost its beginning (an overflow
               test: the sink dropped messages, the encoder resynchronised
               with Error + SYNC=7): the decoded stream must equal the
               window's end, from wherever it resumed;
  --lost-tail  the trace is known to have lost its end (a buffer that
               stops when full, Ssamb SOF): the decoded stream must equal
               the window's beginning, up to wherever it stopped;
  --within     the record continues past both ends of the trace because the
               record does not show where tracing started and stopped
               (suite 52: one record of a whole run holds several traces,
               which the firmware starts and stops on other harts by IPI):
               any contiguous run of the record passes, and only --min
               bounds the trace's length.
--min N: the decoded trace has at least N instructions (default 1).
--batch: several decoded traces against one record, read once (suite 52
compares 3 to 5 traces with each hart's record of millions of lines): the
report of each DECODED goes to DECODED.cmp, and one line "STATUS DECODED"
per trace to stdout (STATUS: the exit status it had alone); exit 0 when
every one matched.

With insnlog priv=on the record's lines are "0xADDR PRIV [x|r]" ("x": the
instruction never retires, e.g. ecall; "r": a trap return), and the window
is then cut down to what the encoder's filters let through:
  --priv       instructions executed in those privilege levels
               (trTeFilterMatchChoicePrivilege);
  --trap-window ENTRY: trap windows (MatchEcause / MatchInterrupt): from
               the arrival at ENTRY (the payload's only trap vector) of a
               trap whose cause is in --causes and whose kind is --irq
               (1 interrupt, 0 exception), through the trap return that
               ends it, nested traps counted. A trap right after an "x"
               instruction is its exception (ecall: cause 8, 9 or 11 by
               privilege); any other arrival is the payload's only
               interrupt, the machine timer (cause 7).

Comparator filters and trigger actions (trTeComp*, Sdtrig trace-on/off)
cut the window down by instruction address, applied last:
  --addr-range LO:HI  instructions at LO <= address < HI (a comparator
               pair P >= LO, S < HI in match mode P && S);
  --latch P:S  match mode 3: from an execution of P through the next
               execution of S, inclusive (the output of instruction i is
               addr_i == P or (output_i-1 and addr_i-1 != S));
  --trig ON:OFF  trace-on and trace-off triggers: from an execution of ON
               (included) to the next execution of OFF (excluded).

--notify PC: a trace-notify trigger (Sdtrig action 4) at PC; DECODED comes
from `tsbi-trace ntrace decode --events`: besides the match, its "# notify
... addr=0xPC" lines (SYNC=6) must come exactly before each execution of PC,
nowhere else, as many as the record's window executes PC (a second line
says how many). With --notify-count N (E-Trace: the decoder's count of
packets with the notify bit flipped) only N is compared with the record.
"""
import array
import itertools
import re
import sys

ECALL_CAUSE = {0: 8, 1: 9, 3: 11}
TIMER_CAUSE = 7
DEPTH_MAX = 255


def load(path):
    out = []
    with open(path) as f:
        for line in f:
            if not line.startswith("0x"):
                continue
            w = line.split()
            priv = int(w[1]) if len(w) > 1 else None
            flag = w[2] if len(w) > 2 else ""
            out.append((int(w[0], 16), priv, flag))
    return out


# A record line as load() splits it: the address, then the privilege and the
# flag when present.
RECORD_LINE = re.compile(rb"^0x([0-9A-Fa-f]+)[ \t]*(\S*)[ \t]*(\S*)", re.M)


def load_addrs(path, privs):
    """The addresses of the record's lines whose privilege is in privs (any,
    when None) and that retire (flag other than "x"): what load(), the priv
    filter and the "x" filter give, in one pass over the file's bytes."""
    with open(path, "rb") as f:
        lines = RECORD_LINE.findall(f.read())
    ok = None
    if privs is not None:
        ok = {p for p in {p for _, p, _ in lines} if p and int(p) in privs}
        return [int(a, 16) for a, p, f in lines if p in ok and f != b"x"]
    return [int(a, 16) for a, _, f in lines if f != b"x"]


def load_decoded(path):
    """The addresses of the lines of a decoded trace (those load() reads)."""
    with open(path, "rb") as f:
        return [int(a, 16) for a in DECODED_LINE.findall(f.read())]


DECODED_LINE = re.compile(rb"^0x([0-9A-Fa-f]+)", re.M)


EVENT_OR_PC = re.compile(rb"^(0x[0-9A-Fa-f]+|# notify at offset \d+: addr=0x[0-9A-Fa-f]+)", re.M)


def check_notify(path, rec, pc, count, out):
    """Trace-notify at pc: one notify line before each decoded execution of
    pc, none elsewhere, as many as the record's window executes pc (count:
    only the number of notifications is known)."""
    want = sum(1 for a in rec if a == pc)
    if count is not None:
        print(f"notify: {count} notify packets, the record executes {pc:#x} {want} times", file=out)
        return 0 if count == want else 1
    with open(path, "rb") as f:
        lines = EVENT_OR_PC.findall(f.read())
    got, bad, n = 0, [], 0
    for i, line in enumerate(lines):
        if line.startswith(b"#"):
            got += 1
            addr = int(line.rsplit(b"=", 1)[1], 16)
            nxt = lines[i + 1] if i + 1 < len(lines) else b"#"
            if addr != pc or nxt.startswith(b"#") or int(nxt, 16) != pc:
                bad.append(f"notify {got} at {addr:#x} before {nxt.decode()} (decoded instruction {n})")
            continue
        if int(line, 16) == pc and (i == 0 or not lines[i - 1].startswith(b"#")):
            bad.append(f"decoded instruction {n} at {pc:#x} without a notify before it")
        n += 1
    if got != want or bad:
        print(f"notify: {got} notify messages, the record executes {pc:#x} {want} times; "
              + "; ".join(bad[:5]), file=out)
        return 1
    print(f"notify: {got} notify messages, each before an execution of {pc:#x} "
          f"(the record executes it {want} times)", file=out)
    return 0


def window(path, begin, end, privs, entry, causes, irq):
    """The record's traced window as compared (cut, filtered by privilege,
    trap windows or retiring instructions), or an error message: what
    load(), cut() and the filters give, the lines turned into tuples only
    within the window."""
    with open(path, "rb") as f:
        lines = RECORD_LINE.findall(f.read())
    addrs = [int(a, 16) for a, _, _ in lines]
    lo, hi = 0, len(addrs)
    if begin is not None:
        lo = next((i for i, a in enumerate(addrs) if a in begin), -1)
        if lo < 0:
            return None, "the record never executes a --begin address (%s)" % fmt(begin)
    if end is not None:
        hi = next((i + 1 for i in range(lo, len(addrs)) if addrs[i] in end), -1)
        if hi < 0:
            return None, "the record never executes an --end address (%s) after its start" % fmt(end)
    if entry is None:
        ok = None if privs is None else {p for p in {p for _, p, _ in lines[lo:hi]} if p and int(p) in privs}
        return [addrs[i] for i in range(lo, hi)
                if lines[i][2] != b"x" and (ok is None or lines[i][1] in ok)], None
    pv = {p: int(p) if p else None for p in {p for _, p, _ in lines[lo:hi]}}
    fl = {f: f.decode() for f in {f for _, _, f in lines[lo:hi]}}
    rec = [(addrs[i], pv[lines[i][1]], fl[lines[i][2]]) for i in range(lo, hi)]
    if privs is not None:
        rec = [r for r in rec if r[1] in privs]
    return trap_windows(rec, entry, causes, irq), None


def addr_filter(addrs, rng, latch, trig):
    """The addresses a comparator filter or trigger pair lets through."""
    if rng is not None:
        lo, hi = rng
        return [a for a in addrs if lo <= a < hi]
    out = []
    if latch is not None:
        p, s = latch
        on, s_last = False, False
        for a in addrs:
            on = a == p or (on and not s_last)
            s_last = a == s
            if on:
                out.append(a)
        return out
    if trig is not None:
        t_on, t_off = trig
        on = False
        for a in addrs:
            if a == t_on:
                on = True
            elif a == t_off:
                on = False
            if on:
                out.append(a)
        return out
    return addrs


def trap_windows(rec, entry, causes, irq):
    out, depth, pending = [], 0, None
    for addr, priv, flag in rec:
        if flag == "x":
            pending = ECALL_CAUSE.get(priv, -1)
            continue
        if addr == entry:
            interrupt = pending is None
            cause = TIMER_CAUSE if interrupt else pending
            pending = None
            if depth:
                depth = min(depth + 1, DEPTH_MAX)
            elif (causes is None or cause in causes) and (irq is None or interrupt == irq):
                depth = 1
        if depth:
            out.append(addr)
            if flag == "r":
                depth -= 1
    return out


MAX_CANDIDATES = 2000
HASH_MOD = (1 << 61) - 1
HASH_BASE = 1000003


def find_run(rec, dec):
    """Index where dec occurs in rec as one contiguous run, or -1: the first
    8-byte-aligned match of dec's addresses packed as 64-bit words in rec's
    (bytes.find is linear, also when the trace starts in a loop and every
    iteration is a candidate start)."""
    k = len(dec)
    if k == 0 or k > len(rec):
        return -1
    try:
        hay, needle = array.array("Q", rec).tobytes(), array.array("Q", dec).tobytes()
    except OverflowError:
        return find_run_hash(rec, dec)
    i = hay.find(needle)
    while i >= 0 and i % 8:
        i = hay.find(needle, i + 1)
    return i // 8 if i >= 0 else -1


def find_run_hash(rec, dec):
    """find_run for addresses beyond 64 bits: a rolling hash keeps it linear."""
    k = len(dec)
    target = 0
    for pc in dec:
        target = (target * HASH_BASE + pc) % HASH_MOD
    top = pow(HASH_BASE, k - 1, HASH_MOD)
    h = 0
    for i, pc in enumerate(rec):
        if i >= k:
            h = (h - rec[i - k] * top) % HASH_MOD
        h = (h * HASH_BASE + pc) % HASH_MOD
        if i >= k - 1 and h == target and rec[i - k + 1:i + 1] == dec:
            return i - k + 1
    return -1


def option(args, name, conv):
    if name not in args:
        return None
    i = args.index(name)
    v = conv(args[i + 1])
    del args[i:i + 2]
    return v


def flag(args, name):
    if name not in args:
        return False
    args.remove(name)
    return True


def cut(rec, begin, end):
    """The record's traced window (a list of its lines) for --begin/--end,
    or an error message."""
    lo, hi = 0, len(rec)
    if begin is not None:
        lo = next((i for i, r in enumerate(rec) if r[0] in begin), -1)
        if lo < 0:
            return None, "the record never executes a --begin address (%s)" % fmt(begin)
    if end is not None:
        hi = next((i + 1 for i in range(lo, len(rec)) if rec[i][0] in end), -1)
        if hi < 0:
            return None, "the record never executes an --end address (%s) after its start" % fmt(end)
    return rec[lo:hi], None


def fmt(addrs):
    return ",".join(f"{a:#x}" for a in sorted(addrs))


def mismatch(rec, dec):
    """Where dec departs from the record: the longest matching prefix of dec
    from the first candidates (an idle loop at the start makes every
    iteration a candidate)."""
    best = (-1, 0)
    for start in itertools.islice((i for i, pc in enumerate(rec) if pc == dec[0]), MAX_CANDIDATES):
        n = 0
        lim = min(len(dec), len(rec) - start)
        while n < lim and rec[start + n] == dec[n]:
            n += 1
        if n > best[1]:
            best = (start, n)
    start, n = best
    if start < 0:
        return f"first decoded address {dec[0]:#x} never executed in the window"
    got = f"{dec[n]:#x}" if n < len(dec) else "end"
    want = f"{rec[start + n]:#x}" if start + n < len(rec) else "end"
    return (f"mismatch after {n} of {len(dec)} instructions: decoded {got}, "
            f"executed {want} (record index {start + n})")


def check(dec, rec, minimum, lost_head, lost_tail, within, out):
    """One decoded trace against the record's window; writes the report to
    out, returns the exit status."""
    if len(dec) < minimum:
        print(f"decoded {len(dec)} instructions, fewer than {minimum}", file=out)
        return 1
    if within:
        start = find_run(rec, dec)
    elif lost_head:
        start = len(rec) - len(dec) if 0 < len(dec) <= len(rec) and rec[len(rec) - len(dec):] == dec else -1
    elif lost_tail:
        start = 0 if 0 < len(dec) <= len(rec) and rec[:len(dec)] == dec else -1
    else:
        start = 0 if dec == rec else -1
    if start >= 0:
        print(f"{len(dec)} decoded instructions equal the record "
              f"(record index {start}..{start + len(dec) - 1} of {len(rec)})", file=out)
        return 0
    if not dec:
        print(f"decoded nothing, the window holds {len(rec)} instructions", file=out)
        return 1
    # A contiguous part of the window that is not the part required: say
    # which end is missing and how much of it.
    start = find_run(rec, dec)
    if start >= 0:
        miss = []
        if start > 0 and not lost_head:
            miss.append(f"its head: the first {start} instructions "
                        f"({rec[0]:#x} .. {rec[start - 1]:#x})")
        tail = len(rec) - start - len(dec)
        if tail > 0 and not lost_tail:
            miss.append(f"its tail: the last {tail} instructions "
                        f"({rec[start + len(dec)]:#x} .. {rec[-1]:#x})")
        print(f"{len(dec)} decoded instructions equal record index {start}..{start + len(dec) - 1} "
              f"of {len(rec)}, but the trace misses " + " and ".join(miss), file=out)
        return 1
    print(mismatch(rec, dec), file=out)
    return 1


def main():
    args = sys.argv[1:]
    minimum = option(args, "--min", int) or 1
    ints = lambda s: {int(x, 0) for x in s.split(",")}
    privs = option(args, "--priv", ints)
    entry = option(args, "--trap-window", lambda s: int(s, 0))
    causes = option(args, "--causes", ints)
    irq = option(args, "--irq", lambda s: bool(int(s)))
    begin = option(args, "--begin", ints)
    end = option(args, "--end", ints)
    lost_head = flag(args, "--lost-head")
    lost_tail = flag(args, "--lost-tail")
    within = flag(args, "--within")
    batch = flag(args, "--batch")
    pair = lambda s: tuple(int(x, 0) for x in s.split(":"))
    rng = option(args, "--addr-range", pair)
    latch = option(args, "--latch", pair)
    trig = option(args, "--trig", pair)
    notify = option(args, "--notify", lambda s: int(s, 0))
    notify_count = option(args, "--notify-count", int)
    if lost_head + lost_tail + within > 1:
        print("--lost-head, --lost-tail and --within exclude each other")
        return 2
    if len(args) < 2 or (len(args) != 2 and not batch):
        print(__doc__.strip().split("\n\n")[1])
        return 2
    record, decoded = (args[0], args[1:]) if batch else (args[1], args[:1])
    if begin is None and end is None and entry is None:
        rec = load_addrs(record, privs)
    else:
        rec, err = window(record, begin, end, privs, entry, causes, irq)
        if err:
            print(err)
            return 1
    rec = addr_filter(rec, rng, latch, trig)
    if not batch:
        rc = check(load_decoded(decoded[0]), rec, minimum, lost_head, lost_tail, within, sys.stdout)
        if notify is not None:
            rc = max(rc, check_notify(decoded[0], rec, notify, notify_count, sys.stdout))
        return rc
    worst = 0
    for path in decoded:
        with open(path + ".cmp", "w") as out:
            rc = check(load_decoded(path), rec, minimum, lost_head, lost_tail, within, out)
        print(rc, path)
        worst = max(worst, rc)
    return worst


if __name__ == "__main__":
    sys.exit(main())
