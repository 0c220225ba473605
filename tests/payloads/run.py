#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Run S-mode test payloads under QEMU and turn their output into suite lines.

    run.py [options] PAYLOAD...

PAYLOAD is a name (base -> build/payloads/base.elf) or a path to an ELF.
Each payload prints "PASS: <payload>/<case>" / "FAIL: <payload>/<case> ..."
and "TSBI-DONE passed=N failed=M", then powers the machine off. This script
re-prints every case as "PASS|FAIL: <tag>/<payload>/<case>" and adds its own:
  <payload>/done       TSBI-DONE seen, its counts match the lines printed, and
                       the payload reported at least one case (PASS, FAIL, N/A)
  <payload>/power_off  QEMU exited by itself after TSBI-DONE (allowed status)
  <payload>/hang       the run hit --timeout (no DONE, or no power-off)
  <payload>/boots      (reboot payload) the payload started the expected times
A payload line "TSBI-SEND: <text>" makes the runner type <text> into the
console; "TSBI-FWTEXT: <label>" (payloads in PAYLOAD_FWTEXT, run with a QEMU
monitor socket) makes it compare the firmware's text and read-only data in
guest memory (monitor pmemsave) with the firmware ELF, report case
"<payload>/fw_text_<label>" and then type "+"; "TSBI-EXPECT: <case> <text>" makes it check that a later console line
is exactly <text> (PASS/FAIL <payload>/<case>): output written by the
firmware on the payload's behalf (DBCN write, putchar) is checked this way. With --known FILE, FAIL lines whose case matches a pattern in FILE
are printed as "INFO: ... known difference" and not counted (for comparison
runs against other firmware). With --conformance (conformance.py) the
payloads get bootarg conformance=1, and a payload the firmware hangs or
resets before TSBI-DONE is rerun with bootarg skip=<clause> (the clause of
the last CHECK-BEGIN line; up to MAX_RERUNS times); --results appends every
check with its clause as a JSON line. With --stack-report FILE (this
firmware only) every M-mode stack is painted before the run (a QEMU loader
device) and read back when the payload, given bootarg stacks=1, prints
"TSBI-STACKS" after TSBI-DONE (monitor pmemsave; the runner then types "+"): case
"<payload>/stack_margin" checks each hart kept STACK_MARGIN bytes unused,
and FILE gets one line per hart with the bytes it used (the high-water
mark). Exit status 0 when nothing FAILed.
See tests/payloads/README.md.
"""
import argparse
import fnmatch
import json
import os
import re
import select
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
OPENSBI_11 = "/usr/lib/riscv64-linux-gnu/opensbi/generic/fw_dynamic.bin"
FIRMWARE = {
    "ours": os.path.join(ROOT, "build/fw/tsbi_dynamic.bin"),
    "ours-jump": os.path.join(ROOT, "build/fw/tsbi_jump.bin"),
    "opensbi": OPENSBI_11,
    "opensbi-jump": "/usr/lib/riscv64-linux-gnu/opensbi/generic/fw_jump.bin",
}
# RV32 (--xlen 32): our images from build/fw-generic-rv32, payloads from
# build/payloads-rv32 (make payloads PL_XLEN=32), QEMU's riscv32 system
# emulator, and Debian trixie's OpenSBI 1.6 RV32 as the peer (Debian's 1.1
# has no RV32 image; scripts/opensbi.sh fetches 1.6).
FIRMWARE_RV32 = {
    "ours": os.path.join(ROOT, "build/fw-generic-rv32/tsbi_dynamic.bin"),
    "ours-jump": os.path.join(ROOT, "build/fw-generic-rv32/tsbi_jump.bin"),
}


def firmware_path(name, xlen):
    if xlen == 64:
        return FIRMWARE.get(name, name)
    if name in FIRMWARE_RV32:
        return FIRMWARE_RV32[name]
    if name in ("opensbi", "opensbi-jump"):
        try:
            dyn = subprocess.run([os.path.join(ROOT, "scripts/opensbi.sh"), "path", "1.6", "32"],
                                 check=True, capture_output=True, text=True).stdout.strip()
        except (OSError, subprocess.CalledProcessError) as e:
            return "(opensbi 1.6 rv32: %s)" % e
        return dyn if name == "opensbi" else os.path.join(os.path.dirname(dyn), "fw_jump.bin")
    return name


# Per-payload QEMU settings the payload relies on (keep in sync with the
# payload sources): -cpu properties, expected number of starts, allowed exit
# statuses of QEMU after the final shutdown.
PAYLOAD_CPU = {
    "base": "mvendorid=0x489,marchid=0x8000000000000007,mimpid=0x20181004",
}
# base.cpp's kCpuMarchid: the top bit of an XLEN-wide marchid, plus 7.
PAYLOAD_CPU_RV32 = {
    "base": "mvendorid=0x489,marchid=0x80000007,mimpid=0x20181004",
}
PAYLOAD_BOOTS = {"reboot": 3}
PAYLOAD_EXIT = {"srst": (0, 1)}
# Payloads that legitimately run longer (OpenSBI 1.1 needs ~12 s for rfence
# on 4 harts; the fuzz payload ~40 s on 4 busy harts of a loaded 2-core host):
# their timeout is --timeout times this factor.
PAYLOAD_TIMEOUT_FACTOR = {"rfence": 3, "fuzz": 10}
# Payloads that ask (TSBI-FWTEXT) for the firmware-text comparison; they run
# with a QEMU monitor socket.
PAYLOAD_FWTEXT = {"fuzz"}
# --stack-report: the bytes every hart's M-mode stack must keep unused, and
# the paint (a word no stack is likely to hold; QEMU's RAM starts as zeros,
# which a zero stored at the deepest point would hide).
STACK_MARGIN = 512
STACK_PAINT = bytes.fromhex("e8c3175a3ca5f00d")


def elf_readonly_sections(path):
    """(name, address, bytes) of every allocated, non-writable section with
    contents (SHT_PROGBITS) of a little-endian ELF64 file: the firmware's text
    and read-only data, which must stay as loaded."""
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF" or data[4] != 2 or data[5] != 1:
        raise ValueError("%s: not a little-endian ELF64 file" % path)
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    def sh(i):
        return struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
    stroff = sh(shstrndx)[4]
    out = []
    for i in range(shnum):
        name, typ, flags, addr, off, size = sh(i)[:6]
        SHT_PROGBITS, SHF_WRITE, SHF_ALLOC = 1, 1, 2
        if typ == SHT_PROGBITS and flags & SHF_ALLOC and not flags & SHF_WRITE and size:
            end = data.index(b"\0", stroff + name)
            out.append((data[stroff + name:end].decode(), addr, data[off:off + size]))
    return out


class Monitor:
    """The QEMU human monitor on a unix socket."""

    def __init__(self, path, timeout=10):
        deadline = time.monotonic() + timeout
        while True:
            try:
                self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                self.s.connect(path)
                break
            except OSError:
                self.s.close()
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)
        self.s.settimeout(timeout)
        self._until_prompt()

    def _until_prompt(self):
        buf = b""
        while not buf.endswith(b"(qemu) "):
            chunk = self.s.recv(4096)
            if not chunk:
                raise OSError("monitor closed")
            buf += chunk
        return buf

    def cmd(self, text):
        self.s.sendall(text.encode() + b"\n")
        return self._until_prompt().decode("utf-8", "replace")

    def close(self):
        self.s.close()


def fw_limit(name):
    """A #define of firmware/include/fw_limits.h (written once there)."""
    with open(os.path.join(ROOT, "firmware/include/fw_limits.h")) as f:
        m = re.search(r"^#define %s (\d+)" % name, f.read(), re.M)
    if not m:
        raise ValueError("no %s in fw_limits.h" % name)
    return int(m.group(1))


