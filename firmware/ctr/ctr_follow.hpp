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

// Instructions served after the trapping one, at most.
constexpr unsigned kMaxFollowing = 6;

// Base instruction fields (unprivileged spec, "Zicsr": CSRRW is funct3 1,
// CSRRS funct3 2, both with opcode SYSTEM).
constexpr uint32_t kOpcodeMask = 0x7F, kOpSystem = 0x73;
constexpr unsigned kRdShift = 7, kFunct3Shift = 12, kRs1Shift = 15, kCsrShift = 20;
constexpr uint32_t kRegMask = 0x1F, kFunct3Mask = 7;
constexpr uint32_t kCsrrw = 1, kCsrrs = 2;

enum class Kind : uint8_t { none, select_write, entry_read };
struct Access {
    Kind kind;
    uint8_t reg;  // rs1 of a select write, rd of an entry read
    uint8_t slot; // entry read: 0 sireg (ctrsource), 1 sireg2 (ctrtarget), 2 sireg3 (ctrdata)
};

// What the 32-bit instruction word w is: `csrw siselect, rs1` (csrrw x0,
// siselect, rs1) or `csrr rd, sireg/sireg2/sireg3` (csrrs rd, sireg*, x0),
// with its register among frame_regs (bit n: xn is in the trap frame);
// anything else (another form, another CSR, a register the frame does not
// hold) is Kind::none.
constexpr Access decode(uint32_t w, uint32_t frame_regs) {
    if ((w & kOpcodeMask) != kOpSystem) return {Kind::none, 0, 0};
    const uint32_t rd = (w >> kRdShift) & kRegMask, rs1 = (w >> kRs1Shift) & kRegMask,
                   f3 = (w >> kFunct3Shift) & kFunct3Mask, num = w >> kCsrShift;
    if (num == ind::siselect && f3 == kCsrrw && rd == 0 && ((frame_regs >> rs1) & 1))
        return {Kind::select_write, static_cast<uint8_t>(rs1), 0};
    if (num - ind::sireg <= ind::sireg3 - ind::sireg && f3 == kCsrrs && rs1 == 0 && ((frame_regs >> rd) & 1))
        return {Kind::entry_read, static_cast<uint8_t>(rd), static_cast<uint8_t>(num - ind::sireg)};
    return {Kind::none, 0, 0};
}

// Whether the 4-byte instruction at addr (> pc + 3) lies in the page of the
// last byte of the trapping 4-byte instruction at pc. The hart fetched that
// byte, so S-mode may execute from the page (translation and PMP): code
// there is what S-mode would run next. A 2-byte-aligned pc may put the
// trapping instruction across two pages; the later one counts.
constexpr unsigned kPageShift = 12;
constexpr bool same_page(unsigned long pc, unsigned long addr) {
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
constexpr bool interrupt_due(unsigned long mip, unsigned long mie, unsigned long mideleg,
                             unsigned long sip, unsigned long sie, bool s_ie) {
    return (mip & mie & ~mideleg) != 0 || (s_ie && ((sip & sie) != 0 || (mip & mie & mideleg) != 0));
}

} // namespace ctr::follow
