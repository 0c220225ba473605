#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
"""Stops a QEMU started with -S -gdb tcp:127.0.0.1:PORT once at ADDR, as a
debugger would, then lets it run to the end: a debug-mode entry and exit for
the trace encoder (ProgTraceCorrelation EVCODE=0, then SYNC=3).

    gdbstop.py PORT ADDR

Speaks the GDB remote serial protocol directly (no gdb needed). Exits 0 when
the breakpoint was hit and the target resumed, 1 otherwise.
"""
import socket
import sys
import time


class Rsp:
    def __init__(self, port):
        deadline = time.time() + 20
        while True:
            try:
                self.s = socket.create_connection(("127.0.0.1", port), timeout=60)
                break
            except OSError:
                if time.time() > deadline:
                    raise
                time.sleep(0.05)
        self.buf = b""

    def send(self, data):
        pkt = b"$" + data.encode() + b"#" + b"%02x" % (sum(data.encode()) & 0xFF)
        self.s.sendall(pkt)

    def recv(self):
        """Next packet's payload (acks '+' are skipped, packets acked)."""
        while True:
            start = self.buf.find(b"$")
            end = self.buf.find(b"#", start + 1) if start >= 0 else -1
            if start >= 0 and end >= 0 and len(self.buf) >= end + 3:
                data = self.buf[start + 1:end].decode(errors="replace")
                self.buf = self.buf[end + 3:]
                self.s.sendall(b"+")
                return data
            chunk = self.s.recv(4096)
            if not chunk:
                raise EOFError("connection closed")
            self.buf += chunk

    def cmd(self, data):
        self.send(data)
        return self.recv()


def main():
    port, addr = int(sys.argv[1]), int(sys.argv[2], 0)
    r = Rsp(port)
    if r.cmd("Z0,%x,2" % addr) != "OK":
        print("gdbstop: breakpoint not accepted", file=sys.stderr)
        return 1
    reply = r.cmd("c")
    if not reply.startswith(("T05", "S05")):
        print("gdbstop: unexpected stop reply %r" % reply, file=sys.stderr)
        return 1
    pc_reply = r.cmd("p20")  # RISC-V register 32 = pc (little-endian hex)
    pc = int.from_bytes(bytes.fromhex(pc_reply), "little") if pc_reply and "E" not in pc_reply else -1
    print("gdbstop: stopped at 0x%x" % pc)
    if r.cmd("z0,%x,2" % addr) != "OK":
        return 1
    r.send("c")
    return 0 if pc == addr else 1


if __name__ == "__main__":
    sys.exit(main())
