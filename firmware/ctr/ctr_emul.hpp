// SPDX-License-Identifier: BSD-2-Clause
// CTR emulation: the per-hart state of a Control Transfer Records
// implementation kept in memory, its CSR and indirect-CSR semantics for both
// register layouts, and a recording interface that applies the
// specification's rules. No hart access: the same code runs in the firmware
// (fed by the trap path) and on the host (unit tests, the hardware model in
// hw_models/ctr).
//
// State is canonical (ratified layout, see ctr_spec.hpp "canon"); the
// ratified CSRs (0x14E...) and the draft CSRs (0x181...) are two views of it,
// each enabled by Config::views.
#pragma once
#include "ctr_spec.hpp"
#include "../include/subsystem.hpp"

#ifndef TSBI_CTR_EMU_ENTRIES
// Physical entries per hart; the largest supported depth. 64 entries cost
// 20 bytes each per hart (RV64). Build with -DTSBI_CTR_EMU_ENTRIES=256 for the
// full range.
#define TSBI_CTR_EMU_ENTRIES 64
#endif

namespace ctr {

using fw::CsrResult;

constexpr unsigned kCapacity = TSBI_CTR_EMU_ENTRIES;
static_assert(kCapacity >= 16 && kCapacity <= 256 && (kCapacity & (kCapacity - 1)) == 0,
              "TSBI_CTR_EMU_ENTRIES must be a power of two in 16..256");
constexpr unsigned kCapacityEnc = __builtin_ctz(kCapacity) - 4; // sctrdepth encoding

// Which register layouts software sees (README "Profiles").
enum Views : uint8_t { VIEW_RATIFIED = 1, VIEW_DRAFT = 2, VIEW_BOTH = 3 };

// An implementation choice: which optional parts exist. Fixed after boot.
struct Config {
    uint8_t views = VIEW_BOTH;
    bool has_h = false;          // H extension: vsctrctl, vsiselect/vsireg*
    bool rv32 = false;           // XLEN 32: draft *h CSRs, 32-bit ireg access
    bool cycle_counting = true;  // ctrdata.CCV/CC implemented
    uint8_t cce_bits = 4;        // implemented CCE bits (0..4)
    bool misp = true;            // ctrtarget.MISP writable
    uint8_t depth_min = 0, depth_max = kCapacityEnc; // supported sctrdepth encodings
    bool stateen_ctr = true;     // mstateen0.CTR as set by M-mode
    bool emulate_iselect = true; // the hart has no siselect: keep it here
    // Implemented mctrctl fields (canonical layout). Every standard field, as
    // QEMU 10 implements them, so emulated and native harts look alike.
    uint64_t ctl_impl = ratified::ctl::DEFINED | canon::ETEN;

