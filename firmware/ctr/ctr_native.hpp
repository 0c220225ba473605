// SPDX-License-Identifier: BSD-2-Clause
// CTR on a hart that implements ratified Smctr/Ssctr:
//  - software written for the draft layout (sctrcontrol 0x181, sctrstatus
//    0x183, vsctrcontrol 0x281) traps as illegal; its accesses are translated
//    onto the real sctrctl/vsctrctl/sctrdepth/sctrstatus;
//  - traps the firmware emulates (redirects to S-mode) are recorded into the
//    real buffer with the same rules as the emulation (ratified note under
//    "sctrstatus": increment WRPTR, write logical entry 0).
// Entry registers need no translation: both layouts use siselect 0x200+i.
//
// `Hw` is the hart as M-mode sees it: uint64_t read(unsigned csr),
// void write(unsigned csr, uint64_t), void sctrclr(). The firmware passes real
// CSR accesses; host tests pass hw_models/ctr's model of a ratified hart.
#pragma once
#include "ctr_emul.hpp"
#include "riscv/csr.hpp"

namespace ctr::native {

constexpr unsigned kHstateen0 = csr::hstateen0;

// What a ratified hart cannot hold for the draft layout, per control
// register: ETEN, and the STE software asked for. While the register was
// last written through the draft layout the hardware STE is STE && ETEN
// (draft "External Traps": both needed). `hw_ste` is what we last wrote, so
// a direct ratified write that changes STE (no trap) is noticed: from then on
// the ratified rule applies, as in the emulation.
struct ShadowCtl {
    bool draft;  // last written through the draft layout
    bool ste, eten, hw_ste;
};
struct Shadow {
    ShadowCtl m, vs;
};

// The canonical control value (ctr_spec.hpp "canon") of a real register.
inline uint64_t canonical(uint64_t hw_ctl, ShadowCtl &sh) {
    bool hw_ste = hw_ctl & ratified::ctl::STE;
    if (hw_ste != sh.hw_ste) { // written as ratified
        sh.draft = false;
        sh.ste = sh.hw_ste = hw_ste;
    }
    if (!sh.draft) return hw_ctl | (sh.eten ? canon::ETEN : 0);
    hw_ctl &= ~ratified::ctl::STE;
    return hw_ctl | canon::DRAFT | (sh.ste ? ratified::ctl::STE : 0) |
           (sh.eten ? canon::ETEN : 0);
}

// The draft WRAP bit has no ratified counterpart. Reported as "the oldest
// entry (logical depth-1) is valid", which is what a wrapped buffer looks
// like unless RASEMU popped it or software wrote entries.
template <class Hw> bool wrapped(Hw &hw) {
    unsigned n = ratified::depth::entries(unsigned(hw.read(ratified::sctrdepth) & 7));
    uint64_t save = hw.read(ind::siselect);
    hw.write(ind::siselect, ind::ctr_first + n - 1);
    bool v = hw.read(ind::sireg) & entry::source_V;
    hw.write(ind::siselect, save);
    return v;
}

namespace detail {
enum class Reg : uint8_t { sctl, vsctl, status };
struct Target {
    CsrResult res;
    Reg reg;
    bool clr; // a draft CLR acts
};
template <class Hw>
Target decode(Hw &hw, const Config &c, unsigned csr, const Access &a) {
    if (!(c.views & VIEW_DRAFT)) return {CsrResult::NotMine, Reg::sctl, false};
    // hstateen0.CTR is the hypervisor's to set; read it only for V=1.
    Access acc = a;
    if (a.virt) acc.hstateen_ctr = hw.read(kHstateen0) & ratified::stateen_CTR;
    switch (csr) {
    case draft::sctrcontrol:
        return {gate_s(c, acc), a.virt ? Reg::vsctl : Reg::sctl, true};
    case draft::sctrstatus: return {gate_s(c, acc), Reg::status, false};
    case draft::vsctrcontrol:
        if (!c.has_h) break;
        return {gate_h(c, acc, true), Reg::vsctl, false};
    case draft::mctrcontrol:
    case draft::mctrstatus:
        // Machine-level: illegal below M (M-mode firmware never traps here).
        return {CsrResult::Illegal, Reg::sctl, false};
    default: break;
    }
    // The RV32 *h registers cannot be translated: ratified RV32 has no
    // access to xctrctl[63:32]. They stay illegal.
    return {CsrResult::NotMine, Reg::sctl, false};
}
} // namespace detail

template <class Hw>
CsrResult draft_read(Hw &hw, Shadow &sh, const Config &c, unsigned csr, const Access &a,
                     unsigned long &value) {
    detail::Target t = detail::decode(hw, c, csr, a);
    if (t.res != CsrResult::Done) return t.res;
    if (t.reg == detail::Reg::status) {
        uint32_t s = uint32_t(hw.read(ratified::sctrstatus));
        value = draft_status_from_canon(s & ratified::status::DEFINED) |
                (wrapped(hw) ? draft::status::WRAP : 0);
        return CsrResult::Done;
    }
    bool vs = t.reg == detail::Reg::vsctl;
    uint64_t hw_ctl = hw.read(vs ? ratified::vsctrctl : ratified::sctrctl);
    uint64_t cn = canonical(hw_ctl, vs ? sh.vs : sh.m) & ~(ratified::ctl::M_ONLY | canon::DRAFT);
    unsigned depth = unsigned(hw.read(ratified::sctrdepth) & ratified::depth::DEPTH);
    value = canon_to_draft(cn) | (draft::depth_code(depth) << draft::ctl::DEPTH_shift);
    return CsrResult::Done;
}

template <class Hw>
CsrResult draft_write(Hw &hw, Shadow &sh, const Config &c, unsigned csr, const Access &a,
                      unsigned long value) {
    detail::Target t = detail::decode(hw, c, csr, a);
    if (t.res != CsrResult::Done) return t.res;
    if (t.reg == detail::Reg::status) {
        // WRAP cannot be written on a ratified hart.
        hw.write(ratified::sctrstatus, canon_status_from_draft(uint32_t(value)) &
                                           ratified::status::DEFINED);
        return CsrResult::Done;
    }
    bool vs = t.reg == detail::Reg::vsctl;
    ShadowCtl &s = vs ? sh.vs : sh.m;
    uint64_t cn = draft_to_canon(value) & ~ratified::ctl::M_ONLY;
    s.draft = true;
    s.ste = cn & ratified::ctl::STE;
    s.eten = cn & canon::ETEN;
    s.hw_ste = s.ste && s.eten;
    cn = (cn & ratified::ctl::DEFINED & ~ratified::ctl::STE) | (s.hw_ste ? ratified::ctl::STE : 0);
    hw.write(vs ? ratified::vsctrctl : ratified::sctrctl, cn);
    if (!vs) // vsctrcontrol.DEPTH is a read-only copy
        hw.write(ratified::sctrdepth, draft::depth_enc(value >> draft::ctl::DEPTH_shift));
    if ((value & draft::ctl::CLR) && t.clr) {
        // "zeroes all implemented CTR entries ... Also zeroes mctrstatus".
        hw.sctrclr();
        hw.write(ratified::sctrstatus, 0);
    }
    return CsrResult::Done;
}

// Entry access when the ratified layout is not offered: mstateen0.CTR is
// then clear so that S-mode sees no ratified register, and sireg* with a
// CTR select trap here; M-mode performs them on the real entries.
template <class Hw>
CsrResult forward_ireg(Hw &hw, const Config &c, unsigned csr, const Access &a,
                       unsigned long &value, bool write) {
    bool vs_reg = csr - ind::vsireg <= 6;
    if (!vs_reg && csr - ind::sireg > 6) return CsrResult::NotMine;
    if (vs_reg && !c.has_h) return CsrResult::NotMine;
    // V=1 substitutes vsiselect/vsireg* for siselect/sireg*.
    bool use_vs = vs_reg || a.virt;
    unsigned long sel = hw.read(use_vs ? ind::vsiselect : ind::siselect);
    if (sel < ind::ctr_first || sel > ind::ctr_last) return CsrResult::NotMine;
    Access acc = a;
    if (a.virt) acc.hstateen_ctr = hw.read(kHstateen0) & ratified::stateen_CTR;
    CsrResult r = vs_reg ? gate_h(c, acc, true) : gate_s(c, acc);
    if (r != CsrResult::Done) return r;
    unsigned slot = ind::ireg_slot(csr);
    if (slot > 3) { // *ireg4..6 read 0
        if (!write) value = 0;
        return CsrResult::Done;
    }
    unsigned reg = (use_vs ? ind::vsireg : ind::sireg) - 1 + slot;
    if (write) hw.write(reg, value);
    else value = hw.read(reg);
    return CsrResult::Done;
}

// The emulation's trap rules applied to the real registers.
template <class Hw>
void record_trap(Hw &hw, Shadow &sh, Mode from, Mode to, unsigned long epc,
                 unsigned long target, bool interrupt, unsigned long code, bool has_h) {
    uint64_t m = hw.read(ratified::mctrctl);
    uint64_t v = has_h ? hw.read(ratified::vsctrctl) : 0;
    constexpr uint64_t kAny = ratified::ctl::U | ratified::ctl::S | ratified::ctl::M |
                              ratified::ctl::BPFRZ | ratified::ctl::LCOFIFRZ;
    if (!((m | v) & kAny)) return; // CTR idle: nothing to record or freeze
    uint32_t status = uint32_t(hw.read(ratified::sctrstatus));
    Controls s{canonical(m, sh.m), has_h ? canonical(v, sh.vs) : 0, status};
    Decision d = trap_decision(s, from, to, epc, target, interrupt, code);
    if (d.kind == Decision::freeze) {
        hw.write(ratified::sctrstatus, status | ratified::status::FROZEN);
    } else if (d.kind == Decision::record) {
        unsigned n = ratified::depth::entries(unsigned(hw.read(ratified::sctrdepth) & 7));
        unsigned w = ((status & ratified::status::WRPTR) + 1) & (n - 1);
        hw.write(ratified::sctrstatus, (status & ~ratified::status::WRPTR) | w);
        uint64_t save = hw.read(ind::siselect);
        hw.write(ind::siselect, ind::ctr_first);
        hw.write(ind::sireg, d.source | entry::source_V);
        hw.write(ind::sireg2, d.target);
        hw.write(ind::sireg3, d.type); // CCV=0: the count is not known
        hw.write(ind::siselect, save);
    }
}

} // namespace ctr::native