def stack_area(fw, smp):
    """(address, bytes, bytes per hart, boot stack bytes, address and size of
    fw_stacks_base) of the firmware's M-mode stacks: the boot hart's
    cold-boot stack (fw_boot_stack, core/entry.S), right below _fw_end, then
    what cold boot carves from _fw_end on (core/init.cpp, carve_harts): the
    harts' descriptions (and a hart-ID table), then one stack per hart index
    from fw_stacks_base, which the firmware sets and stack_high_water reads.
    The painted area has room for the descriptions before the smp stacks."""
    elf = firmware_elf(fw)
    if not elf:
        raise ValueError("no ELF next to %s" % fw)
    out = subprocess.run(["riscv64-linux-gnu-nm", "-S", elf], capture_output=True, text=True,
                         check=True).stdout
    boot = end = base = None
    for line in out.splitlines():
        f = line.split()
        if len(f) == 4 and f[3] == "fw_boot_stack":
            boot = int(f[0], 16), int(f[1], 16)
        elif len(f) == 4 and f[3] == "fw_stacks_base":
            base = int(f[0], 16), int(f[1], 16)
        elif len(f) == 3 and f[2] == "_fw_end":
            end = int(f[0], 16)
    if boot is None or end is None or base is None:
        raise ValueError("no fw_boot_stack, fw_stacks_base or _fw_end symbol in %s" % elf)
    if boot[0] + boot[1] != end:
        raise ValueError("the boot stack does not end at _fw_end in %s" % elf)
    per = 1 << fw_limit("FW_STACK_SHIFT")
    # A 24-byte description a hart, rounded up to whole stacks, and one more
    # for the alignment of the first stack.
    before = (smp * 24 + per - 1) // per * per + per
    return boot[0], boot[1] + before + smp * per, per, boot[1], base


