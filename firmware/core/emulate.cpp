// SPDX-License-Identifier: BSD-2-Clause
// The illegal-instruction path (CSR instruction decoding; CSRs the hart lacks
// are emulated here or by a subsystem such as CTR) and misaligned load/store
// emulation. Whatever is not emulated goes back to S-mode as the original
// trap, with stval = the instruction or address.
#include "subsystems.hpp"
#include "platform.hpp"
#include "riscv/csr.hpp"
#include "riscv/csr_safe.hpp"
#include "insn_decode.hpp"
#include "ctr/ctr_spec.hpp"
#include "trap.hpp"

namespace fw {
namespace {

constexpr uint32_t OPCODE_MASK = 0x7f, OPCODE_SYSTEM = 0x73;
constexpr uint32_t INSN_SCTRCLR = ctr::ratified::sctrclr_insn; // Smctr 1.0, "Instructions"

inline unsigned rd_of(uint32_t i) { return (i >> 7) & 31; }
inline unsigned rs1_of(uint32_t i) { return (i >> 15) & 31; }
inline unsigned funct3_of(uint32_t i) { return (i >> 12) & 7; }

// mstatus for unprivileged accesses on behalf of the trapping mode.
unsigned long unpriv_mstatus(const TrapFrame &f, bool mxr) {
    unsigned long ms = csr_read(csr::mstatus);
    ms &= ~(csr::mstatus_bits::MPP | csr::mstatus_bits::MXR | csr::mstatus_bits::SUM);
    ms |= (f.mstatus & (csr::mstatus_bits::MPP | csr::mstatus_bits::SUM | csr::mstatus_bits::MXR));
#if __riscv_xlen == 64
    ms = (ms & ~static_cast<unsigned long>(csr::mstatus_bits::MPV)) |
         (f.mstatus & csr::mstatus_bits::MPV);
#endif
    ms |= csr::mstatus_bits::MPRV;
    if (mxr) ms |= csr::mstatus_bits::MXR;
    return ms;
}

// Fetches the trapping instruction when mtval/mtinst did not provide it.
bool fetch_insn(TrapFrame &f, uint32_t &insn) {
    unsigned long ms = unpriv_mstatus(f, true);
    UnprivResult lo = unpriv_lhu(f.mepc, ms);
    if (lo.trapped) return false;
    insn = static_cast<uint32_t>(lo.value);
    if ((insn & 3) == 3) {
        UnprivResult hi = unpriv_lhu(f.mepc + 2, ms);
        if (hi.trapped) return false;
        insn |= static_cast<uint32_t>(hi.value) << 16;
    }
    return true;
}

void redirect_illegal(TrapFrame &f, uint32_t insn) {
    redirect_to_smode(f, csr::cause::illegal_insn, insn);
}

// CSRs the core itself emulates when the hart lacks them.
fw::CsrResult core_csr_read(unsigned num, unsigned long &v) {
    if (num == csr::time) {
        v = static_cast<unsigned long>(platform::timer_value());
        return fw::CsrResult::Done;
    }
#if __riscv_xlen == 32
    if (num == csr::timeh) {
        v = static_cast<unsigned long>(platform::timer_value() >> 32);
        return fw::CsrResult::Done;
    }
#endif
    return fw::CsrResult::NotMine;
}

// The CSR instruction insn (funct3 1-3, 5-7) on the emulated CSRs: Done with
// the value read in `old`, or what stops it. No effect on the frame.
[[gnu::always_inline]] inline fw::CsrResult csr_op(const TrapFrame &f, uint32_t insn, unsigned long &old) {
    using fw::CsrResult;
    unsigned num = insn >> 20, f3 = funct3_of(insn), rs1 = rs1_of(insn);
    unsigned priv = trap_priv(f);
    bool virt = trap_virt(f);
    unsigned long src = (f3 & 4) ? rs1 : f.reg(rs1);
    // csrrw always writes; csrrs/csrrc write only with a non-zero source
    // register number or immediate (Zicsr, "CSR Instructions").
    bool writes = (f3 & 3) == 1 || rs1 != 0;
    bool read_only_csr = (num >> 10) == 3;
    old = 0;
    CsrResult r = core_csr_read(num, old);
    if (r == CsrResult::Done) {
        if (writes && read_only_csr) return CsrResult::Illegal;
    } else if ((f3 & 3) == 1 && rd_of(insn) == 0) {
        // csrrw with rd = x0 does not read the CSR (Zicsr): write only.
        r = subsystems::write_csr(num, priv, virt, src);
    } else {
        r = subsystems::read_csr(num, priv, virt, old);
        if (r == CsrResult::Done && writes) {
            unsigned long nv = (f3 & 3) == 1 ? src : (f3 & 3) == 2 ? (old | src) : (old & ~src);
            r = subsystems::write_csr(num, priv, virt, nv);
        }
    }
    return r;
}

void emulate_csr(TrapFrame &f, uint32_t insn) {
    using fw::CsrResult;
    unsigned long old;
    switch (csr_op(f, insn, old)) {
    case CsrResult::Done:
        f.set_reg(rd_of(insn), old);
        f.mepc += 4;
        return;
    case CsrResult::Virtual: return redirect_to_smode(f, csr::cause::virtual_insn, insn);
    default: return redirect_illegal(f, insn);
    }
}

} // namespace

constexpr uint32_t kFastRegs = kFastFrameRegs; // trap.hpp

namespace {
// emulate_csr_fast() for what no subsystem took whole. The two forms CSR
// accessors use, a read (csrr: csrrs rd, csr, x0) and a write (csrw: csrrw
// x0, csr, rs1), go straight to the subsystems; the rest through csr_op. The
// core's own CSRs (time) take the general form, and so does a write to a
// read-only number (bits 11:10 = 3), which csr_op refuses as illegal
// (privileged spec, "CSR Address Mapping Conventions").
[[gnu::noinline]] bool emulate_csr_partial(TrapFrame *f, unsigned long mtval, unsigned long mstatus) {
    const uint32_t insn = static_cast<uint32_t>(mtval);
    const unsigned f3 = funct3_of(insn), rd = rd_of(insn), rs1 = rs1_of(insn);
    if (!(kFastRegs >> rd & 1) || (!(f3 & 4) && !(kFastRegs >> rs1 & 1))) return false;
    const unsigned num = insn >> 20, priv = mstatus_priv(mstatus);
    const bool virt = mstatus_virt(mstatus);
    unsigned long old = 0;
    fw::CsrResult r;
    if (f3 == 2 && rs1 == 0 && num != csr::time && (__riscv_xlen == 64 || num != csr::timeh)) {
        r = subsystems::read_csr(num, priv, virt, old);
    } else if (f3 == 1 && rd == 0 && (num >> 10) != 3) {
        r = subsystems::write_csr(num, priv, virt, f->reg(rs1)); // x0's slot holds no 0
    } else {
        f->mstatus = mstatus;
        r = csr_op(*f, insn, old);
    }
    if (r != fw::CsrResult::Done) return false;
    subsystems::fw_event(FwEvent::illegal_insn);
    f->x[rd] = old; // x0's slot is never loaded back
    return true;
}
} // namespace

extern "C" bool emulate_csr_fast(TrapFrame *f, unsigned long mtval, unsigned long mstatus) {
    // A CSR instruction (entry.S checked SYSTEM and funct3 not 0 or 4) whose
    // registers are in the partial frame, served in full: true. Anything
    // else, and anything that would trap to S-mode, goes through
    // trap_handler with the full frame as before, from scratch (a read has
    // no effect a second read would see differently). On true entry.S
    // advances mepc; the frame's mepc slot is not filled on this path.
    // A subsystem may take its numbers whole first (CTR's entry reads).
    const uint32_t insn = static_cast<uint32_t>(mtval);
    if (subsystems::fast_csr(insn >> 20) && (kFastRegs >> rd_of(insn)) & (kFastRegs >> rs1_of(insn)) & 1) {
        if (subsystems::csr_fast(*f, insn, mstatus)) {
            subsystems::fw_event(FwEvent::illegal_insn);
            return true;
        }
        // The arguments again from where they live (mtval and mstatus as
        // the trap left them), so that none is kept across the call.
        return emulate_csr_partial(&current_frame(), csr_read(csr::mtval), csr_read(csr::mstatus));
    }
    return emulate_csr_partial(f, mtval, mstatus);
}

void emulate_illegal_insn(TrapFrame &f, unsigned long mtval) {
    uint32_t insn = static_cast<uint32_t>(mtval);
    if (insn == 0 && !fetch_insn(f, insn)) return redirect_illegal(f, 0);
    if ((insn & OPCODE_MASK) == OPCODE_SYSTEM) {
        if (funct3_of(insn) != 0 && funct3_of(insn) != 4) return emulate_csr(f, insn);
        if (insn == INSN_SCTRCLR) {
            switch (subsystems::sctrclr(trap_priv(f), trap_virt(f))) {
            case fw::CsrResult::Done: f.mepc += 4; return;
            case fw::CsrResult::Virtual:
                return redirect_to_smode(f, csr::cause::virtual_insn, insn);
            default: break;
            }
        }
    }
    redirect_illegal(f, insn);
}

// Misaligned loads and stores, byte by byte with the trapping mode's
// translation and permissions. Integer accesses only (FP and vector ones are
// redirected to S-mode, which Linux handles itself).
static_assert(csr::safe_listed(csr::mtinst));
void emulate_misaligned(TrapFrame &f, unsigned long cause, unsigned long addr) {
    // mtinst, where implemented, holds a transformed instruction (privileged
    // spec, "Transformed Instruction or Pseudoinstruction for mtinst"); it is
    // usable as is for a 32-bit original (bits 1:0 = 11). Otherwise fetch.
    uint32_t insn = static_cast<uint32_t>(csr::csr_read_safe_num(csr::mtinst).value);
    if ((insn & 3) != 3 && !fetch_insn(f, insn)) return redirect_to_smode(f, cause, addr);
    bool is_load = cause == csr::cause::load_misaligned;
    IntAccess acc = decode_int_access(insn, is_load, sizeof(long));
    unsigned width = acc.width, reg = acc.reg, len = acc.len;
    bool sign = acc.sign;
    if (!width) return redirect_to_smode(f, cause, addr);
    unsigned long ms = unpriv_mstatus(f, false);
    if (is_load) {
        unsigned long v = 0;
        for (unsigned i = 0; i < width; i++) {
            UnprivResult b = unpriv_lbu(addr + i, ms);
            if (b.trapped) return redirect_to_smode(f, b.trapped, addr + i);
            v |= b.value << (8 * i);
        }
        if (sign && width < sizeof(long)) {
            unsigned shift = 8 * (sizeof(long) - width);
            v = static_cast<unsigned long>(static_cast<long>(v << shift) >> shift);
        }
        f.set_reg(reg, v);
    } else {
        unsigned long v = f.reg(reg);
        for (unsigned i = 0; i < width; i++) {
            UnprivResult b = unpriv_sb(addr + i, ms, (v >> (8 * i)) & 0xff);
            if (b.trapped) return redirect_to_smode(f, b.trapped, addr + i);
        }
    }
    f.mepc += len;
}

} // namespace fw
