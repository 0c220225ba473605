#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
# A program with ecalls and its run as the N-Trace reference code's PC-sequence file
# spells it (NexRvConv.c: `ecall` is "CI", an indirect call; `mret` and `ret` are "R"):
# a call to f, whose ecall traps to a handler that returns past it with mret, then
# returns; three times round a loop; then a final ecall whose handler runs on to the
# end of the trace (the issue-30 case: the stream ends after that ecall).
# Writes OUT.bin (raw RV32/RV64 code at 0x80000000), OUT.pcseq and OUT.pcs (the PCs).
import struct, sys

out = sys.argv[1]
BASE = 0x80000000
NOP, ECALL, MRET, RET = 0x00000013, 0x00000073, 0x30200073, 0x00008067

def jal(rd, off):
    return (((off >> 20) & 1) << 31 | ((off >> 1) & 0x3FF) << 21 | ((off >> 11) & 1) << 20 |
            ((off >> 12) & 0xFF) << 12 | rd << 7 | 0x6F)

def bne(rs1, rs2, off):
    return (((off >> 12) & 1) << 31 | ((off >> 5) & 0x3F) << 25 | rs2 << 20 | rs1 << 15 | 1 << 12 |
            ((off >> 1) & 0xF) << 8 | ((off >> 11) & 1) << 7 | 0x63)

code = {}
def put(a, w):
    code[a] = w
# main
put(0x000, NOP)
put(0x004, jal(1, 0x100 - 0x004))        # call f
put(0x008, bne(10, 11, 0x004 - 0x008))   # loop
put(0x00C, ECALL)                        # the final ecall
# f
put(0x100, NOP)
put(0x104, ECALL)
put(0x108, RET)
# handler (mtvec)
put(0x200, NOP)
put(0x204, bne(10, 11, 0x304 - 0x204))   # taken: the final path
put(0x208, MRET)
for i in range(8):
    put(0x304 + 4 * i, NOP)

img = bytearray(0x400)
for a, w in code.items():
    img[a:a + 4] = struct.pack('<I', w)
open(out + '.bin', 'wb').write(img)

seq = []
def r(a, t):
    seq.append((BASE + a, t))
r(0x000, 'L4')
for i in range(3):
    r(0x004, 'C4'); r(0x100, 'L4'); r(0x104, 'CI4')
    r(0x200, 'L4'); r(0x204, 'BN4'); r(0x208, 'R4')
    r(0x108, 'R4'); r(0x008, 'B4' if i < 2 else 'BN4')
r(0x00C, 'CI4'); r(0x200, 'L4'); r(0x204, 'B4')
for i in range(8):
    r(0x304 + 4 * i, 'L4')
with open(out + '.pcseq', 'w', newline='') as f:
    f.write(''.join('0x%X,%s\r\n' % (a, t) for a, t in seq))
with open(out + '.pcs', 'w') as f:
    f.write(''.join('0x%X\n' % a for a, _ in seq))