    // Derived by finish(): view masks in canonical layout.
    uint64_t m_ratified = 0, s_ratified = 0, m_draft = 0, s_draft = 0;
    uint32_t data_mask = 0;
    unsigned long xlen_mask = 0;
    void finish();
};

// Per-hart state. Entries are physical: logical entry X lives at
// (WRPTR - X - 1) mod depth (ratified "sctrstatus").
struct Hart {
    uint64_t mctl;       // mctrctl, canonical (plus canon::ETEN/DRAFT)
    uint64_t vsctl;      // vsctrctl, canonical
    uint32_t status;     // WRPTR | canon::WRAP | FROZEN
    uint8_t depth;       // sctrdepth.DEPTH
    bool cycles_valid;   // CCV for the next record
    uint64_t cycles;     // CtrCycleCounter
    unsigned long siselect, vsiselect, miselect; // when emulated
    unsigned long src[kCapacity];
    unsigned long tgt[kCapacity];
    uint32_t data[kCapacity];
};

// Who accesses: the trapping privilege (0 U, 1 S, 3 M), V, hstateen0.CTR as
// the hypervisor set it (only used when virt), and the hart's own xiselect
// value when Config::emulate_iselect is false (read by the caller for ireg
// accesses only).
struct Access {
    unsigned priv;
    bool virt;
    bool hstateen_ctr;
    unsigned long select;
};

constexpr unsigned kPrivM = 3;

// Small helpers on the CSR path are forced inline: the firmware is built for
// size (-Os), which would otherwise call them.
#define CTR_INLINE __attribute__((always_inline)) inline

// XLEN is fixed in the firmware; the host tests also emulate RV32 harts.
#ifdef __riscv
constexpr bool kDynamicXlen = false;
#else
constexpr bool kDynamicXlen = true;
#endif
CTR_INLINE bool is_rv32(const Config &c) { return kDynamicXlen ? c.rv32 : sizeof(long) == 4; }

// Access checks ("State Enable Access Control"; H extension rules for
// VS/VU-mode), shared with the native translation.
// Supervisor-level CTR state (sctrctl, sctrstatus, sireg* with a CTR select,
// SCTRCLR).
CTR_INLINE CsrResult gate_s(const Config &c, const Access &a) {
    if (a.priv == kPrivM) return CsrResult::Done;
    if (!c.stateen_ctr) return CsrResult::Illegal;
    if (a.priv == 0) return a.virt ? CsrResult::Virtual : CsrResult::Illegal;
    if (a.virt && !a.hstateen_ctr) return CsrResult::Virtual;
    return CsrResult::Done;
}
// Hypervisor-level registers (vsctrctl, vsiselect, vsireg*): HS-mode only.
CTR_INLINE CsrResult gate_h(const Config &c, const Access &a, bool ctr_state) {
    if (a.priv == kPrivM) return CsrResult::Done;
    if (ctr_state && !c.stateen_ctr) return CsrResult::Illegal;
    if (a.virt) return CsrResult::Virtual;
    if (a.priv == 0) return CsrResult::Illegal;
    return CsrResult::Done;
}
// sctrdepth: VS-mode access raises virtual-instruction ("sctrdepth").
CTR_INLINE CsrResult gate_depth(const Config &c, const Access &a) {
    if (a.priv == kPrivM) return CsrResult::Done;
    if (!c.stateen_ctr) return CsrResult::Illegal;
    if (a.virt) return CsrResult::Virtual;
    if (a.priv == 0) return CsrResult::Illegal;
    return CsrResult::Done;
}

void reset(const Config &c, Hart &h);

// CSR instruction semantics. NotMine: not a CTR register in the enabled
// views (the caller continues with its own handling). Illegal / Virtual: the
// exception to raise. For a read-modify-write the caller reads, computes and
// writes.
CsrResult read_csr(const Config &c, Hart &h, unsigned csr, const Access &a,
                   unsigned long &value);
CsrResult write_csr(const Config &c, Hart &h, unsigned csr, const Access &a,
                    unsigned long value);
// The SCTRCLR instruction (ratified view only).
CsrResult sctrclr(const Config &c, Hart &h, const Access &a);

// Helpers on the state.
CTR_INLINE unsigned depth_entries(const Hart &h) { return ratified::depth::entries(h.depth); }

// Entry registers by logical index; reg 0 = ctrsource, 1 = ctrtarget,
// 2 = ctrdata. Logical X is physical (WRPTR - X - 1) mod depth (ratified
// "sctrstatus" note). Indices at or beyond the depth read 0 and ignore
// writes ("sctrdepth").
// entry_read() in two steps, for several reads of one entry: the physical
// slot of logical entry `index` (kNoSlot at or beyond the depth), then a
// register of that slot.
constexpr unsigned long kNoSlot = ~0ul;
CTR_INLINE unsigned long entry_slot(const Hart &h, unsigned long index) {
    // Word-sized arithmetic: no 32-bit wrap to redo on RV64 (an emulated
    // entry read is on the CSR fast path).
    unsigned long n = depth_entries(h);
    if (index >= n) return kNoSlot;
    return ((h.status & ratified::status::WRPTR) - index - 1) & (n - 1);
}
CTR_INLINE unsigned long entry_at(const Hart &h, unsigned long reg, unsigned long p) {
    if (p == kNoSlot) return 0;
    return reg == 0 ? h.src[p] : reg == 1 ? h.tgt[p] : h.data[p];
}
CTR_INLINE unsigned long entry_read(const Config &, const Hart &h, unsigned long reg, unsigned long index) {
    return entry_at(h, reg, entry_slot(h, index));
}
CTR_INLINE void entry_write(const Config &c, Hart &h, unsigned reg, unsigned index, unsigned long v) {
    unsigned n = depth_entries(h);
    if (index >= n) return;
    unsigned p = ((h.status & ratified::status::WRPTR) - index - 1) & (n - 1);
    v &= c.xlen_mask;
    if (reg == 0) h.src[p] = v;
    else if (reg == 1) h.tgt[p] = c.misp ? v : v & ~entry::target_MISP;
    else h.data[p] = uint32_t(v) & c.data_mask;
}
CTR_INLINE bool frozen(const Hart &h) { return h.status & ratified::status::FROZEN; }
bool mode_enabled(const Hart &h, Mode m);
// Zeroes every physical entry and the cycle counter (SCTRCLR, draft CLR).
void clear_entries(Hart &h);

// --- Recording interface --------------------------------------------------
// Everything that makes records goes through these: the firmware's trap
// path today, a trace-encoder feed later. Each applies "Behavior" (enables,
// FROZEN, filters, RASEMU) itself.
//
// A transfer that does not change privilege (branch, jump, call, return),
// executed in `mode`.
void record_transfer(const Config &c, Hart &h, Mode mode, unsigned long source,
                     unsigned long target, Type type, bool misp = false);
// The rules for traps and trap returns as a pure decision on the control
// state, so a hart with real CTR registers can apply them to synthesize
// records for traps the firmware emulates (ratified "sctrstatus" note:
// "increment the WRPTR, then write the synthesized record to logical entry 0").
struct Controls {
    uint64_t mctl, vsctl; // canonical
    uint32_t status;
};
struct Decision {
    enum Kind : uint8_t { none, freeze, record } kind;
    uint8_t type;
    unsigned long source, target;
};
Decision trap_decision(const Controls &s, Mode from, Mode to, unsigned long epc,
                       unsigned long target, bool interrupt, unsigned long code);
Decision trap_return_decision(const Controls &s, Mode from, Mode to, unsigned long pc,
                              unsigned long target);
inline Controls controls(const Hart &h) { return {h.mctl, h.vsctl, h.status}; }

// A trap from `from` to `to`: `epc` is the trapping pc, `target` the handler
// address; `interrupt`/`code` as in xcause. Applies LCOFIFRZ/BPFRZ freeze,
// the privilege-transition table and external-trap enables.
void record_trap(const Config &c, Hart &h, Mode from, Mode to, unsigned long epc,
                 unsigned long target, bool interrupt, unsigned long code);
// A trap return (xRET) at `pc` from `from` to `to`, resuming at `target`.
void record_trap_return(const Config &c, Hart &h, Mode from, Mode to, unsigned long pc,
                        unsigned long target);
// CtrCycleCounter: `n` more active cycles; or the count since the last
// record is not exact (the next record gets CCV=0).
inline void add_cycles(Hart &h, uint64_t n) { h.cycles += n; }
inline void cycles_inexact(Hart &h) { h.cycles_valid = false; }

// The CC field (without CCV) of the next record for a cycle count (0 when CC
// is not implemented).
uint32_t cc_field(const Config &c, uint64_t cycles);

// Transfers of one mode in a row, each with an unknown cycle count: what
// record_transfer() after cycles_inexact() records, for a feed that records
// many at once (the trace decoder, ctr_trace.cpp). What cannot change
// between two transfers (FROZEN, the mode's enable, RASEMU, the filters, the
// depth) is looked at once, in refresh(); call it again after anything else
// changed the control state. Under RASEMU every transfer takes the general
// path.
class TransferRun {
  public:
    TransferRun(const Config &c, Hart &h, Mode mode) : c_(c), h_(h), mode_(mode) { refresh(); }
    void refresh();
    // A transfer of this type is certainly not recorded (filtered out,
    // FROZEN, the mode not enabled): it does not restart the cycle counter.
    CTR_INLINE bool skips(Type type) const { return !general_ && !(record_ >> type & 1); }
    CTR_INLINE void transfer(unsigned long source, unsigned long target, Type type) {
        if (!(record_ >> type & 1)) {
            cycles_inexact(h_);
            if (general_) record_transfer(c_, h_, mode_, source, target, type);
            return;
        }
        // push() of ctr_emul.cpp with misp = false and CCV = 0.
        unsigned w = h_.status & ratified::status::WRPTR;
        h_.src[w] = (source & c_.xlen_mask) | entry::source_V;
        h_.tgt[w] = target & c_.xlen_mask & ~entry::target_MISP;
        h_.data[w] = type | (h_.cycles ? cc_field(c_, h_.cycles) : 0);
        h_.cycles = 0;
        h_.cycles_valid = true;
        unsigned next = (w + 1) & wrap_;
        h_.status = (h_.status & ~ratified::status::WRPTR) | next | (next == 0 ? canon::WRAP : 0);
    }

