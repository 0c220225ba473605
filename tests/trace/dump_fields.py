#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-2-Clause
# Normalises an N-Trace dump (the reference code's NexRv -dump text or `tsbi-trace
# ntrace dump`) for comparison (suite 40).
import re, sys
# Per byte of a dump ("0xHH bbbbbb_bb" with the fields that end in it): the byte and
# its fields as NAME[bits]=VALUE, whatever the spacing and decoration.
out = []
for line in open(sys.argv[1], encoding='ascii', newline=None):
    line = line.rstrip('\r\n')
    m = re.match(r'^(0x[0-9A-F]{2} [01]{6}_[01]{2})', line)
    if m:
        out.append(m.group(1))
    elif not line.startswith(' ' * 8):
        continue
    for f in re.findall(r'([A-Z-]+\[\d+\])\s*=\s*(0x[0-9A-Fa-f]+|\d+)', line):
        out[-1] += ' ' + f[0] + '=' + f[1].upper().replace('0X', '0x')
print('\n'.join(out))
