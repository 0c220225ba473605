// SPDX-License-Identifier: BSD-2-Clause
// CTR emulation (see ctr_emul.hpp). Section names refer to specs/ctr/.
#include "ctr_emul.hpp"
#include "ctr_csr.hpp"

namespace ctr {

namespace rc = ratified::ctl;
namespace rs = ratified::status;

void Config::finish() {
    uint64_t impl = (ctl_impl | rc::REQUIRED) & (rc::DEFINED | canon::ETEN);
    if (!(views & VIEW_DRAFT)) impl &= ~canon::ETEN; // ETEN exists only in the draft
    ctl_impl = impl;
    m_ratified = impl & rc::DEFINED;
    s_ratified = m_ratified & ~rc::M_ONLY;
    m_draft = impl;
    s_draft = impl & ~rc::M_ONLY;
    if (cce_bits > 4) cce_bits = 4;
    data_mask = entry::data_TYPE;
    if (cycle_counting)
        data_mask |= entry::data_CCV | entry::data_CCM |
                     (((1u << cce_bits) - 1) << (entry::data_CC_shift + cc::kMantBits));
    xlen_mask = rv32 ? 0xFFFFFFFFul : ~0ul;
    if (depth_max > kCapacityEnc) depth_max = kCapacityEnc;
    if (depth_min > depth_max) depth_min = depth_max;
}

void clear_entries(Hart &h) {
    for (unsigned i = 0; i < kCapacity; i++) {
        h.src[i] = 0;
        h.tgt[i] = 0;
        h.data[i] = 0;
    }
    // SCTRCLR: "Zeroes the CTR cycle counter and CCV".
    h.cycles = 0;
    h.cycles_valid = false;
}

void reset(const Config &c, Hart &h) {
    h.mctl = 0;
    h.vsctl = 0;
    h.status = 0;
    h.depth = c.depth_min;
    h.siselect = h.vsiselect = h.miselect = 0;
    clear_entries(h);
}

// --- recording --------------------------------------------------------------

static inline void reset_cycles(Hart &h) {
    h.cycles = 0;
    h.cycles_valid = false;
}

uint32_t cc_field(const Config &c, uint64_t cycles) {
    return c.cycle_counting ? cc::encode(cycles, c.cce_bits) << entry::data_CC_shift : 0;
}

static inline uint32_t cycle_fields(const Config &c, const Hart &h) {
    return (c.cycle_counting && h.cycles_valid ? entry::data_CCV : 0) | cc_field(c, h.cycles);
}

// Writes one record at physical entry `p` and restarts the cycle counter.
static void fill(const Config &c, Hart &h, unsigned p, unsigned long source,
                 unsigned long target, unsigned type, bool misp) {
    h.src[p] = (source & c.xlen_mask) | entry::source_V;
    target &= c.xlen_mask & ~entry::target_MISP;
    h.tgt[p] = target | (misp && c.misp ? entry::target_MISP : 0);
    h.data[p] = type | cycle_fields(c, h);
    h.cycles = 0;
    h.cycles_valid = true;
}

// A qualified transfer: written at WRPTR, which then advances ("Behavior").
static void push(const Config &c, Hart &h, unsigned long source, unsigned long target,
                 unsigned type, bool misp = false) {
    unsigned n = depth_entries(h), w = h.status & rs::WRPTR;
    fill(c, h, w, source, target, type, misp);
    unsigned next = (w + 1) & (n - 1);
    // Draft "mctrstatus": WRAP is set when WRPTR wraps on an increment.
    h.status = (h.status & ~rs::WRPTR) | next | (next == 0 ? canon::WRAP : 0);
}

// RAS emulation (ratified "RAS (Return Address Stack) Emulation Mode").
static void ras(const Config &c, Hart &h, unsigned long source, unsigned long target,
                unsigned type, bool misp) {
    unsigned n = depth_entries(h), w = h.status & rs::WRPTR;
    unsigned top = (w - 1) & (n - 1);
    switch (type) {
    case TYPE_INDIRECT_CALL:
    case TYPE_DIRECT_CALL: push(c, h, source, target, type, misp); break;
    case TYPE_FUNCTION_RETURN:
        // Pop: decrement WRPTR, invalidate that entry. Cycles of the popped
        // call are not carried over, so the next call's CC is not exact.
        h.src[top] &= ~entry::source_V;
        h.status = (h.status & ~rs::WRPTR) | top;
        if (w == 0) h.status &= ~canon::WRAP; // draft: WRAP cleared on wrap-back
        h.cycles_valid = false;
        break;
    case TYPE_COROUTINE_SWAP: fill(c, h, top, source, target, type, misp); break;
    default: break; // other transfer types are inhibited
    }
}

void record_transfer(const Config &c, Hart &h, Mode mode, unsigned long source,
                     unsigned long target, Type type, bool misp) {
    if (frozen(h) || !mode_enabled(h, mode)) return;
    uint64_t ctl = mode_virt(mode) ? h.vsctl : h.mctl;
    if (ctl & rc::RASEMU) return ras(c, h, source, target, type, misp);
    // "Transfer Type Filtering": opt-out bits, except NTBREN which opts in.
    bool bit = ctl & filter_bit(type);
    if (type == TYPE_NOT_TAKEN_BRANCH ? !bit : bit) return;
    push(c, h, source, target, type, misp);
}

void TransferRun::refresh() {
    record_ = 0;
    wrap_ = depth_entries(h_) - 1;
    general_ = false;
    if (frozen(h_) || !mode_enabled(h_, mode_)) return;
    uint64_t ctl = mode_virt(mode_) ? h_.vsctl : h_.mctl;
    if (ctl & rc::RASEMU) {
        general_ = true;
        return;
    }
    // record_transfer()'s filter test for every type at once: filter_bit()
    // is bit 32 + TYPE, opt-out except NTBREN.
    constexpr unsigned kShift = __builtin_ctzll(filter_bit(0));
    record_ = (~uint32_t(ctl >> kShift) & 0xFFFFu) ^ (1u << TYPE_NOT_TAKEN_BRANCH);
}

static bool enabled(const Controls &s, Mode m) {
    switch (m) {
    case MODE_U: return s.mctl & rc::U;
    case MODE_S: return s.mctl & rc::S;
    case MODE_M: return s.mctl & rc::M;
    case MODE_VU: return s.vsctl & rc::U;
    case MODE_VS: return s.vsctl & rc::S;
    }
    return false;
}

bool mode_enabled(const Hart &h, Mode m) { return enabled(controls(h), m); }

// The external-trap enable of the mode a trap goes to or through.
static bool trap_enable(const Controls &s, Mode m) {
    switch (m) {
    case MODE_VS: return s.vsctl & rc::STE;
    case MODE_S: return s.mctl & rc::STE;
    case MODE_M: return s.mctl & rc::MTE;
    default: return false;
    }
}

// Ratified "External Traps", table "External Trap Enable Requirements": the
// target's and every intervening mode's enable. The draft has no intervening
// rule but needs ETEN: used when the active control register was last written
// through the draft layout.
static bool external_trap_enabled(const Controls &s, uint64_t ctl, Mode from, Mode to) {
    if (ctl & canon::DRAFT) return (ctl & canon::ETEN) && trap_enable(s, to);
    Mode m = from;
    while (m != to) {
        switch (m) {
        case MODE_VU: m = MODE_VS; break;
        case MODE_VS:
        case MODE_U: m = MODE_S; break;
        case MODE_S: m = MODE_M; break;
        default: return false;
        }
        if (!trap_enable(s, m)) return false;
    }
    return true;
}

// The control register in effect for a transfer ("Virtualization Mode
// Transitions": vsctrctl when either side has V=1).
static inline uint64_t active_ctl(const Controls &s, Mode from, Mode to) {
    return mode_virt(from) || mode_virt(to) ? s.vsctl : s.mctl;
}

constexpr unsigned long kCauseBreakpoint = 3, kIrqLcofi = 13;

Decision trap_decision(const Controls &s, Mode from, Mode to, unsigned long epc,
                       unsigned long target, bool interrupt, unsigned long code) {
    // "Freeze": LCOFI or breakpoint into M/S by sctrctl, into VS by vsctrctl.
    // The freezing trap itself is not recorded.
    uint64_t fctl = to == MODE_VS ? s.vsctl : s.mctl;
    if ((interrupt && code == kIrqLcofi && (fctl & rc::LCOFIFRZ)) ||
        (!interrupt && code == kCauseBreakpoint && (fctl & rc::BPFRZ)))
        return {Decision::freeze, 0, 0, 0};
    constexpr Decision none = {Decision::none, 0, 0, 0};
    if (s.status & rs::FROZEN) return none;
    uint64_t ctl = active_ctl(s, from, to);
    if (ctl & rc::RASEMU) return none; // traps are "other transfer types"
    uint8_t type = interrupt ? TYPE_INTERRUPT : TYPE_EXCEPTION;
    bool src_on = enabled(s, from), dst_on = enabled(s, to);
    // "Privilege Mode Transitions", table "Trap and Trap Return Recording".
    if (dst_on) {
        if (ctl & filter_bit(type)) return none;
        return {Decision::record, type, src_on ? epc : 0, target};
    }
    // External trap: not subject to EXCINH/INTRINH; ctrtarget.PC is 0.
    if (src_on && external_trap_enabled(s, ctl, from, to))
        return {Decision::record, type, epc, 0};
    return none;
}

Decision trap_return_decision(const Controls &s, Mode from, Mode to, unsigned long pc,
                              unsigned long target) {
    constexpr Decision none = {Decision::none, 0, 0, 0};
    if ((s.status & rs::FROZEN) || !enabled(s, from)) return none;
    if (active_ctl(s, from, to) & (rc::RASEMU | rc::TRETINH)) return none;
    return {Decision::record, TYPE_TRAP_RETURN, pc, enabled(s, to) ? target : 0};
}

static void apply(const Config &c, Hart &h, const Decision &d) {
    if (d.kind == Decision::freeze) h.status |= rs::FROZEN;
    else if (d.kind == Decision::record) push(c, h, d.source, d.target, d.type);
}

void record_trap(const Config &c, Hart &h, Mode from, Mode to, unsigned long epc,
                 unsigned long target, bool interrupt, unsigned long code) {
    apply(c, h, trap_decision(controls(h), from, to, epc, target, interrupt, code));
}

void record_trap_return(const Config &c, Hart &h, Mode from, Mode to, unsigned long pc,
                        unsigned long target) {
    apply(c, h, trap_return_decision(controls(h), from, to, pc, target));
}

// --- CSR access (ctr_csr.hpp) ------------------------------------------------

namespace detail {

void set_depth(const Config &c, Hart &h, unsigned enc) {
    // WARL: unsupported encodings (incl. reserved '11x) become the nearest
    // supported one.
    if (enc > c.depth_max) enc = c.depth_max;
    if (enc < c.depth_min) enc = c.depth_min;
    if (enc == h.depth) return;
    h.depth = uint8_t(enc);
    // "On depth changes, WRPTR holds an unspecified but legal value."
    h.status &= ~rs::WRPTR | (ratified::depth::entries(enc) - 1);
}

void write_status(Hart &h, uint32_t canon_value) {
    uint32_t keep = rs::WRPTR | canon::WRAP | rs::FROZEN;
    h.status = (h.status & ~keep) | (canon_value & keep);
    h.status &= ~rs::WRPTR | (depth_entries(h) - 1); // WRPTR is WARL within depth
}

void write_ctl_ratified(const Config &c, Hart &h, uint64_t &reg, uint64_t mask,
                        unsigned long v, unsigned half) {
    mask &= half_mask(half);
    uint64_t nv = put_half(reg, v & c.xlen_mask, half);
    // A ratified write: external traps follow the ratified rule; the draft's
    // ETEN keeps its value (it has no ratified position).
    reg = ((reg & ~mask) | (nv & mask)) & ~canon::DRAFT;
    reset_cycles(h); // "CtrCycleCounter is reset on writes to xctrctl"
}

void write_ctl_draft(const Config &c, Hart &h, uint64_t &reg, uint64_t mask, unsigned long v,
                     unsigned half, bool depth_writable, bool clr_acts) {
    uint64_t nv = put_half(draft_view(reg, mask, h), v & c.xlen_mask, half);
    reg = (reg & ~mask) | (draft_to_canon(nv) & mask) | canon::DRAFT;
    if (depth_writable) // vsctrcontrol.DEPTH is a read-only copy
        set_depth(c, h, draft::depth_enc(nv >> draft::ctl::DEPTH_shift));
    if ((nv & draft::ctl::CLR) && clr_acts) {
        // "zeroes all implemented CTR entries ... Also zeroes mctrstatus"
        clear_entries(h);
        h.status = 0;
    }
    reset_cycles(h); // "clear CCV ... upon a write to ctrcontrol"
}

} // namespace detail

CsrResult read_csr(const Config &c, Hart &h, unsigned csr, const Access &a,
                   unsigned long &value) {
    return access_csr<false>(c, h, csr, a, value);
}

CsrResult write_csr(const Config &c, Hart &h, unsigned csr, const Access &a,
                    unsigned long value) {
    return access_csr<true>(c, h, csr, a, value);
}

CsrResult sctrclr(const Config &c, Hart &h, const Access &a) {
    if (!(c.views & VIEW_RATIFIED)) return CsrResult::NotMine;
    // "raises an illegal-instruction exception in U-mode, and a
    // virtual-instruction exception in VU-mode", after the stateen checks.
    CsrResult r = gate_s(c, a);
    if (r != CsrResult::Done) return r;
    clear_entries(h);
    return CsrResult::Done;
}

} // namespace ctr
