// SPDX-License-Identifier: BSD-2-Clause
// RISC-V instruction classifier for trace encoding/decoding: size, itype (N-Trace
// "Generating itype" table, ratified 4-bit names) and direct target, for RV32/RV64 GC
// with the PC-changing Zcmp (cm.popret/cm.popretz) and Zcmt (cm.jt/cm.jalt) instructions.
#pragma once
#include <cstdint>

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

// Classifies the instruction whose bits are `bits` (low parcel first).
Insn classify(uint32_t bits, const Options &o);

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

} // namespace rv