def stack_high_water(monitor_path, area, smp, workdir):
    """Bytes used of the boot stack and of each of the first `smp` harts'
    stacks: from the stack's top down to its lowest word that no longer
    holds the paint."""
    addr, size, per, boot, (base_at, base_size) = area
    mon = Monitor(monitor_path)
    dump = os.path.join(workdir, "stacks.bin")
    base_dump = os.path.join(workdir, "stacks_base.bin")
    try:
        mon.cmd("stop")
        out = mon.cmd("pmemsave 0x%x 0x%x \"%s\"" % (addr, size, dump))
        mon.cmd("pmemsave 0x%x 0x%x \"%s\"" % (base_at, base_size, base_dump))
        mon.cmd("cont")
    finally:
        mon.close()
    if not os.path.exists(dump) or not os.path.exists(base_dump):
        raise OSError("pmemsave failed: %s" % out.splitlines()[-2:])
    with open(dump, "rb") as f:
        data = f.read()
    with open(base_dump, "rb") as f:
        first = int.from_bytes(f.read(), "little") - addr  # hart index 0's stack
    if first < boot or first + smp * per > len(data):
        raise ValueError("fw_stacks_base 0x%x outside the painted area" % (first + addr))
    def depth(stack):
        low = next((i for i in range(0, len(stack), len(STACK_PAINT))
                    if stack[i:i + len(STACK_PAINT)] != STACK_PAINT), len(stack))
        return len(stack) - low
    used = [depth(data[first + h * per:first + (h + 1) * per]) for h in range(smp)]
    return depth(data[:boot]), used


def firmware_elf(fw):
    elf = os.path.splitext(fw)[0] + ".elf"
    return elf if os.path.exists(elf) else None


def check_fw_text(monitor_path, fw, workdir):
    """Compares the firmware's read-only sections in guest memory with its
    ELF. Returns (ok, details)."""
    elf = firmware_elf(fw)
    if not elf:
        return False, "no ELF next to %s" % fw
    try:
        secs = elf_readonly_sections(elf)
        mon = Monitor(monitor_path)
    except (OSError, ValueError) as e:
        return False, "cannot compare: %s" % e
    try:
        bad = []
        for name, addr, want in secs:
            dump = os.path.join(workdir, "sec.bin")
            out = mon.cmd("pmemsave 0x%x 0x%x \"%s\"" % (addr, len(want), dump))
            if not os.path.exists(dump):
                bad.append("%s: pmemsave failed: %s" % (name, out.splitlines()[-2:]))
                continue
            with open(dump, "rb") as f:
                got = f.read()
            if got != want:
                diff = next((i for i in range(min(len(got), len(want))) if got[i] != want[i]),
                            min(len(got), len(want)))
                bad.append("%s differs at 0x%x" % (name, addr + diff))
        total = sum(len(w) for _, _, w in secs)
        if bad:
            return False, "; ".join(bad)
        return True, "%d bytes in %s" % (total, ", ".join(n for n, _, _ in secs))
    finally:
        mon.close()

# M-mode firmware messages that may arrive in the middle of a payload line
# (e.g. printed by a hart being started); the runner re-joins the line.
FIRMWARE_MARKERS = ("tsbi: ",)
LINE_RE = re.compile(r"^(PASS|FAIL): (\S+)(?: @(\S+))?(?: (.*))?$")
# Not counted by TSBI-DONE: a check that does not apply, an implementation
# fact (lib/payload.hpp not_applicable(), info()).
OTHER_RE = re.compile(r"^(N/A|INFO): (\S+)(?: @(\S+))?(?: (.*))?$")
BEGIN_RE = re.compile(r"^CHECK-BEGIN: (\S+) (\S+)")
DONE_RE = re.compile(r"^TSBI-DONE passed=(\d+) failed=(\d+)")


