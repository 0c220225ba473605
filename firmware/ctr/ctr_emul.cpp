// SPDX-License-Identifier: BSD-2-Clause
// CTR emulation (see ctr_emul.hpp). Section names refer to specs/ctr/.
#include "ctr_emul.hpp"

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

// --- entries ----------------------------------------------------------------

static inline unsigned physical(const Hart &h, unsigned index) {
    return ((h.status & rs::WRPTR) - index - 1) & (depth_entries(h) - 1);
}

unsigned long entry_read(const Config &, const Hart &h, unsigned reg, unsigned index) {
    if (index >= depth_entries(h)) return 0;
    unsigned p = physical(h, index);
    switch (reg) {
    case 0: return h.src[p];
    case 1: return h.tgt[p];
    default: return h.data[p];
    }
}

void entry_write(const Config &c, Hart &h, unsigned reg, unsigned index, unsigned long v) {
    if (index >= depth_entries(h)) return; // "read-only 0" beyond the depth
    unsigned p = physical(h, index);
    v &= c.xlen_mask;
    switch (reg) {
    case 0: h.src[p] = v; break;
    case 1: h.tgt[p] = c.misp ? v : v & ~entry::target_MISP; break;
    default: h.data[p] = uint32_t(v) & c.data_mask; break;
    }
}

// --- recording --------------------------------------------------------------

static inline void reset_cycles(Hart &h) {
    h.cycles = 0;
    h.cycles_valid = false;
}

