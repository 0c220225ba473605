// SPDX-License-Identifier: BSD-2-Clause
// CSR-instruction semantics of the emulated CTR registers, both layouts
// (ratified "CSRs", "Entry Registers", "State Enable Access Control"; draft
// "CSRs", "Entry Registers"). One switch serves reads (W=false) and writes
// (W=true); it is inline so the firmware's illegal-instruction hook compiles
// to a single dispatch (the bench aims at <= 60 M-mode instructions per
// access). ctr_emul.cpp instantiates it for read_csr()/write_csr().
#pragma once
#include "ctr_emul.hpp"

namespace ctr {

namespace detail {

// The part of a 64-bit control register an RV32 access covers: 0 all,
// 1 bits 31:0, 2 bits 63:32 (the draft *h registers).
CTR_INLINE uint64_t half_mask(unsigned half) {
    return half == 0 ? ~0ull : half == 1 ? 0xFFFFFFFFull : ~0xFFFFFFFFull;
}
CTR_INLINE unsigned long take_half(uint64_t v, unsigned half) {
    if (half == 2) return static_cast<unsigned long>(v >> 32);
    if (half == 1) return static_cast<unsigned long>(v & 0xFFFFFFFFu);
    return static_cast<unsigned long>(v);
}
CTR_INLINE uint64_t put_half(uint64_t old, unsigned long v, unsigned half) {
    if (half == 0) return v;
    uint64_t nv = half == 2 ? uint64_t(v) << 32 : uint64_t(v) & 0xFFFFFFFFu;
    return (old & ~half_mask(half)) | (nv & half_mask(half));
}

CTR_INLINE uint64_t draft_view(uint64_t canon_ctl, uint64_t mask, const Hart &h) {
    return canon_to_draft(canon_ctl & mask) |
           (draft::depth_code(h.depth) << draft::ctl::DEPTH_shift);
}

// Writes that are not on the hot path live in ctr_emul.cpp.
void set_depth(const Config &c, Hart &h, unsigned enc);
void write_status(Hart &h, uint32_t canon_value);
void write_ctl_ratified(const Config &c, Hart &h, uint64_t &reg, uint64_t mask,
                        unsigned long v, unsigned half);
void write_ctl_draft(const Config &c, Hart &h, uint64_t &reg, uint64_t mask, unsigned long v,
                     unsigned half, bool depth_writable, bool clr_acts);

// siselect is not CTR state (its gate is mstateen0.CSRIND, which M-mode opens).
CTR_INLINE CsrResult gate_select(const Access &a) {
    if (a.priv == 0) return a.virt ? CsrResult::Virtual : CsrResult::Illegal;
    return CsrResult::Done;
}

// *ireg* with select `sel` and gate result `g`.
template <bool W>
CTR_INLINE CsrResult ireg(const Config &c, Hart &h, unsigned csr, unsigned long sel, CsrResult g,
                      unsigned long &v) {
    if (sel - ind::ctr_first > ind::ctr_last - ind::ctr_first) return CsrResult::NotMine;
    if (g != CsrResult::Done) return g;
    unsigned slot = ind::ireg_slot(csr), index = unsigned(sel - ind::ctr_first);
    if (slot > 3) { // *ireg4..6 are read-only 0
        if constexpr (!W) v = 0;
        return CsrResult::Done;
    }
    if constexpr (W) entry_write(c, h, slot - 1, index, v);
    else v = entry_read(c, h, slot - 1, index);
    return CsrResult::Done;
}

// Each register once; access_csr() below only dispatches.
template <bool W>
CTR_INLINE CsrResult sctrctl(const Config &c, Hart &h, const Access &a, unsigned long &v) {
    CsrResult g = gate_s(c, a);
    if (g != CsrResult::Done) return g;
    uint64_t &reg = a.virt ? h.vsctl : h.mctl; // V=1: vsctrctl substitutes
    unsigned lo = is_rv32(c) ? 1 : 0;
    if constexpr (W) write_ctl_ratified(c, h, reg, c.s_ratified, v, lo);
    else v = take_half(reg & c.s_ratified, lo);
    return CsrResult::Done;
}
template <bool W>
CTR_INLINE CsrResult sctrstatus(const Config &c, Hart &h, const Access &a, unsigned long &v) {
    CsrResult g = gate_s(c, a);
    if (g != CsrResult::Done) return g;
    namespace rs = ratified::status;
    if constexpr (W) write_status(h, (h.status & canon::WRAP) | (uint32_t(v) & rs::DEFINED));
    else v = h.status & rs::DEFINED;
    return CsrResult::Done;
}
template <bool W>
CTR_INLINE CsrResult iselect(const Config &c, Hart &h, const Access &a, unsigned long &v,
                             bool vsreg) {
    CsrResult g = vsreg ? gate_h(c, a, false) : gate_select(a);
    if (g != CsrResult::Done) return g;
    unsigned long &sel = vsreg || a.virt ? h.vsiselect : h.siselect;
    if constexpr (W) sel = v & ind::select_mask;
    else v = sel;
    return CsrResult::Done;
}

} // namespace detail

template <bool W>
CTR_INLINE CsrResult access_csr(const Config &c, Hart &h, unsigned csr, const Access &a,
                                unsigned long &v) {
    using namespace detail;
    const bool rat = c.views & VIEW_RATIFIED, dr = c.views & VIEW_DRAFT;
    const bool m = a.priv == kPrivM;
    const unsigned lo = is_rv32(c) ? 1 : 0;
    CsrResult g;
    // The registers S-mode software uses all the time (0x14E..0x15F) first,
    // through one small jump table.
    if (__builtin_expect(csr - ratified::sctrctl <= ratified::sctrdepth - ratified::sctrctl, 1)) {
        switch (csr) {
        case ratified::sctrctl:
            if (!rat) break;
            return sctrctl<W>(c, h, a, v);
        case ratified::sctrstatus:
            if (!rat) break;
            return sctrstatus<W>(c, h, a, v);
        case ind::siselect:
            if (!c.emulate_iselect) break;
            return iselect<W>(c, h, a, v, false);
        case ind::sireg: case ind::sireg2: case ind::sireg3:
        case ind::sireg4: case ind::sireg5: case ind::sireg6: {
            unsigned long sel = !c.emulate_iselect ? a.select : a.virt ? h.vsiselect : h.siselect;
            return ireg<W>(c, h, csr, sel, gate_s(c, a), v);
        }
        case ratified::sctrdepth:
            if (!rat) break;
            if ((g = gate_depth(c, a)) != CsrResult::Done) return g;
            if constexpr (W) set_depth(c, h, unsigned(v & ratified::depth::DEPTH));
            else v = h.depth;
            return CsrResult::Done;
        default: break;
        }
        return CsrResult::NotMine;
    }
    switch (csr) {
    // --- ratified ------------------------------------------------------------
    case ratified::vsctrctl:
        if (!rat || !c.has_h) break;
        if ((g = gate_h(c, a, true)) != CsrResult::Done) return g;
        if constexpr (W) write_ctl_ratified(c, h, h.vsctl, c.s_ratified, v, lo);
        else v = take_half(h.vsctl & c.s_ratified, lo);
        return CsrResult::Done;
    case ratified::mctrctl:
        if (!rat) break;
        if (!m) return CsrResult::Illegal;
        if constexpr (W) write_ctl_ratified(c, h, h.mctl, c.m_ratified, v, lo);
        else v = take_half(h.mctl & c.m_ratified, lo);
        return CsrResult::Done;

    // --- draft ---------------------------------------------------------------
    case draft::sctrcontrol:
    case draft::sctrcontrolh: {
        bool hi = csr == draft::sctrcontrolh;
        if (!dr || (hi && !is_rv32(c))) break;
        if ((g = gate_s(c, a)) != CsrResult::Done) return g;
        unsigned half = hi ? 2 : lo;
        // With V=1 this is vsctrcontrol (DEPTH read-only), and CLR acts.
        uint64_t &reg = a.virt ? h.vsctl : h.mctl;
        if constexpr (W) write_ctl_draft(c, h, reg, c.s_draft, v, half, !a.virt, true);
        else v = take_half(draft_view(reg, c.s_draft, h), half);
        return CsrResult::Done;
    }
    case draft::sctrstatus:
    case draft::mctrstatus:
        if (!dr) break;
        if (csr == draft::mctrstatus && !m) return CsrResult::Illegal;
        if ((g = gate_s(c, a)) != CsrResult::Done) return g;
        if constexpr (W) write_status(h, canon_status_from_draft(uint32_t(v)));
        else v = draft_status_from_canon(h.status);
        return CsrResult::Done;
    case draft::vsctrcontrol:
    case draft::vsctrcontrolh: {
        bool hi = csr == draft::vsctrcontrolh;
        if (!dr || !c.has_h || (hi && !is_rv32(c))) break;
        if ((g = gate_h(c, a, true)) != CsrResult::Done) return g;
        unsigned half = hi ? 2 : lo;
        // "writing a 1 to vsctrcontrol.CLR will affect a clear only when V=1"
        if constexpr (W) write_ctl_draft(c, h, h.vsctl, c.s_draft, v, half, false, false);
        else v = take_half(draft_view(h.vsctl, c.s_draft, h), half);
        return CsrResult::Done;
    }
    case draft::mctrcontrol:
    case draft::mctrcontrolh: {
        bool hi = csr == draft::mctrcontrolh;
        if (!dr || (hi && !is_rv32(c))) break;
        if (!m) return CsrResult::Illegal;
        unsigned half = hi ? 2 : lo;
        if constexpr (W) write_ctl_draft(c, h, h.mctl, c.m_draft, v, half, true, true);
        else v = take_half(draft_view(h.mctl, c.m_draft, h), half);
        return CsrResult::Done;
    }

    // --- indirect access -------------------------------------------------------
    case ind::vsiselect:
        if (!c.emulate_iselect || !c.has_h) break;
        return iselect<W>(c, h, a, v, true);
    case ind::miselect:
        // Draft only: "mireg* provide access to" the entries; the ratified
        // text (and QEMU 10) reach them through sireg* alone.
        if (!c.emulate_iselect || !dr || !m) break;
        if constexpr (W) h.miselect = v & ind::select_mask;
        else v = h.miselect;
        return CsrResult::Done;
    case ind::vsireg: case ind::vsireg2: case ind::vsireg3:
    case ind::vsireg4: case ind::vsireg5: case ind::vsireg6:
        if (!c.has_h) break;
        return ireg<W>(c, h, csr, c.emulate_iselect ? h.vsiselect : a.select,
                       gate_h(c, a, true), v);
    case ind::mireg: case ind::mireg2: case ind::mireg3:
    case ind::mireg4: case ind::mireg5: case ind::mireg6:
        if (!dr || !m) break;
        return ireg<W>(c, h, csr, c.emulate_iselect ? h.miselect : a.select, CsrResult::Done, v);
    default: break;
    }
    return CsrResult::NotMine;
}

} // namespace ctr