def load_known(path):
    known = []
    if not path:
        return known
    with open(path) as f:
        for raw in f:
            line = raw.strip()
            if not line or line.startswith("#"):
                continue
            pat, _, why = line.partition(" ")
            known.append((pat, why.strip()))
    return known


def match_known(known, case, smp):
    for pat, why in known:
        # "pattern@smpN" restricts a pattern to one hart count.
        p, _, only = pat.partition("@")
        if only and only != "smp%d" % smp:
            continue
        if fnmatch.fnmatchcase(case, p):
            return why
    return None


class Reporter:
    """Prints one line per case. For this firmware: PASS/FAIL (counted by
    tests/run_all.sh). For a peer (--peer, or an OpenSBI image): "PEER: <tag>/
    <case> pass|fail|known [details]", which run_all.sh puts in its comparison
    table and never counts: a peer's behaviour cannot fail our suite."""
    def __init__(self, tag, known, smp, results=None, peer=False):
        self.tag, self.known, self.smp, self.peer = tag, known, smp, peer
        self.failed = 0
        self.passed = 0
        self.known_hits = 0
        self.results = results  # file of JSON lines (--results), or None
        self.seen = None        # cases of earlier runs of this payload, while it is rerun
        self.current = set()    # cases of this run

    def record(self, status, case, details="", clause=None, origin="payload"):
        """One line of the --results file: every check with its clause.
        Returns False for a case a rerun of the payload repeats (recorded as
        "dup": the first run's result stands)."""
        dup = self.seen is not None and case in self.seen
        self.current.add(case)
        if self.results:
            self.results.write(json.dumps({
                "tag": self.tag, "smp": self.smp, "case": case,
                "status": "dup" if dup else status, "dup_of": status if dup else None,
                "clause": clause, "details": details, "origin": origin}) + "\n")
        return not dup

    def result(self, ok, case, details="", clause=None, origin="payload"):
        if not self.record("pass" if ok else "fail", case, details, clause, origin):
            return
        name = "%s/%s" % (self.tag, case)
        if self.peer:
            why = match_known(self.known, case, self.smp)
            status = "pass" if ok else "known" if why else "fail"
            print("PEER: %s %s %s" % (name, status, details if not ok else ""))
            if ok:
                self.passed += 1
            else:
                self.known_hits += bool(why)
                self.failed += not why
            return
        if ok:
            why = match_known(self.known, case, self.smp)
            if why:
                print("INFO: %s passed although listed as known difference (%s)" % (name, why))
            print("PASS: %s" % name)
            self.passed += 1
            return
        why = match_known(self.known, case, self.smp)
        if why:
            print("INFO: %s known difference: %s [%s]" % (name, why, details))
            self.known_hits += 1
            return
        print("FAIL: %s %s%s" % (name, "@%s " % clause if clause else "", details))
        self.failed += 1


def resolve_payload(p, xlen=64):
    if os.path.exists(p):
        return os.path.abspath(p), os.path.splitext(os.path.basename(p))[0]
    path = os.path.join(ROOT, "build/payloads%s/%s.elf" % ("" if xlen == 64 else "-rv32", p))
    return path, p


# Reruns of one payload after the firmware hung or reset the machine in a
# clause (conformance mode): each skips one more clause (bootarg skip=).
MAX_RERUNS = 3


def run_one(args, fw, qemu, payload, rep, log):
    """Runs a payload; in conformance mode, reruns it skipping the clause
    that hung or reset the machine, so the checks after it still run."""
    skip = []
    rep.seen = set() if args.conformance else None
    while True:
        rep.current = set()
        stuck = run_attempt(args, fw, qemu, payload, rep, log, skip)
        if rep.seen is not None:
            rep.seen |= rep.current
        if not args.conformance or stuck is None or stuck in skip or len(skip) >= MAX_RERUNS:
            break
        skip.append(stuck)
        log.write("(runner: rerun skipping %s)\n" % ",".join(skip))
    rep.seen = None