static inline uint32_t cycle_fields(const Config &c, const Hart &h) {
    if (!c.cycle_counting) return 0;
    return (h.cycles_valid ? entry::data_CCV : 0) |
           (cc::encode(h.cycles, c.cce_bits) << entry::data_CC_shift);
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

// --- CSR access -------------------------------------------------------------

namespace {

enum class Reg : uint8_t {
    mctl_r,   // mctrctl
    sctl_r,   // sctrctl
    vsctl_r,  // vsctrctl (or sctrctl with V=1)
    depth,    // sctrdepth
    status_r, // sctrstatus
    mctl_d,   // mctrcontrol(h)
    sctl_d,   // sctrcontrol(h)
    vsctl_d,  // vsctrcontrol(h), or sctrcontrol(h) with V=1
    status_d, // sctrstatus / mctrstatus (draft)
    iselect,  // emulated siselect / vsiselect / miselect
    ireg,     // *ireg* with a CTR select
};

struct Decoded {
    CsrResult res;
    Reg reg;
    uint8_t half;     // RV32: 0 = whole register, 1 = bits 31:0, 2 = bits 63:32
    bool clr;         // draft CLR acts (not through vsctrcontrol from HS)
    unsigned long *select_reg; // iselect: the emulated register
    unsigned slot;    // ireg: 1..3, 5..7
    unsigned index;   // ireg: entry index
};

// siselect: not CTR state (mstateen0.CSRIND, which M-mode opens).
inline CsrResult gate_select(const Access &a) {
    if (a.priv == 0) return a.virt ? CsrResult::Virtual : CsrResult::Illegal;
    return CsrResult::Done;
}

constexpr Decoded kNotMine = {CsrResult::NotMine, Reg::mctl_r, 0, false, nullptr, 0, 0};

inline Decoded ctl(CsrResult r, Reg reg, uint8_t half = 0, bool clr = true) {
    return {r, reg, half, clr, nullptr, 0, 0};
}

Decoded ireg(CsrResult r, unsigned long select, unsigned slot) {
    if (select < ind::ctr_first || select > ind::ctr_last) return kNotMine;
    return {r, Reg::ireg, 0, false, nullptr, slot, unsigned(select - ind::ctr_first)};
}

Decoded decode(const Config &c, Hart &h, unsigned csr, const Access &a) {
    const bool rat = c.views & VIEW_RATIFIED, dr = c.views & VIEW_DRAFT;
    const uint8_t lo = c.rv32 ? 1 : 0;
    const bool m = a.priv == kPrivM;
    switch (csr) {
    case ratified::sctrctl:
        if (!rat) break;
        return ctl(gate_s(c, a), a.virt ? Reg::vsctl_r : Reg::sctl_r, lo);
    case ratified::sctrstatus:
        if (!rat) break;
        return ctl(gate_s(c, a), Reg::status_r);
    case ratified::sctrdepth:
        if (!rat) break;
        return ctl(gate_depth(c, a), Reg::depth);
    case ratified::vsctrctl:
        if (!rat || !c.has_h) break;
        return ctl(gate_h(c, a, true), Reg::vsctl_r, lo);
    case ratified::mctrctl:
        if (!rat) break;
        return ctl(m ? CsrResult::Done : CsrResult::Illegal, Reg::mctl_r, lo);

    case draft::sctrcontrol:
    case draft::sctrcontrolh: {
        if (!dr || (csr == draft::sctrcontrolh && !c.rv32)) break;
        uint8_t half = csr == draft::sctrcontrolh ? 2 : lo;
        return ctl(gate_s(c, a), a.virt ? Reg::vsctl_d : Reg::sctl_d, half);
    }
    case draft::sctrstatus:
        if (!dr) break;
        return ctl(gate_s(c, a), Reg::status_d);
    case draft::vsctrcontrol:
    case draft::vsctrcontrolh: {
        if (!dr || !c.has_h || (csr == draft::vsctrcontrolh && !c.rv32)) break;
        uint8_t half = csr == draft::vsctrcontrolh ? 2 : lo;
        // "writing a 1 to vsctrcontrol.CLR will affect a clear only when V=1"
        return ctl(gate_h(c, a, true), Reg::vsctl_d, half, false);
    }
    case draft::mctrcontrol:
    case draft::mctrcontrolh: {
        if (!dr || (csr == draft::mctrcontrolh && !c.rv32)) break;
        uint8_t half = csr == draft::mctrcontrolh ? 2 : lo;
        return ctl(m ? CsrResult::Done : CsrResult::Illegal, Reg::mctl_d, half);
    }
    case draft::mctrstatus:
        if (!dr) break;
        return ctl(m ? CsrResult::Done : CsrResult::Illegal, Reg::status_d);

    case ind::siselect:
        if (!c.emulate_iselect) break;
        return {gate_select(a), Reg::iselect, 0, false, a.virt ? &h.vsiselect : &h.siselect,
                0, 0};
    case ind::vsiselect:
        if (!c.emulate_iselect || !c.has_h) break;
        return {gate_h(c, a, false), Reg::iselect, 0, false, &h.vsiselect, 0, 0};
    case ind::miselect:
        // Draft only: "mireg* provide access to" the entries; the ratified
        // text (and QEMU 10) reach them through sireg* alone.
        if (!c.emulate_iselect || !dr || !m) break;
        return {CsrResult::Done, Reg::iselect, 0, false, &h.miselect, 0, 0};

    case ind::sireg: case ind::sireg2: case ind::sireg3:
    case ind::sireg4: case ind::sireg5: case ind::sireg6: {
        unsigned long sel = !c.emulate_iselect ? a.select : a.virt ? h.vsiselect : h.siselect;
        return ireg(gate_s(c, a), sel, ind::ireg_slot(csr));
    }
    case ind::vsireg: case ind::vsireg2: case ind::vsireg3:
    case ind::vsireg4: case ind::vsireg5: case ind::vsireg6: {
        if (!c.has_h) break;
        unsigned long sel = c.emulate_iselect ? h.vsiselect : a.select;
        return ireg(gate_h(c, a, true), sel, ind::ireg_slot(csr));
    }
    case ind::mireg: case ind::mireg2: case ind::mireg3:
    case ind::mireg4: case ind::mireg5: case ind::mireg6:
        if (!dr || !m) break;
        return ireg(CsrResult::Done, c.emulate_iselect ? h.miselect : a.select,
                    ind::ireg_slot(csr));
    default: break;
    }
    return kNotMine;
}

// The part of a 64-bit control register an access covers.
inline uint64_t half_mask(uint8_t half) {
    return half == 0 ? ~0ull : half == 1 ? 0xFFFFFFFFull : ~0xFFFFFFFFull;
}
inline unsigned long take_half(uint64_t v, uint8_t half) {
    if (half == 2) return static_cast<unsigned long>(v >> 32);
    if (half == 1) return static_cast<unsigned long>(v & 0xFFFFFFFFu);
    return static_cast<unsigned long>(v);
}
inline uint64_t put_half(uint64_t old, unsigned long v, uint8_t half) {
    if (half == 0) return v;
    uint64_t nv = half == 2 ? uint64_t(v) << 32 : uint64_t(v) & 0xFFFFFFFFu;
    return (old & ~half_mask(half)) | (nv & half_mask(half));
}

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

inline uint64_t draft_view(uint64_t canon_ctl, uint64_t mask, const Hart &h) {
    return canon_to_draft(canon_ctl & mask) | (draft::depth_code(h.depth) << draft::ctl::DEPTH_shift);
}

} // namespace

CsrResult read_csr(const Config &c, Hart &h, unsigned csr, const Access &a,
                   unsigned long &value) {
    Decoded d = decode(c, h, csr, a);
    if (d.res != CsrResult::Done) return d.res;
    uint64_t v;
    switch (d.reg) {
    case Reg::mctl_r: v = h.mctl & c.m_ratified; break;
    case Reg::sctl_r: v = h.mctl & c.s_ratified; break;
    case Reg::vsctl_r: v = h.vsctl & c.s_ratified; break;
    case Reg::depth: v = h.depth; break;
    case Reg::status_r: v = h.status & rs::DEFINED; break;
    case Reg::mctl_d: v = draft_view(h.mctl, c.m_draft, h); break;
    case Reg::sctl_d: v = draft_view(h.mctl, c.s_draft, h); break;
    case Reg::vsctl_d: v = draft_view(h.vsctl, c.s_draft, h); break;
    case Reg::status_d: v = draft_status_from_canon(h.status); break;
    case Reg::iselect: v = *d.select_reg; break;
    case Reg::ireg:
        v = d.slot <= 3 ? entry_read(c, h, d.slot - 1, d.index) : 0; // ireg4..6 read 0
        break;
    default: v = 0; break;
    }
    value = take_half(v, d.half) & c.xlen_mask;
    return CsrResult::Done;
}

CsrResult write_csr(const Config &c, Hart &h, unsigned csr, const Access &a,
                    unsigned long value) {
    Decoded d = decode(c, h, csr, a);
    if (d.res != CsrResult::Done) return d.res;
    value &= c.xlen_mask;
    uint64_t *reg = &h.mctl, mask;
    switch (d.reg) {
    case Reg::vsctl_r: reg = &h.vsctl; [[fallthrough]];
    case Reg::sctl_r:
    case Reg::mctl_r: {
        mask = (d.reg == Reg::mctl_r ? c.m_ratified : c.s_ratified) & half_mask(d.half);
        uint64_t nv = put_half(*reg, value, d.half);
        // A ratified write: external traps follow the ratified rule; the
        // draft's ETEN keeps its value (it has no ratified position).
        *reg = ((*reg & ~mask) | (nv & mask)) & ~canon::DRAFT;
        reset_cycles(h); // "CtrCycleCounter is reset on writes to xctrctl"
        break;
    }
    case Reg::depth: set_depth(c, h, unsigned(value & ratified::depth::DEPTH)); break;
    case Reg::status_r:
        write_status(h, (h.status & canon::WRAP) | (uint32_t(value) & rs::DEFINED));
        break;
    case Reg::vsctl_d: reg = &h.vsctl; [[fallthrough]];
    case Reg::sctl_d:
    case Reg::mctl_d: {
        mask = d.reg == Reg::mctl_d ? c.m_draft : c.s_draft;
        uint64_t old = draft_view(*reg, mask, h);
        uint64_t nv = put_half(old, value, d.half);
        *reg = (*reg & ~mask) | (draft_to_canon(nv) & mask) | canon::DRAFT;
        if (d.reg != Reg::vsctl_d) // vsctrcontrol.DEPTH is a read-only copy
            set_depth(c, h, draft::depth_enc(nv >> draft::ctl::DEPTH_shift));
        if ((nv & draft::ctl::CLR) && d.clr) {
            // "zeroes all implemented CTR entries ... Also zeroes mctrstatus"
            clear_entries(h);
            h.status = 0;
        }
        reset_cycles(h); // "clear CCV ... upon a write to ctrcontrol"
        break;
    }
    case Reg::status_d: write_status(h, canon_status_from_draft(uint32_t(value))); break;
    case Reg::iselect: *d.select_reg = value & ind::select_mask; break;
    case Reg::ireg:
        if (d.slot <= 3) entry_write(c, h, d.slot - 1, d.index, value);
        break; // ireg4..6: read-only 0
    }
    return CsrResult::Done;
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
