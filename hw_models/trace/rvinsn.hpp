// SPDX-License-Identifier: BSD-2-Clause
// RISC-V instruction classifier for trace encoding/decoding: size, itype (N-Trace
// "Generating itype" table, ratified 4-bit names) and direct target, for RV32/RV64 GC
// with the PC-changing Zcmp (cm.popret/cm.popretz) and Zcmt (cm.jt/cm.jalt) instructions.
#pragma once
#include <stdint.h>

#include "ntrace_defs.h"

namespace rv {

enum class Kind : uint8_t {
    Linear,      // next PC = pc + size
    Branch,      // conditional direct branch: target = pc + offset
    DirectJump,  // jal/c.j/c.jal: target = pc + offset (itype 9, 11 or 15)
    TableJump,   // cm.jt/cm.jalt: target from the jump table at JVT (itype 11 or 9)
    Indirect,    // jalr/c.jr/c.jalr/cm.popret*: uninferable (itype 8, 10, 12, 13 or 14)
    TrapReturn,  // mret/sret/uret/dret (itype 3)
    Trap,        // ecall/ebreak/c.ebreak: raises an exception, does not retire
    Illegal,     // not a valid encoding the classifier knows (treated as linear by size)
};

// Insn::reg for the sequential-jump optimisation (N-Trace 1.0 "Sequential Jump
// Optimization"): lui/c.lui and auipc name the register they load a constant into.
constexpr uint8_t kRegMask = 0x1F;
constexpr uint8_t kRegLui = 0x40;   // lui, c.lui: rd = offset
constexpr uint8_t kRegAuipc = 0x80; // auipc: rd = pc + offset

struct Insn {
    uint8_t size = 0;   // bytes: 2, 4, 6, 8 (0 if the parcel cannot be read)
    Kind kind = Kind::Linear;
    uint8_t itype = NT_ITYPE_NONE; // 4-bit itype; branches report 4 (not taken)
    // Linear lui/c.lui/auipc: rd | kRegLui or kRegAuipc; jalr/c.jr/c.jalr: rs1; else 0
    uint8_t reg = 0;
    // Branch/DirectJump: target - pc; TableJump: table index; lui/c.lui/auipc: the
    // sign-extended upper immediate (imm << 12); jalr: its 12-bit offset
    int32_t offset = 0;
    // lui/c.lui/auipc loading a constant into a register (0 otherwise)
    unsigned loads_constant() const { return reg & (kRegLui | kRegAuipc) ? reg & kRegMask : 0; }
    // jalr/c.jr/c.jalr: the register holding the target
    unsigned jump_reg() const { return kind == Kind::Indirect ? reg : 0; }
    bool pushes() const {
        return itype == NT_ITYPE_INDIRECT_CALL || itype == NT_ITYPE_DIRECT_CALL ||
               itype == NT_ITYPE_COROUTINE_SWAP;
    }
    bool pops() const { return itype == NT_ITYPE_RETURN || itype == NT_ITYPE_COROUTINE_SWAP; }
    unsigned table_index() const { return unsigned(offset); }
};
static_assert(sizeof(Insn) == 8, "the decoder's per-halfword cache relies on 8-byte entries");

struct Options {
    unsigned xlen = 64;
    bool zcmp = false; // encodings 0b101 in quadrant 2 are Zcmp/Zcmt instead of c.fsdsp
    bool zcmt = false;
};

// Length of an instruction from its first 16-bit parcel (RISC-V base length encoding).
constexpr unsigned insn_length(uint16_t parcel) {
    if ((parcel & 3) != 3) return 2;
    if ((parcel & 0x1F) != 0x1F) return 4;
    if ((parcel & 0x3F) == 0x1F) return 6;
    if ((parcel & 0x7F) == 0x3F) return 8;
    return 2 * (5 + (parcel >> 12 & 7)) <= 22 ? 2 * (5 + (parcel >> 12 & 7)) : 2;
}


// 3-bit itype for an ingress port without the implicit-return extension (Table 2).
constexpr uint8_t itype3(uint8_t itype4) {
    switch (itype4) {
    case NT_ITYPE_INDIRECT_CALL:
    case NT_ITYPE_INDIRECT_JUMP_NOLINK:
    case NT_ITYPE_COROUTINE_SWAP:
    case NT_ITYPE_RETURN:
    case NT_ITYPE_INDIRECT_JUMP_LINK: return NT_ITYPE_INDIRECT_JUMP;
    case NT_ITYPE_DIRECT_CALL:
    case NT_ITYPE_DIRECT_JUMP_NOLINK:
    case NT_ITYPE_DIRECT_JUMP_LINK: return NT_ITYPE_NONE;
    default: return itype4;
    }
}

// Classifies the instruction whose bits are `bits` (low parcel first). Header-only and
// freestanding: the host tools and the firmware's CTR feed classify with this one table.
namespace detail {
constexpr uint32_t bit(uint32_t x, unsigned i) { return x >> i & 1; }
constexpr uint32_t bits(uint32_t x, unsigned hi, unsigned lo) {
    return x >> lo & ((1u << (hi - lo + 1)) - 1);
}
constexpr int32_t sext(uint32_t x, unsigned width) {
    return int32_t(x << (32 - width)) >> (32 - width);
}
constexpr bool is_link(unsigned r) { return r == 1 || r == 5; }

// Register-jump itype from the ratified "Generating itype" table.
inline uint8_t jalr_itype(unsigned rd, unsigned rs) {
    if (is_link(rd) && !is_link(rs)) return NT_ITYPE_INDIRECT_CALL;
    if (is_link(rd) && is_link(rs)) return rd == rs ? NT_ITYPE_INDIRECT_CALL : NT_ITYPE_COROUTINE_SWAP;
    if (is_link(rs)) return NT_ITYPE_RETURN;
    if (rd == 0) return NT_ITYPE_INDIRECT_JUMP_NOLINK;
    return NT_ITYPE_INDIRECT_JUMP_LINK;
}
inline uint8_t jal_itype(unsigned rd) {
    if (is_link(rd)) return NT_ITYPE_DIRECT_CALL;
    return rd == 0 ? NT_ITYPE_DIRECT_JUMP_NOLINK : NT_ITYPE_DIRECT_JUMP_LINK;
}

// CJ-format offset: imm[11|4|9:8|10|6|7|3:1|5] in bits 12:2.
inline int32_t cj_offset(uint32_t i) {
    uint32_t v = bit(i, 12) << 11 | bit(i, 11) << 4 | bits(i, 10, 9) << 8 | bit(i, 8) << 10 |
                 bit(i, 7) << 6 | bit(i, 6) << 7 | bits(i, 5, 3) << 1 | bit(i, 2) << 5;
    return sext(v, 12);
}
// CB-format branch offset: imm[8|4:3] in 12:10, imm[7:6|2:1|5] in 6:2.
inline int32_t cb_offset(uint32_t i) {
    uint32_t v = bit(i, 12) << 8 | bits(i, 11, 10) << 3 | bits(i, 6, 5) << 6 | bits(i, 4, 3) << 1 |
                 bit(i, 2) << 5;
    return sext(v, 9);
}

inline Insn classify16(uint32_t i, const Options &o) {
    Insn r;
    r.size = 2;
    if ((i & 0xFFFF) == 0) {
        r.kind = Kind::Illegal;
        return r;
    }
    const unsigned op = i & 3, f3 = bits(i, 15, 13);
    if (op == 1) {
        if ((f3 == 1 && o.xlen == 32) || f3 == 5) { // c.jal (RV32 only), c.j
            r.kind = Kind::DirectJump;
            r.offset = cj_offset(i);
            r.itype = f3 == 1 ? NT_ITYPE_DIRECT_CALL : NT_ITYPE_DIRECT_JUMP_NOLINK;
        } else if (f3 == 6 || f3 == 7) { // c.beqz, c.bnez
            r.kind = Kind::Branch;
            r.offset = cb_offset(i);
            r.itype = NT_ITYPE_BRANCH_NOT_TAKEN;
        } else if (f3 == 3) { // c.lui: rd = nzimm[17:12], rd not x0/x2, nzimm != 0
            const unsigned rd = bits(i, 11, 7), imm = bit(i, 12) << 5 | bits(i, 6, 2);
            if (rd != 0 && rd != 2 && imm != 0) {
                r.reg = uint8_t(rd | kRegLui);
                r.offset = sext(imm << 12, 18);
            }
        }
    } else if (op == 2) {
        const unsigned rs1 = bits(i, 11, 7), rs2 = bits(i, 6, 2);
        if (f3 == 4 && rs2 == 0) {
            if (!bit(i, 12) && rs1) { // c.jr
                r.kind = Kind::Indirect;
                r.reg = uint8_t(rs1);
                r.itype = is_link(rs1) ? NT_ITYPE_RETURN : NT_ITYPE_INDIRECT_JUMP_NOLINK;
            } else if (bit(i, 12) && rs1 == 0) { // c.ebreak
                r.kind = Kind::Trap;
            } else if (bit(i, 12)) { // c.jalr: rd = x1
                r.kind = Kind::Indirect;
                r.reg = uint8_t(rs1);
                r.itype = rs1 == 5 ? NT_ITYPE_COROUTINE_SWAP : NT_ITYPE_INDIRECT_CALL;
            } else {
                r.kind = Kind::Illegal;
            }
        } else if (f3 == 5 && bit(i, 12) && bits(i, 11, 10) == 3 && o.zcmp) {
            // Zcmp: cm.push 11000, cm.pop 11010, cm.popretz 11100, cm.popret 11110.
            const unsigned f5 = bits(i, 12, 8);
            if (f5 == 0x1C || f5 == 0x1E) {
                r.kind = Kind::Indirect;
                r.itype = NT_ITYPE_RETURN;
            }
        } else if (f3 == 5 && bits(i, 12, 10) == 0 && o.zcmt) { // cm.jt / cm.jalt
            r.kind = Kind::TableJump;
            r.offset = int32_t(bits(i, 9, 2)); // the table index
            r.itype = r.offset < 32 ? NT_ITYPE_DIRECT_JUMP_NOLINK : NT_ITYPE_DIRECT_CALL;
        }
    }
    return r;
}

inline Insn classify32(uint32_t i, const Options &) {
    Insn r;
    r.size = 4;
    const unsigned opc = bits(i, 6, 0), rd = bits(i, 11, 7), rs1 = bits(i, 19, 15),
                   f3 = bits(i, 14, 12);
    switch (opc) {
    case 0x6F: { // jal
        uint32_t v = bit(i, 31) << 20 | bits(i, 30, 21) << 1 | bit(i, 20) << 11 |
                     bits(i, 19, 12) << 12;
        r.kind = Kind::DirectJump;
        r.offset = sext(v, 21);
        r.itype = jal_itype(rd);
        break;
    }
    case 0x67: // jalr
        if (f3 == 0) {
            r.kind = Kind::Indirect;
            r.itype = jalr_itype(rd, rs1);
            r.reg = uint8_t(rs1);
            r.offset = sext(bits(i, 31, 20), 12);
        } else {
            r.kind = Kind::Illegal;
        }
        break;
    case 0x63: { // branches
        if (f3 == 2 || f3 == 3) {
            r.kind = Kind::Illegal;
            break;
        }
        uint32_t v = bit(i, 31) << 12 | bits(i, 30, 25) << 5 | bits(i, 11, 8) << 1 | bit(i, 7) << 11;
        r.kind = Kind::Branch;
        r.offset = sext(v, 13);
        r.itype = NT_ITYPE_BRANCH_NOT_TAKEN;
        break;
    }
    case 0x37: // lui
    case 0x17: // auipc
        if (rd) {
            r.reg = uint8_t(rd | (opc == 0x37 ? kRegLui : kRegAuipc));
            r.offset = int32_t(i & 0xFFFFF000u);
        }
        break;
    case 0x73: // SYSTEM with funct3 = 0: ecall, ebreak, xRET, wfi, sfence...
        if (i == 0x00000073 || i == 0x00100073) {
            r.kind = Kind::Trap;
        } else if (i == 0x30200073 || i == 0x10200073 || i == 0x00200073 || i == 0x7B200073) {
            r.kind = Kind::TrapReturn;
            r.itype = NT_ITYPE_TRAP_RETURN;
        }
        break;
    default: break;
    }
    return r;
}
} // namespace detail

inline Insn classify(uint32_t b, const Options &o) {
    const unsigned len = insn_length(uint16_t(b));
    if (len == 2) return detail::classify16(b & 0xFFFF, o);
    if (len == 4) return detail::classify32(b, o);
    Insn r;
    r.size = uint8_t(len);
    return r;
}

} // namespace rv