def run_attempt(args, fw, qemu, payload, rep, log, skip):
    """One QEMU run of a payload. Returns the clause that was running when
    the firmware hung or reset the machine before TSBI-DONE, else None."""
    elf, name = resolve_payload(payload, args.xlen)
    if not os.path.exists(elf):
        rep.result(False, "%s/build" % name, "missing %s (run make payloads)" % elf)
        return None
    cpu = args.cpu_model or "rv%d" % args.xlen
    own = None if args.no_payload_cpu else (PAYLOAD_CPU if args.xlen == 64 else PAYLOAD_CPU_RV32).get(name)
    extras = [x for x in (own, args.cpu) if x]
    if extras:
        cpu += "," + ",".join(extras)
    cmd = [qemu, "-M", args.machine, "-m", args.mem, "-nographic", "-bios", fw, "-kernel", elf,
           "-smp", str(args.smp)]
    if args.machine != "sifive_u":  # its harts are the SoC's own E51 and U54 cores
        cmd += ["-cpu", cpu]
    if args.icount:
        cmd += ["-icount", "shift=0"]
    bootargs = []
    if args.conformance:
        bootargs.append("conformance=1" + (" skip=" + ",".join(skip) if skip else ""))
    workdir = monitor_path = None
    stacks = None  # --stack-report: (address, bytes, bytes per hart, boot stack bytes)
    if args.stack_report:
        try:
            stacks = stack_area(fw, args.smp)
        except (OSError, ValueError, subprocess.CalledProcessError) as e:
            rep.result(False, "%s/stack_margin" % name, "cannot paint the stacks: %s" % e,
                       origin="runner")
    if name in PAYLOAD_FWTEXT or stacks:
        workdir = tempfile.mkdtemp(prefix="tsbi-run-")
        monitor_path = os.path.join(workdir, "monitor.sock")
        cmd += ["-monitor", "unix:%s,server=on,wait=off" % monitor_path]
    if stacks:
        paint = os.path.join(workdir, "paint.bin")
        with open(paint, "wb") as f:
            f.write(STACK_PAINT * (stacks[1] // len(STACK_PAINT)))
        cmd += ["-device", "loader,file=%s,addr=0x%x,force-raw=on" % (paint, stacks[0])]
        bootargs.append("stacks=1")  # the payload prints TSBI-STACKS and waits
    if bootargs:
        cmd += ["-append", " ".join(bootargs)]
    if args.chosen:
        # QEMU's own device tree for this machine (its -M options included),
        # with the /chosen string properties added.
        if workdir is None:
            workdir = tempfile.mkdtemp(prefix="tsbi-run-")
        dtb = os.path.join(workdir, "chosen.dtb")
        # -numa and the memory backends it names shape the tree too (NUMA
        # sockets: memory and cpu nodes, virt's hartid-bases).
        shaping = ("-M", "-machine", "-numa", "-object")
        margs = [a for i, a in enumerate(args.qemu_arg)
                 if a in shaping or (i and args.qemu_arg[i - 1] in shaping)]
        cpuargs = ["-cpu", cpu] if "-cpu" in cmd else []
        dump = [qemu, "-M", "%s,dumpdtb=%s" % (args.machine, dtb), "-m", args.mem, "-nographic",
                "-bios", "none", "-smp", str(args.smp)] + cpuargs + margs
        name = "dtb"
        r = subprocess.run(dump, stdin=subprocess.DEVNULL, capture_output=True, text=True)
        if "-dtb" in args.qemu_arg:
            r = subprocess.CompletedProcess(["--chosen"], 1, "", "--chosen with --qemu-arg=-dtb")
        for prop in args.chosen if r.returncode == 0 else []:
            name, _, value = prop.partition("=")
            r = subprocess.run(["fdtput", "-t", "s", dtb, "/chosen", name, value], capture_output=True, text=True)
            if r.returncode:
                break
        if r.returncode:
            rep.result(False, "%s/chosen" % name, "cannot make the device tree: %s %s" %
                       (" ".join(r.args), (r.stderr or r.stdout).strip()[-200:]), origin="runner")
            shutil.rmtree(workdir, ignore_errors=True)
            return None
        cmd += ["-dtb", dtb]
    cmd += args.qemu_arg
    log.write("$ %s\n" % " ".join(cmd))
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)
    # A hang is silence: the timeout runs from the last console output, as a
    # loaded host only makes a payload print more slowly; 4 x timeout in all.
    timeout = args.timeout * PAYLOAD_TIMEOUT_FACTOR.get(name, 1)
    started = time.monotonic()
    deadline = started + timeout
    buf = b""
    lines = []
    cases = []           # (ok, case, details) of the current boot
    all_cases = []
    boots = 0
    done = None          # (passed, failed, lines since start ok?)
    expects = []         # [case, text, seen]
    runner_cases = []    # (ok, case, details) the runner checked itself
    others = []          # (status, case, details, clause): N/A and INFO lines
    timed_out = False
    reset = None         # (clause, last case) when the payload started once too often
    running = [None]     # clause of the last CHECK-BEGIN (any hart)
    last_case = [None]
    max_boots = PAYLOAD_BOOTS.get(name, 1)
    stacks_read = [False]

    def resume_payload():
        """The payload waits for '+' on its console after a runner request."""
        try:
            proc.stdin.write(b"+")
            proc.stdin.flush()
        except OSError:
            pass

    def handle(line):
        nonlocal boots, done, cases, reset
        lines.append(line)
        for e in expects:
            if not e[2] and line == e[1]:
                e[2] = True
        log.write(line + "\n")
        if args.verbose:
            print("| " + line)
        if line.startswith("TSBI-START"):
            boots += 1
            cases = []
            if boots > max_boots and reset is None:
                # The firmware reset the machine under the payload: the
                # clause that was running caused it; stop here.
                reset = (running[0], last_case[0])
            return
        m = BEGIN_RE.match(line)
        if m:
            running[0] = m.group(2)
            return
        m = LINE_RE.match(line)
        if m:
            c = (m.group(1) == "PASS", m.group(2), m.group(4) or "", m.group(3))
            cases.append(c)
            all_cases.append(c)
            last_case[0] = c[1]
            return
        m = OTHER_RE.match(line)
        if m:
            others.append(("na" if m.group(1) == "N/A" else "info", m.group(2), m.group(4) or "",
                           m.group(3)))
            return
        if line.startswith("TSBI-EXPECT: "):
            case, _, text = line[len("TSBI-EXPECT: "):].partition(" ")
            expects.append([case, text, False, running[0]])
            return
        if line.startswith("TSBI-SEND: "):
            try:
                proc.stdin.write(line[len("TSBI-SEND: "):].encode())
                proc.stdin.flush()
            except OSError:
                pass
            return
        if line.startswith("TSBI-FWTEXT: "):
            label = line[len("TSBI-FWTEXT: "):].strip()
            if monitor_path:
                ok, details = check_fw_text(monitor_path, fw, workdir)
            else:
                ok, details = False, "payload not in PAYLOAD_FWTEXT (no monitor)"
            log.write("(runner: fw_text_%s: %s)\n" % (label, details))
            runner_cases.append((ok, "%s/fw_text_%s" % (name, label), details))
            resume_payload()
            return
        if line == "TSBI-STACKS" and stacks:
            stacks_read[0] = True
            try:
                boot_used, used = stack_high_water(monitor_path, stacks, args.smp, workdir)
                with open(args.stack_report, "a") as f:
                    f.write("%s %s smp=%d hart=boot used=%d of %d\n" %
                            (rep.tag, name, args.smp, boot_used, stacks[3]))
                    for h, u in enumerate(used):
                        f.write("%s %s smp=%d hart=%d used=%d of %d\n" %
                                (rep.tag, name, args.smp, h, u, stacks[2]))
                ok = max(used) <= stacks[2] - STACK_MARGIN and boot_used <= stacks[3] - STACK_MARGIN
                runner_cases.append((ok, "%s/stack_margin" % name,
                                     "M-mode stack high-water mark: boot stack %d bytes of %d, "
                                     "per hart %s bytes of %d: expected at least %d unused" %
                                     (boot_used, stacks[3], used, stacks[2], STACK_MARGIN)))
            except (OSError, ValueError) as e:
                runner_cases.append((False, "%s/stack_margin" % name,
                                     "cannot read the stacks: %s" % e))
            resume_payload()
            return
        m = DONE_RE.match(line)
        if m:
            p, f = int(m.group(1)), int(m.group(2))
            np = sum(1 for c in cases if c[0])
            nf = len(cases) - np
            done = (p, f, np, nf)
            return
        if (line.startswith("NOTE: ") and args.notes) or \
                any(line.startswith(x) for x in args.pass_through):
            print(line)

    fragment = ""

    def handle_raw(line):
        nonlocal fragment
        line = fragment + line
        fragment = ""
        for m in FIRMWARE_MARKERS:
            i = line.find(m)
            if i > 0:
                fragment = line[:i]
                log.write("(runner: firmware output interrupted a payload line: %r)\n" % fragment)
                if args.notes:
                    print("NOTE: runner: firmware output split the console line %r" % fragment)
                handle(line[i:])
                return
        handle(line)

    fd = proc.stdout.fileno()
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            timed_out = True
            break
        if reset is not None:
            proc.kill()
            break
        r, _, _ = select.select([fd], [], [], min(remaining, 0.5))
        if not r:
            if proc.poll() is not None:
                break
            continue
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        deadline = min(time.monotonic() + timeout, started + 4 * timeout)
        buf += chunk
        while b"\n" in buf:
            raw, buf = buf.split(b"\n", 1)
            handle_raw(raw.decode("utf-8", "replace").rstrip("\r"))
    if timed_out:
        proc.kill()
    try:
        status = proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        status = proc.wait()
    if buf or fragment:
        handle_raw(buf.decode("utf-8", "replace").rstrip("\r"))

    if workdir:
        shutil.rmtree(workdir, ignore_errors=True)
    failed_before = rep.failed
    for ok, case, details, clause in all_cases:
        rep.result(ok, case, details, clause)
    for ok, case, details in runner_cases:
        rep.result(ok, case, details, origin="runner")
    for kind, case, details, clause in others:
        rep.record(kind, case, details, clause)
    for case, text, seen, clause in expects:
        rep.result(seen, case, "console line %r never appeared" % text, clause)
    tail = " | ".join(lines[-6:])
    where = "while checking %s (last result: %s)" % (running[0] or "(no clause)",
                                                     last_case[0] or "none")
    if stacks and done is not None and not stacks_read[0]:
        rep.result(False, "%s/stack_margin" % name,
                   "no TSBI-STACKS line after TSBI-DONE: the stacks were not read", origin="runner")
    if reset is not None:
        rep.result(False, "%s/reset" % name,
                   "the machine reset and the payload started again %s" % where, reset[0],
                   origin="runner")
    if done is None:
        what = "killed after %.0f s (%ss without output, or %ss in all)" % (
            time.monotonic() - started, timeout, 4 * timeout) if timed_out else \
            "reset" if reset is not None else "QEMU exited (status %s)" % status
        rep.result(False, "%s/done" % name, "no TSBI-DONE line: %s; last output: %s" % (what, tail),
                   running[0], origin="runner")
    else:
        p, f, np, nf = done
        # A payload that reported no check at all (not even N/A) passed
        # nothing: its DONE line alone is no evidence.
        if not all_cases and not any(o[0] == "na" for o in others):
            rep.result(False, "%s/done" % name,
                       "expected at least one PASS, FAIL or N/A line before TSBI-DONE, got none "
                       "(TSBI-DONE passed=%d failed=%d)" % (p, f), origin="runner")
        else:
            rep.result((p, f) == (np, nf), "%s/done" % name,
                       "TSBI-DONE says passed=%d failed=%d but printed %d/%d" % (p, f, np, nf),
                       origin="runner")
    if timed_out:
        rep.result(False, "%s/hang" % name,
                   "killed after %ss without output or %ss in all (%s) %s; last output: %s" %
                   (timeout, 4 * timeout, "after TSBI-DONE: no power-off" if done else "before TSBI-DONE",
                    where, tail), None if done else running[0], origin="runner")
    elif reset is not None:
        pass
    elif done is not None:
        allowed = PAYLOAD_EXIT.get(name, (0,))
        rep.result(status in allowed, "%s/power_off" % name,
                   "QEMU exit status %s, allowed %s" % (status, allowed), origin="runner")
    want = PAYLOAD_BOOTS.get(name)
    if want is not None:
        rep.result(boots == want, "%s/boots" % name, "started %d times, expected %d" % (boots, want),
                   origin="runner")
    if rep.failed > failed_before and not rep.peer:
        # The evidence behind the FAIL lines above: the console's last lines
        # and where the whole run is.
        print("  evidence for %s/%s: last console lines (%d in all; log %s):" %
              (rep.tag, name, len(lines), os.path.relpath(log.name, ROOT)))
        for line in lines[-12:] or ["(no console output at all)"]:
            print("  | " + line)
    return running[0] if done is None and (timed_out or reset is not None) else None


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("payloads", nargs="+")
    ap.add_argument("--fw", default="ours", help="ours|ours-jump|opensbi|opensbi-jump|PATH (default ours)")
    ap.add_argument("--qemu", default=os.environ.get("QEMU"),
                    help="QEMU binary (default $QEMU or qemu-system-riscv64/32, i.e. Debian 7.2)")
    ap.add_argument("--xlen", type=int, choices=(64, 32), default=64,
                    help="32: RV32 images, payloads (build/payloads-rv32), QEMU and peer")
    ap.add_argument("--smp", type=int, default=1)
    ap.add_argument("--machine", default="virt", help="QEMU machine: virt (default), spike, sifive_u")
    ap.add_argument("--mem", default="256M")
    ap.add_argument("--cpu", default="", help="extra -cpu rv64 properties, e.g. sstc=false")
    ap.add_argument("--cpu-model", default="",
                    help="QEMU CPU model instead of rv64/rv32 (max, rva23s64, ...); --cpu and the "
                         "payload's own properties are added to it")
    ap.add_argument("--no-payload-cpu", action="store_true",
                    help="leave out the payload's own -cpu properties (CPU models that fix "
                         "mvendorid and co., e.g. rva23s64): the checks that need them fail, "
                         "list them with --known")
    ap.add_argument("--qemu-arg", action="append", default=[], help="extra QEMU argument (repeatable)")
    ap.add_argument("--chosen", action="append", default=[], metavar="NAME=VALUE",
                    help="boot with QEMU's own device tree plus this /chosen string property (repeatable; "
                         "not with --qemu-arg=-dtb)")
    ap.add_argument("--icount", action="store_true", help="add -icount shift=0")
    ap.add_argument("--timeout", type=float, default=float(os.environ.get("TSBI_PAYLOAD_TIMEOUT", 20)))
    ap.add_argument("--tag", help="prefix of every case name (default <fw>-smp<N>)")
    ap.add_argument("--known", help="file of known differences (patterns) for comparison runs")
    ap.add_argument("--peer", action="store_true",
                    help="the firmware is a peer (implied by --fw opensbi*): print PEER lines, "
                    "never PASS/FAIL, and exit 0 whatever it answers")
    ap.add_argument("--log", help="append the raw console output here")
    ap.add_argument("--notes", action="store_true", help="also print the payloads' NOTE lines")
    ap.add_argument("--pass-through", action="append", default=[], metavar="PREFIX",
                    help="print console lines starting with PREFIX (repeatable)")
    ap.add_argument("--conformance", action="store_true",
                    help="conformance run of any firmware (payload bootarg conformance=1: "
                    "accept every answer the spec allows, skip absent extensions)")
    ap.add_argument("--results", help="append every check as a JSON line here (conformance.py)")
    ap.add_argument("--stack-report", metavar="FILE",
                    help="paint this firmware's M-mode stacks, check each hart's high-water mark "
                    "at TSBI-DONE (case <payload>/stack_margin) and append it to FILE")
    ap.add_argument("-v", "--verbose", action="store_true", help="echo the whole console output")
    args = ap.parse_args()

    fw = firmware_path(args.fw, args.xlen)
    fwname = args.fw if args.fw in FIRMWARE else os.path.basename(args.fw)
    if args.qemu is None:
        args.qemu = "qemu-system-riscv%d" % args.xlen
    tag = args.tag or "%s-smp%d%s" % (fwname, args.smp, "-" + args.cpu.replace(",", "-") if args.cpu else "")
    results = open(args.results, "a") if args.results else None
    # A conformance run reports on whatever firmware it is given (its results
    # file is the report), so it keeps PASS/FAIL lines for any firmware.
    peer = (args.peer or args.fw.startswith("opensbi") or "opensbi" in os.path.basename(fw)) \
        and not args.conformance
    rep = Reporter(tag, load_known(args.known), args.smp, results, peer)
    qemu = shutil.which(args.qemu) or args.qemu
    if not os.path.exists(fw):
        rep.result(False, "firmware", "missing firmware %s" % fw)
        return 1
    if not (os.path.isfile(qemu) and os.access(qemu, os.X_OK)):
        rep.result(False, "qemu", "QEMU binary not found: %s" % args.qemu)
        return 1
    logpath = args.log or os.path.join(ROOT, "build/test-logs/payload-%s.log" % tag)
    os.makedirs(os.path.dirname(logpath), exist_ok=True)
    with open(logpath, "a") as log:
        for p in args.payloads:
            run_one(args, fw, qemu, p, rep, log)
            sys.stdout.flush()
    return 1 if rep.failed and not peer else 0


if __name__ == "__main__":
    # Exit 1 means "some case failed" (each with its FAIL line); a runner that
    # dies says so with a FAIL line of its own and exit 2, so no suite can take
    # Python's crash status for an ordinary failure.
    try:
        sys.exit(main())
    except Exception:
        import traceback
        traceback.print_exc()
        why = traceback.format_exc().strip().splitlines()[-1]
        # A crash while running a peer is a row of the comparison table.
        argv = sys.argv[1:]
        if "--peer" in argv or any(a.startswith("--fw=opensbi") for a in argv) or \
                any(a == "--fw" and b.startswith("opensbi") for a, b in zip(argv, argv[1:])):
            print("PEER: payload-runner crash %s" % why)
            sys.exit(0)
        print("FAIL: payload-runner crashed: %s" % why)
        sys.exit(2)
