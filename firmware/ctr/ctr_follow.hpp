// SPDX-License-Identifier: BSD-2-Clause
// Entry accesses served in the trap of the access before them (README
// "Cost", "Entry accesses in one trap"): which instruction words qualify,
// where they may be read from, and when an interrupt forbids it. Pure
// functions of their arguments (tests/ctr/host/test_follow.cpp); the hart
// access is in ctr_hooks.cpp.
#pragma once
#include <stdint.h>

#include "ctr_spec.hpp"

namespace ctr::follow {

// Instructions served after the trapping one, at most: the rest of one
// entry (select, then its three registers).
constexpr unsigned kMaxFollowing = 3;

#define CTR_FOLLOW_INLINE [[gnu::always_inline]] constexpr inline

// The two instruction forms (unprivileged spec, "Zicsr": CSRRW funct3 1,
// CSRRS funct3 2, opcode SYSTEM), as masks over the 32-bit word.
constexpr unsigned kRdShift = 7, kRs1Shift = 15, kCsrShift = 20;
constexpr uint32_t kRegMask = 0x1F;
// csrw siselect, rs1 = csrrw x0, siselect, rs1: all but rs1 fixed.
constexpr uint32_t kSelectWriteMask = 0xFFF07FFF;
constexpr uint32_t kSelectWrite = uint32_t(ind::siselect) << kCsrShift | 1u << 12 | 0x73;
// csrr rd, csr = csrrs rd, csr, x0: rs1, funct3 and opcode fixed.
constexpr uint32_t kReadMask = 0x000FF07F, kRead = 2u << 12 | 0x73;
// Of an instruction known to be a CSR instruction on siselect .. sireg3:
// the read form (rs1 = x0, CSRRS) and the write form (rd = x0, CSRRW).
constexpr uint32_t kReadFormMask = 0x000FF000, kReadForm = 2u << 12;
constexpr uint32_t kWriteFormMask = 0x00007F80, kWriteForm = 1u << 12;

CTR_FOLLOW_INLINE unsigned rd_of(uint32_t w) { return (w >> kRdShift) & kRegMask; }
CTR_FOLLOW_INLINE unsigned rs1_of(uint32_t w) { return (w >> kRs1Shift) & kRegMask; }

// `csrw siselect, rs1` with rs1 among frame_regs (bit n: xn is in the trap
// frame).
CTR_FOLLOW_INLINE bool is_select_write(uint32_t w, uint32_t frame_regs) {
    return (w & kSelectWriteMask) == kSelectWrite && ((frame_regs >> rs1_of(w)) & 1);
}
// `csrr rd, sireg/sireg2/sireg3` with rd among frame_regs.
CTR_FOLLOW_INLINE bool is_entry_read(uint32_t w, uint32_t frame_regs) {
    return (w & kReadMask) == kRead && (w >> kCsrShift) - ind::sireg <= ind::sireg3 - ind::sireg &&
           ((frame_regs >> rd_of(w)) & 1);
}
// Of an instruction one of the two accepted: the entry register it reads,
// 0 sireg (ctrsource), 1 sireg2 (ctrtarget), 2 sireg3 (ctrdata).
CTR_FOLLOW_INLINE unsigned entry_reg(uint32_t w) { return (w >> kCsrShift) - ind::sireg; }
// Of an instruction one of the two accepted: whether it is the write.
CTR_FOLLOW_INLINE bool is_write(uint32_t w) { return !(w & (2u << 12)); }

// Whether the 4-byte instruction at addr (> pc + 3) lies in the page of the
// last byte of the trapping 4-byte instruction at pc. The hart fetched that
// byte, so S-mode may execute from the page (translation and PMP): code
// there is what S-mode would run next. A 2-byte-aligned pc may put the
// trapping instruction across two pages; the later one counts.
constexpr unsigned kPageShift = 12;
CTR_FOLLOW_INLINE bool same_page(unsigned long pc, unsigned long addr) {
    return ((pc + 3) >> kPageShift) == ((addr + 3) >> kPageShift);
}

// Whether an interrupt is taken before the next instruction once mret
// returns to S-mode with V=0 (privileged spec, "Machine Interrupt
// Registers": the conditions are evaluated immediately after an xRET):
// an M-level one (not delegated) pending and enabled is always taken below
// M-mode; a delegated one needs sstatus.SIE. sip/sie are read as well as
// mip/mie: with Smaia an S-level interrupt may be pending in sip (mvip)
// without a bit in mip. Delegated bits of mip count only with SIE=1, which
// takes in the VS-level ones that HS-mode would not take (conservative).
CTR_FOLLOW_INLINE bool interrupt_due(unsigned long mip, unsigned long mie, unsigned long mideleg,
                             unsigned long sip, unsigned long sie, bool s_ie) {
    return (mip & mie & ~mideleg) != 0 || (s_ie && ((sip & sie) != 0 || (mip & mie & mideleg) != 0));
}

} // namespace ctr::follow
