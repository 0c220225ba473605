// SPDX-License-Identifier: BSD-2-Clause
// Decoding of integer loads and stores (RV32/64 I and C) for misaligned
// access emulation. Header-only and free of hart access, so host tests check it.
#pragma once
#include <stdint.h>

namespace fw {

struct IntAccess {
    unsigned width; // bytes; 0 = not an integer load/store of the asked kind
    unsigned reg;   // rd for loads, rs2 for stores
    unsigned len;   // instruction length in bytes
    bool sign;      // loads: sign-extend the result
};

// `insn` holds the full instruction (16-bit ones in the low half).
constexpr IntAccess decode_int_access(uint32_t insn, bool is_load, unsigned xlen_bytes) {
    IntAccess a{0, 0, (insn & 3) == 3 ? 4u : 2u, false};
    if (a.len == 4) {
        unsigned op = insn & 0x7f, f3 = (insn >> 12) & 7;
        if (op == 0x03 && is_load && f3 != 7) { // LB LH LW LD LBU LHU LWU
            a.width = 1u << (f3 & 3);
            a.sign = !(f3 & 4);
            a.reg = (insn >> 7) & 31;
        } else if (op == 0x23 && !is_load && f3 < 4) { // SB SH SW SD
            a.width = 1u << f3;
            a.reg = (insn >> 20) & 31;
        }
    } else {
        // RVC quadrants 0 and 2: c.lw/c.ld, c.sw/c.sd and the sp-relative forms
        // (on RV32, funct3 3/7 are the FP c.flw/c.fsw and stay undecoded).
        unsigned q = insn & 3, f3 = (insn >> 13) & 7;
        bool rv64 = xlen_bytes == 8;
        bool word = f3 == 2 || f3 == 6, dword = (f3 == 3 || f3 == 7) && rv64;
        if (word || dword) {
            bool load = f3 == 2 || f3 == 3;
            if (load == is_load) {
                a.width = word ? 4 : 8;
                a.sign = load && word;
                if (q == 0)
                    a.reg = 8 + ((insn >> 2) & 7); // rd' or rs2'
                else if (q == 2)
                    a.reg = load ? (insn >> 7) & 31 : (insn >> 2) & 31;
                else
                    a.width = 0;
                if (q == 2 && load && a.reg == 0) a.width = 0; // reserved
            }
        }
    }
    if (a.width > xlen_bytes) a.width = 0;
    return a;
}

} // namespace fw
