#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Drive a next stage's console (U-Boot, the EFI shell) the way a person types.

    console.py --log LOG --timeout S [--abort REGEX]... [STEP...] -- QEMU [ARG...]

Starts QEMU with its standard input a pipe (never the terminal) and its
console copied to LOG, then runs the STEPs in order:

    expect:REGEX     wait until REGEX matches the console output that came
                     after the previous match (Python re, over the raw bytes
                     decoded as Latin-1)
    send:TEXT        type TEXT; backslash escapes are decoded (\\r is Enter)
    sleep:SECONDS    wait (some consoles drop keys typed while they redraw)

After the last step it waits for QEMU to exit by itself. The whole run has
--timeout seconds; output matching an --abort REGEX (a crash the console
will never recover from) ends it at once instead of waiting for that.
Exit status: QEMU's own when every step matched and QEMU exited; 2 when an
expect was never matched or an --abort pattern came (the step is named on
stderr and in LOG); 124 when QEMU had to be killed after the last step. The suites check
LOG themselves, so this script prints nothing on success.
"""
import argparse
import codecs
import os
import re
import select
import subprocess
import sys
import time


def parse_steps(raw):
    steps = []
    for s in raw:
        kind, sep, arg = s.partition(":")
        if not sep or kind not in ("expect", "send", "sleep"):
            sys.exit("console.py: bad step %r (expect:, send: or sleep:)" % s)
        if kind == "expect":
            steps.append((kind, re.compile(arg.encode("latin-1"))))
        elif kind == "send":
            steps.append((kind, codecs.decode(arg, "unicode_escape").encode("latin-1")))
        else:
            steps.append((kind, float(arg)))
    return steps


def main():
    argv = sys.argv[1:]
    if "--" not in argv:
        sys.exit("usage: console.py --log LOG --timeout S [STEP...] -- QEMU [ARG...]")
    cut = argv.index("--")
    ap = argparse.ArgumentParser()
    ap.add_argument("--log", required=True)
    ap.add_argument("--timeout", type=float, required=True)
    ap.add_argument("--abort", action="append", default=[])
    ap.add_argument("steps", nargs="*")
    args = ap.parse_args(argv[:cut])
    cmd = argv[cut + 1:]
    steps = parse_steps(args.steps)
    aborts = [re.compile(a.encode("latin-1")) for a in args.abort]

    log = open(args.log, "wb")
    log.write(("$ %s\n" % " ".join(cmd)).encode())
    log.flush()
    proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT)
    deadline = time.monotonic() + args.timeout
    pending = b""      # output after the last match
    seen = b""         # all output, for the --abort patterns
    aborted = None
    fd = proc.stdout.fileno()
    eof = False

    def note(msg):
        log.write(("\n(console.py: %s)\n" % msg).encode())
        log.flush()
        print("console.py: %s" % msg, file=sys.stderr)

    def read_some(until):
        """Read what QEMU printed until `until` (monotonic) or EOF."""
        nonlocal pending, seen, aborted, eof
        wait = max(0.0, until - time.monotonic())
        r, _, _ = select.select([fd], [], [], wait)
        if not r:
            return
        data = os.read(fd, 65536)
        if not data:
            eof = True
            return
        log.write(data)
        log.flush()
        pending += data
        # A match may straddle two reads: look again at the last bit of
        # what came before.
        start = max(0, len(seen) - 256)
        seen += data
        for a in aborts:
            m = a.search(seen, start)
            if m and aborted is None:
                aborted = m.group(0).decode("latin-1")

    def kill():
        # After an abort pattern, the rest of the crash report (a trap's
        # registers, a backtrace) is what the reader of LOG needs.
        if aborted is not None:
            end = time.monotonic() + 1.0
            while not eof and time.monotonic() < end:
                read_some(end)
        proc.kill()
        proc.wait()

    for i, (kind, arg) in enumerate(steps):
        if kind == "send":
            try:
                proc.stdin.write(arg)
                proc.stdin.flush()
            except OSError:
                kill()
                note("step %d: QEMU's input closed before send %r" % (i + 1, arg))
                return 2
            continue
        if kind == "sleep":
            end = time.monotonic() + arg
            while time.monotonic() < end and not eof and aborted is None:
                read_some(end)
            if aborted is not None:
                break
            continue
        while True:
            m = arg.search(pending)
            if m:
                pending = pending[m.end():]
                break
            if eof or aborted is not None or time.monotonic() >= deadline:
                why = "QEMU exited" if eof else "timeout"
                if aborted is not None:
                    why = "abort pattern %r seen" % aborted
                kill()
                note("step %d: expect /%s/ not seen (%s)" % (
                    i + 1, arg.pattern.decode("latin-1"), why))
                return 2
            read_some(deadline)

    while not eof and aborted is None and time.monotonic() < deadline:
        read_some(deadline)
    if aborted is not None:
        kill()
        note("abort pattern %r seen after the last step" % aborted)
        return 2
    if not eof:
        kill()
        note("QEMU still running %g s after the start: killed" % args.timeout)
        return 124
    rc = proc.wait()
    log.close()
    return rc


if __name__ == "__main__":
    sys.exit(main())