    // The same for a transfer whose cycle count is known (add_cycles() up to
    // it): CCV as record_transfer() gives it; one not recorded leaves the
    // counter running.
    CTR_INLINE void transfer_dated(unsigned long source, unsigned long target, Type type) {
        if (!(record_ >> type & 1)) {
            if (general_) record_transfer(c_, h_, mode_, source, target, type);
            return;
        }
        unsigned w = h_.status & ratified::status::WRPTR;
        h_.src[w] = (source & c_.xlen_mask) | entry::source_V;
        h_.tgt[w] = target & c_.xlen_mask & ~entry::target_MISP;
        h_.data[w] = type | (c_.cycle_counting && h_.cycles_valid ? entry::data_CCV : 0) |
                     (h_.cycles ? cc_field(c_, h_.cycles) : 0);
        h_.cycles = 0;
        h_.cycles_valid = true;
        unsigned next = (w + 1) & wrap_;
        h_.status = (h_.status & ~ratified::status::WRPTR) | next | (next == 0 ? canon::WRAP : 0);
    }

  private:
    const Config &c_;
    Hart &h_;
    Mode mode_;
    uint32_t record_ = 0; // bit per type: recorded by the fast path
    unsigned wrap_ = 0;   // depth - 1
    bool general_ = false;
};

} // namespace ctr
