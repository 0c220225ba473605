// SPDX-License-Identifier: BSD-2-Clause
// CTR in the firmware: per hart, either the hart implements ratified Smctr
// (native: open it to S-mode, translate the draft layout, synthesize records
// for traps the firmware redirects) or it does not (emulated: every CTR CSR
// access traps here and is served from ctr_emul). See README.md.
#include "subsystem.hpp" // ctr/subsystem.hpp: the entries defined here

#include <libfdt.h>
#include "fdt_walk.hpp"

#include "ctr_csr.hpp"
#include "ctr_dt.hpp"
#include "ctr_emul.hpp"
#include "ctr_follow.hpp"
#include "ctr_native.hpp"
#include "ctr_trace.hpp"
#include "dt.hpp"
#include "fw.hpp"
#include "hart.hpp"
#include "riscv/csr.hpp"
#include "riscv/csr_safe.hpp"
#include "sbi/services.hpp"
#include "trace/service.hpp"
#include "trap.hpp"

namespace {

using ctr::CsrResult;

// Smstateen: on RV32 bits 32-63 of mstateen0/hstateen0 (CTR, CSRIND) live in
// mstateen0h/hstateen0h.
template <unsigned Lo, unsigned Hi> void stateen_set(uint64_t bits) {
    csr_set(Lo, static_cast<unsigned long>(bits));
    if constexpr (sizeof(long) == 4) csr_set(Hi, static_cast<unsigned long>(bits >> 32));
}
template <unsigned Lo, unsigned Hi> void stateen_clear(uint64_t bits) {
    csr_clear(Lo, static_cast<unsigned long>(bits));
    if constexpr (sizeof(long) == 4) csr_clear(Hi, static_cast<unsigned long>(bits >> 32));
}
constexpr auto mstateen0_set = stateen_set<csr::mstateen0, csr::mstateen0h>;
constexpr auto mstateen0_clear = stateen_clear<csr::mstateen0, csr::mstateen0h>;
constexpr auto hstateen0_set = stateen_set<csr::hstateen0, csr::hstateen0h>;

enum class Impl : uint8_t { none, emulated, native };

struct PerHart {
    Impl impl;
    bool lcofi_managed;   // we toggle mideleg.LCOFI for LCOFIFRZ (emulated)
    bool bp_managed;      // we toggle medeleg.BREAKPOINT for BPFRZ (emulated)
    uint8_t armed;        // bit 0: breakpoints, bit 1: LCOFI currently routed to M
    bool entry_fast;      // emulated, CTR open to S-mode: S-mode's siselect and
                          // sireg* accesses may take the short path (csr_fast)
    unsigned long last_cycle; // mcycle when CtrCycleCounter last restarted
    // While feeding: S-mode has retired nothing since the trace was last
    // collected if it next traps at chain_pc with sepc still chain_sepc and
    // no trap took the full path (trace_current()); kNoChain: unknown.
    unsigned long chain_pc, chain_sepc;
    ctr::Config cfg;
    ctr::native::Shadow shadow;
};

// One slot per hart: the firmware's view, the emulated state and the
// encoder feed's state together, so the CSR path computes one address and
// the feed needs no look-up of its own. One per hart index (fw::hart_index)
// below fw::hart_count(), carved by cold_init: every hart the firmware
// serves, whatever its hart ID. The feed's state comes last, where
// hart_init's reset of `p` leaves it (a feed left running is stopped by
// ctr::feed::hart_init); feed.on: the feed runs, CTR accesses decode the
// trace first.
struct Slot {
    PerHart p;
    ctr::Hart emu;
    ctr::feed::State feed;
};
Slot *g_slot;
CTR_INLINE Slot &slot_at(unsigned long index) {
    Slot *s = g_slot + index;
    // Opaque to the optimiser: under -Os it would recompute the address
    // (index * sizeof(Slot)) at every use instead of keeping it.
    asm("" : "+r"(s));
    return *s;
}
// The calling hart's slot; on the CSR fast path, slot_at(fw::frame_index(f))
// (no mhartid, no hart-map lookup: bench 17's entry reads).
CTR_INLINE Slot &slot() { return slot_at(fw::this_index()); }
uint8_t g_views = TSBI_CTR_PROFILE;
bool g_dt_ctr[fw::kMaxHarts]; // by hart index: the device tree lists smctr/ssctr for the hart
bool g_boot_native;           // the boot hart has Smctr (for the DT fix-up)
bool g_cycles;                // /chosen/tsbi,ctr-cycles: cycle counts from the encoder

constexpr unsigned long kBpDeleg = 1ul << csr::cause::breakpoint;
constexpr unsigned long kLcofiBit = 1ul << csr::irq::LCOFI;

// The hart's real CTR registers from M-mode (ctr_native.hpp's Hw), by CSR
// number, which the instruction needs as an immediate: one case per register
// the translation reads or writes.
#define CTR_HW_WRITABLE(X)                                                                         \
    X(ctr::ratified::mctrctl) X(ctr::ratified::sctrctl) X(ctr::ratified::vsctrctl)              \
    X(ctr::ratified::sctrstatus) X(ctr::ratified::sctrdepth) X(ctr::ind::siselect) X(ctr::ind::sireg) \
    X(ctr::ind::sireg2) X(ctr::ind::sireg3) X(ctr::ind::vsireg) X(ctr::ind::vsireg2) X(ctr::ind::vsireg3)
#define CTR_HW_READ_ONLY(X) X(ctr::ind::vsiselect)
#define CTR_HW_READ_CASE(n)                                                                        \
    case n: return csr_read(n);
#define CTR_HW_WRITE_CASE(n)                                                                       \
    case n: csr_write(n, v); break;
struct HwCsr {
    static uint64_t read(unsigned n) {
        switch (n) {
            CTR_HW_WRITABLE(CTR_HW_READ_CASE)
            CTR_HW_READ_ONLY(CTR_HW_READ_CASE)
        // RV32: bits 32-63 (CTR, CSRIND) are in hstateen0h.
        case ctr::native::kHstateen0:
            if constexpr (sizeof(long) == 4)
                return csr_read(csr::hstateen0) | static_cast<uint64_t>(csr_read(csr::hstateen0h)) << 32;
            else return csr_read(csr::hstateen0);
        default: return 0;
        }
    }
    static void write(unsigned n, uint64_t v) {
        switch (n) {
            CTR_HW_WRITABLE(CTR_HW_WRITE_CASE)
        default: break;
        }
    }
    static void sctrclr() { asm volatile(".4byte %0" ::"i"(ctr::ratified::sctrclr_insn) : "memory"); }
};

inline unsigned long mcycle() { return csr_read(csr::mcycle); }

CTR_INLINE bool is_vs_ireg(unsigned csr) { return csr - ctr::ind::vsireg <= 6; }
CTR_INLINE bool is_ireg(unsigned csr) { return csr - ctr::ind::sireg <= 6 || is_vs_ireg(csr); }

// The emulated hart's xiselect when it lives in the hart (Sscsrind without
// Smctr): V=1 accesses and vsireg* use vsiselect.
CTR_INLINE unsigned long hw_select(unsigned csr, bool virt) {
    return virt || is_vs_ireg(csr) ? csr_read(ctr::ind::vsiselect) : csr_read(ctr::ind::siselect);
}

CTR_INLINE ctr::Access access(const PerHart &p, unsigned csr, unsigned mode, bool virt) {
    // hstateen0.CTR cannot be set on a hart without Ssctr (read-only 0), so
    // the emulation treats it as set: the hypervisor cannot hide emulated
    // CTR from a guest (README "Limits").
    ctr::Access a{mode, virt, true, 0};
    if (!p.cfg.emulate_iselect && is_ireg(csr)) a.select = hw_select(csr, virt);
    return a;
}

// Freeze emulation needs LCOFI and breakpoints to pass through M-mode while
// the freeze they cause is armed (README "Freeze"). Re-evaluated after every
// CTR write and every freeze.
void sync_delegation(PerHart &p, const ctr::Hart &h) {
    namespace rc = ctr::ratified::ctl;
    bool live = !ctr::frozen(h);
    uint8_t armed = uint8_t((p.bp_managed && live && (h.mctl & rc::BPFRZ) ? 1 : 0) |
                            (p.lcofi_managed && live && (h.mctl & rc::LCOFIFRZ) ? 2 : 0));
    if (armed == p.armed) return; // most writes change neither
    p.armed = armed;
    if (p.bp_managed) {
        if (armed & 1) csr_clear(csr::medeleg, kBpDeleg);
        else csr_set(csr::medeleg, kBpDeleg);
    }
    if (p.lcofi_managed) {
        // An LCOFI already pending stays delegated: S-mode takes it as it
        // would have; the freeze is armed from the next M-mode entry on.
        if ((armed & 2) && !(csr_read(csr::mip) & kLcofiBit)) csr_clear(csr::mideleg, kLcofiBit);
        else {
            csr_set(csr::mideleg, kLcofiBit);
            p.armed &= uint8_t(~2);
        }
    }
}

static_assert(ctr::ind::siselect == csr::siselect && ctr::ratified::sctrdepth == csr::sctrdepth &&
              csr::safe_listed(ctr::ratified::mctrctl) && csr::safe_listed(ctr::ratified::sctrdepth) &&
              csr::safe_listed(ctr::ind::siselect) && csr::safe_listed(csr::hstateen0));
bool probe_native() {
    // Smctr: mctrctl exists. Ssctr alone (no M-mode registers) is not a
    // configuration M-mode firmware can run on.
    return csr::csr_read_safe_num(ctr::ratified::mctrctl).trapped == 0 &&
           csr::csr_read_safe_num(ctr::ratified::sctrdepth).trapped == 0;
}

} // namespace

namespace {

// The trace feed, kept out of the CSR path's way when it does not run.
CTR_INLINE void feed_sync(Slot &s) {
    if (s.feed.on) ctr::feed::sync(s.p.cfg, s.emu, s.feed);
}
CTR_INLINE void feed_update(Slot &s) {
    if (s.feed.possible) ctr::feed::update(s.p.cfg, s.emu, s.feed);
}

// Collecting the trace stops and restarts the encoder and the sink and
// decodes what came, which costs more than everything else an access does.
// An entry is read with siselect and three sireg* accesses in a row; after
// the first sireg* has collected the trace, the others need not when S-mode
// has retired nothing since (README "Cost"). That is known without the trace
// on a hart whose siselect and sireg* always trap (Config::emulate_iselect):
// S-mode resumed at chain_pc after the last access and traps there again;
// the instruction there cannot retire (it always traps), so S-mode ran
// nothing unless a trap came first, and a trap into S-mode writes sepc =
// chain_pc (checked to differ from sepc when the chain started), one into
// M-mode takes the full path (fw::full_path_taken).
constexpr unsigned long kNoChain = 1; // no mepc is odd

CTR_INLINE bool trace_current(const PerHart &p, const fw::TrapFrame &f) {
    return p.chain_pc == csr_read(csr::mepc) && csr_read(csr::sepc) == p.chain_sepc &&
           !fw::full_path_taken(f);
}
// After an access that collected the trace and changed nothing.
CTR_INLINE void chain_start(PerHart &p, fw::TrapFrame &f) {
    unsigned long next = csr_read(csr::mepc) + 4, sepc = csr_read(csr::sepc);
    p.chain_pc = sepc == next || !p.cfg.emulate_iselect ? kNoChain : next;
    p.chain_sepc = sepc;
    fw::full_path_mark(f);
}

CTR_INLINE CsrResult csr_read_impl(unsigned csr, unsigned mode, bool virt, unsigned long &value) {
    Slot &s = slot();
    PerHart &p = s.p;
    if (p.impl == Impl::emulated) {
        feed_sync(s);
        CsrResult r = ctr::access_csr<false>(p.cfg, s.emu, csr, access(p, csr, mode, virt), value);
        // csr_fast() leaves an entry read that must collect to this way.
        if (s.feed.on && r == CsrResult::Done && mode == csr::PRV_S && !virt)
            chain_start(p, fw::current_frame());
        else p.chain_pc = kNoChain;
        return r;
    }
    if (p.impl == Impl::native) {
        HwCsr hw;
        if (!(p.cfg.views & ctr::VIEW_RATIFIED) && is_ireg(csr))
            return ctr::native::forward_ireg(hw, p.cfg, csr, {mode, virt, true, 0}, value, false);
        return ctr::native::draft_read(hw, p.shadow, p.cfg, csr, {mode, virt, true, 0}, value);
    }
    return CsrResult::NotMine;
}

CTR_INLINE CsrResult csr_write_impl(unsigned csr, unsigned mode, bool virt, unsigned long value) {
    Slot &s = slot();
    PerHart &p = s.p;
    p.chain_pc = kNoChain;
    if (p.impl == Impl::emulated) {
        feed_sync(s);
        CsrResult r = ctr::access_csr<true>(p.cfg, s.emu, csr, access(p, csr, mode, virt), value);
        if (r == CsrResult::Done) {
            p.last_cycle = mcycle();
            if (p.bp_managed | p.lcofi_managed) sync_delegation(p, s.emu);
            feed_update(s);
        }
        return r;
    }
    if (p.impl == Impl::native) {
        HwCsr hw;
        if (!(p.cfg.views & ctr::VIEW_RATIFIED) && is_ireg(csr))
            return ctr::native::forward_ireg(hw, p.cfg, csr, {mode, virt, true, 0}, value, true);
        return ctr::native::draft_write(hw, p.shadow, p.cfg, csr, {mode, virt, true, 0}, value);
    }
    return CsrResult::NotMine;
}

CTR_INLINE CsrResult sctrclr_impl(unsigned mode, bool virt) {
    Slot &s = slot();
    PerHart &p = s.p;
    if (p.impl != Impl::emulated) return CsrResult::NotMine;
    feed_sync(s);
    CsrResult r = ctr::sctrclr(p.cfg, s.emu, {mode, virt, true, 0});
    if (r == CsrResult::Done) p.last_cycle = mcycle();
    return r;
}

} // namespace

#ifdef TSBI_CTR_BENCH
// Bench builds (tests/ctr/build.mk, `make bench`) count the M-mode
// instructions retired inside the CSR hooks; S-mode reads the totals from the
// custom supervisor CSRs 0x5C8 (instructions) and 0x5C9 (hook calls).
namespace {
constexpr unsigned kBenchInsns = 0x5C8, kBenchCalls = 0x5C9;
struct BenchCount {
    unsigned long insns, calls;
} g_bench[fw::kMaxHarts];
struct BenchScope {
    unsigned long t0;
    CTR_INLINE BenchScope() { t0 = csr_read(csr::minstret); }
    // Inline, so the count ends where the hook's work does (an out-of-line
    // destructor's call and prologue would count as CTR's).
    CTR_INLINE ~BenchScope() {
        unsigned long t1 = csr_read(csr::minstret);
        BenchCount &b = g_bench[fw::this_index()];
        b.insns += t1 - t0 - 1; // the first minstret read retired in between
        b.calls++;
    }
};
} // namespace
#define CTR_BENCH_SCOPE BenchScope bench_scope_
#else
#define CTR_BENCH_SCOPE
#endif

CsrResult ctr::subsystem::read_csr(unsigned csr, unsigned mode, bool virt, unsigned long &value) {
#ifdef TSBI_CTR_BENCH
    if (csr == kBenchInsns || csr == kBenchCalls) {
        BenchCount &b = g_bench[fw::this_index()];
        value = csr == kBenchInsns ? b.insns : b.calls;
        return CsrResult::Done;
    }
#endif
    CTR_BENCH_SCOPE;
    return csr_read_impl(csr, mode, virt, value);
}

CsrResult ctr::subsystem::write_csr(unsigned csr, unsigned mode, bool virt, unsigned long value) {
#ifdef TSBI_CTR_BENCH
    if (csr == kBenchInsns || csr == kBenchCalls) return CsrResult::Done;
#endif
    CTR_BENCH_SCOPE;
    return csr_write_impl(csr, mode, virt, value);
}

namespace {

CTR_INLINE bool in_ctr_range(unsigned long sel) {
    return sel - ctr::ind::ctr_first <= ctr::ind::ctr_last - ctr::ind::ctr_first;
}

// The entry accesses right after the trapping one at pc that its trap may
// serve too (README "Entry accesses in one trap"), their words into run[];
// returns how many, and sets `reads` if one is an entry read. None while
// S-mode has a DBTR trigger installed (one on those instructions would not
// fire, one counting them would miss them), while an interrupt would be
// taken before the next instruction (its handler would run before them), or
// when the next kMaxFollowing instructions are not all in pc's page.
CTR_INLINE unsigned following(const PerHart &p, unsigned long index, unsigned long pc, unsigned long mstatus,
                              uint32_t *run, bool &reads) {
    using namespace ctr::follow;
    namespace mb = csr::mstatus_bits;
    constexpr unsigned long kWord = sizeof(long), kSpan = 4 * kMaxFollowing;
    if (!same_page(pc, pc + kSpan)) return 0;
    // interrupt_due(), with sip/sie read only where they can matter.
    const unsigned long mip = csr_read(csr::mip), mie = csr_read(csr::mie), mideleg = csr_read(csr::mideleg);
    const bool s_ie = mstatus & mb::SIE;
    if (interrupt_due(mip, mie, mideleg, s_ie ? csr_read(csr::sip) : 0, s_ie ? csr_read(csr::sie) : 0, s_ie) ||
        sbi::dbtr_triggers_in_use(index))
        return 0;
    // [pc + 4, pc + 4 + kSpan) read as S-mode reads it (MPRV with MPP=S and
    // MPV=0 as the trap left them, MXR), in aligned XLEN-bit words: an
    // aligned word lies in one page and one PMP region (the firmware's
    // entries are NAPOT, at least 8 bytes, aligned).
    const unsigned long ms = mstatus | mb::MPRV | mb::MXR, base = (pc + 4) & ~(kWord - 1);
    union {
        unsigned long w[(kSpan + 2) / kWord + 2];
        uint16_t h[((kSpan + 2) / kWord + 2) * kWord / 2];
    } code;
    // The span needs two words at least (it is longer than one): the first
    // three in one access where it needs three (a row not aligned to a word:
    // RV64, pc + 4 at 6 mod 8), else two; then one at a time, none beyond the
    // span. Where the three cannot all be read, the first two and then one
    // at a time, so a row ends at the first word that cannot be read as
    // before.
    static_assert(kSpan > kWord);
    unsigned words = 0;
    fw::UnprivResult r{0, 1};
    if (base + 2 * kWord < pc + 4 + kSpan) {
        r = fw::unpriv_lx3(base, ms, &code.w[1]);
        if (!r.trapped) code.w[0] = r.value, words = 3;
    }
    if (!words) {
        r = fw::unpriv_lx2(base, ms, &code.w[1]);
        if (!r.trapped) code.w[0] = r.value, words = 2;
    }
    if (words) {
        for (unsigned long a = base + words * kWord; a < pc + 4 + kSpan; a += kWord) {
            r = fw::unpriv_lx(a, ms);
            if (r.trapped) break;
            code.w[words++] = r.value;
        }
    }
    constexpr uint32_t regs = fw::kFastFrameRegs;
    // A siselect write traps only where the hart lacks siselect.
    const bool writes = p.cfg.emulate_iselect;
    const uint16_t *h = code.h + (pc + 4 - base) / 2;
    unsigned n = 0;
    for (; n < kMaxFollowing && (pc + 4 - base + 4 * n + 4) <= words * kWord; n++, h += 2) {
        const uint32_t w = h[0] | static_cast<uint32_t>(h[1]) << 16;
        if (is_entry_read(w, regs)) reads = true;
        else if (!(writes && is_select_write(w, regs))) break;
        run[n] = w;
    }
    return n;
}

} // namespace

// The accesses Linux's CTR driver makes for every entry it reads (siselect
// written, then sireg, sireg2, sireg3 read; ratified "Entry Registers"), from
// S-mode with V=0 on an emulated hart: what access_csr() does for them,
// without the core's decoding and the register dispatch, and for the ones
// right after the trapping one, in the same trap (README "Entry accesses in
// one trap"). Anything else (a select outside CTR's range, VS-mode, another
// form of the instruction) takes the usual way.
bool ctr::subsystem::csr_fast(fw::TrapFrame &f, uint32_t insn, unsigned long mstatus) {
    using namespace follow;
    static_assert(ctr::ind::sireg == ctr::ind::siselect + 1 && ctr::ind::sireg3 == ctr::ind::siselect + 3);
    CTR_BENCH_SCOPE;
    if (fw::mstatus_priv(mstatus) != csr::PRV_S || fw::mstatus_virt(mstatus)) return false;
    const unsigned long index = fw::frame_index(f);
    Slot &s = slot_at(index);
    PerHart &p = s.p;
    if (!p.entry_fast) return false;
    // The trapping instruction: a CSR instruction on siselect .. sireg3
    // (csr_fast_first/count) whose registers the frame holds (the core
    // checked both); taken here: `csrr` of sireg* and `csrw siselect`.
    unsigned long sel = p.cfg.emulate_iselect ? s.emu.siselect : csr_read(ctr::ind::siselect);
    bool reads = (insn >> kCsrShift) != ctr::ind::siselect;
    if (reads ? (insn & kReadFormMask) != kReadForm || !in_ctr_range(sel)
              : (insn & kWriteFormMask) != kWriteForm || !p.cfg.emulate_iselect)
        return false;
    const unsigned long pc = csr_read(csr::mepc);
    uint32_t run[kMaxFollowing + 1];
    run[0] = insn;
    // Where siselect traps, a row starts with its write: a trapping read is
    // a lone one (or the rest of a row that could not be served whole) and
    // takes no look-ahead. With Sscsrind the row's first read traps.
    const unsigned n = reads && p.cfg.emulate_iselect ? 1 : 1 + following(p, index, pc, mstatus, run + 1, reads);
    // A siselect write is not CTR state: nothing recorded before it reads or
    // changes it, so writes alone do not collect the trace (the next access
    // to CTR state does). Entry reads see every transfer before them: the
    // trace is collected first unless S-mode ran nothing since the last
    // collect (README "When records are made").
    const bool feeding = s.feed.on;
    const bool current = feeding && trace_current(p, f);
    if (reads && feeding && !current) feed_sync(s);
    unsigned served = 0;
    unsigned long slot = ctr::kNoSlot; // of the selected entry, once a read needs it
    bool slot_known = false;
    for (; served < n; served++) {
        const uint32_t w = run[served];
        if (is_write(w)) {
            // Every CTR write restarts the cycle count, as on the usual way.
            sel = f.reg(rs1_of(w)) & ctr::ind::select_mask; // x0's slot holds no 0
            s.emu.siselect = sel;
            p.last_cycle = mcycle();
            slot_known = false;
        } else {
            if (!in_ctr_range(sel)) break; // never the trapping read (checked above)
            if (!slot_known) slot = ctr::entry_slot(s.emu, sel - ctr::ind::ctr_first), slot_known = true;
            f.x[rd_of(w)] = ctr::entry_at(s.emu, entry_reg(w), slot);
        }
    }
    // The core adds 4 for the trapping instruction.
    if (served > 1) csr_write(csr::mepc, pc + 4 * (served - 1));
    if (feeding) {
        if (reads) chain_start(p, f);
        else if (current) p.chain_pc += 4 * served;
        else p.chain_pc = kNoChain;
    }
    return true;
}

CsrResult ctr::subsystem::sctrclr(unsigned mode, bool virt) {
    CTR_BENCH_SCOPE;
    return sctrclr_impl(mode, virt);
}

void ctr::subsystem::record_trap(unsigned long from_pc, unsigned long to_pc, unsigned long cause,
                             unsigned from_priv, unsigned to_priv) {
    Slot &s = slot();
    PerHart &p = s.p;
    bool irq = cause & csr::cause::interrupt_bit;
    unsigned long code = cause & ~csr::cause::interrupt_bit;
    auto from = static_cast<ctr::Mode>(from_priv), to = static_cast<ctr::Mode>(to_priv);
    if (p.impl == Impl::emulated) {
        ctr::Hart &h = s.emu;
        // Transfers before the trap first, so the records keep their order.
        feed_sync(s);
        // The feed with cycle counts dated S-mode's cycles up to this trap
        // (its stretch of trace ended here). Otherwise cycles spent in
        // M-mode and in modes not enabled are not told apart: the count is
        // an upper bound, so CCV=0.
        unsigned long now = mcycle();
        if (!(s.feed.on && ctr::feed::timed(s.feed))) {
            ctr::add_cycles(h, now - p.last_cycle);
            ctr::cycles_inexact(h);
        }
        p.last_cycle = now;
        ctr::record_trap(p.cfg, h, from, to, from_pc, to_pc, irq, code);
        if (p.bp_managed | p.lcofi_managed) sync_delegation(p, h);
        feed_update(s); // a breakpoint may have frozen CTR
    } else if (p.impl == Impl::native) {
        HwCsr hw;
        ctr::native::record_trap(hw, p.shadow, from, to, from_pc, to_pc, irq, code,
                                 p.cfg.has_h);
    }
}

bool ctr::subsystem::m_interrupt(unsigned long code) {
    Slot &s = slot();
    PerHart &p = s.p;
    if (code != csr::irq::LCOFI || !p.lcofi_managed) return false;
    // LCOFI reached M-mode because we armed the freeze: it is an LCOFI trap
    // to S-mode as far as CTR goes. Freeze, then hand the (still pending)
    // interrupt to S-mode by delegating it again.
    ctr::Hart &h = s.emu;
    feed_sync(s);
    if (h.mctl & ctr::ratified::ctl::LCOFIFRZ) h.status |= ctr::ratified::status::FROZEN;
    csr_set(csr::mideleg, kLcofiBit);
    p.armed &= uint8_t(~2);
    sync_delegation(p, h);
    feed_update(s);
    return true;
}

void ctr::subsystem::cold_init(const void *fdt, unsigned long) {
    g_slot = static_cast<Slot *>(fw::carve_per_hart(sizeof(Slot), alignof(Slot)));
    if (!g_slot) fw::fatal("ctr: no room for the harts' CTR state below the next stage");
    // Profile: /chosen/tsbi,ctr-profile = "ratified" | "draft" | "both" | "none".
    int chosen = fdtw::root_child(fdt, "chosen");
    int len = 0;
    const char *prof = chosen >= 0
                           ? static_cast<const char *>(fdt_getprop(fdt, chosen, "tsbi,ctr-profile", &len))
                           : nullptr;
    if (prof && len > 0) {
        struct {
            const char *name;
            uint8_t views;
        } const names[] = {{"ratified", ctr::VIEW_RATIFIED},
                           {"draft", ctr::VIEW_DRAFT},
                           {"both", ctr::VIEW_BOTH},
                           {"none", 0}};
        bool known = false;
        for (auto &n : names) {
            int i = 0;
            while (n.name[i] && n.name[i] == prof[i]) i++;
            if (!n.name[i] && !prof[i]) {
                g_views = n.views;
                known = true;
            }
        }
        if (!known) fw::printf("tsbi: ctr: unknown tsbi,ctr-profile, using the default\n");
    }
    // Cycle counts from the encoder (README "Cycle counts"): opt-in, they
    // cost the recording reads more than the aims allow.
    g_cycles = chosen >= 0 && fdt_getprop(fdt, chosen, "tsbi,ctr-cycles", nullptr);
    ctr::feed::set_cycles(g_cycles);
    // Harts the device tree describes with Smctr/Ssctr (compared with
    // probing in hart_init).
    const fw::dt::HartDesc *descs;
    unsigned n = fw::device_tree_harts(descs);
    constexpr uint64_t kCtrExt = (1ull << fw::EXT_SMCTR) | (1ull << fw::EXT_SSCTR);
    for (unsigned i = 0; i < n; i++)
        if (unsigned x = fw::hart_index(descs[i].hartid); x != fw::kNoHart) g_dt_ctr[x] = descs[i].isa & kCtrExt;
    g_boot_native = probe_native();
}

namespace {
// Where a hart's records come from (README "Where records come from"). Native
// CTR: harts are assumed alike, the boot hart's probe decides. The encoder
// feed: the trace service's cold_init has run (it places the feed's buffer).
ctr::dt::Source source_of(unsigned long hartid) {
    if (g_boot_native) return ctr::dt::Source::native;
    return ctr::feed::possible(hartid) ? ctr::dt::Source::encoder : ctr::dt::Source::registers;
}
const char *source_text(ctr::dt::Source s) {
    switch (s) {
    case ctr::dt::Source::native: return "native Smctr";
    case ctr::dt::Source::encoder: return "records from the N-Trace encoder";
    default: return "registers only, no recording";
    }
}
} // namespace

void ctr::subsystem::fdt_fixup(void *fdt) {
    if (!g_views) return; // "none": CTR hidden from S-mode
    // Every CPU node says where its records come from (tsbi,ctr-source).
    // Linux's CTR driver wants ssctr and sscsrind (reference linux.md) and
    // drives the ratified layout: emulated harts list them only with that
    // layout, and only where something records S-mode's transfers, unless
    // /chosen/tsbi,ctr-registers-only asks for the register interface alone
    // (a hart without a source would offer branch records that stay empty).
    int chosen = fdtw::root_child(fdt, "chosen");
    const bool registers_only = chosen >= 0 && fdt_getprop(fdt, chosen, "tsbi,ctr-registers-only", nullptr);
    const bool ratified = g_views & ctr::VIEW_RATIFIED;
    int err = ctr::dt::annotate(fdt, source_of, ratified, registers_only);
    if (err) fw::printf("tsbi: ctr: device-tree fix-up failed (%d)\n", err);
    else if (ratified && source_of(fw::current_hartid()) == ctr::dt::Source::registers)
        fw::printf("tsbi: ctr: no recording source: ssctr/sscsrind %s\n",
                   registers_only ? "advertised for the registers alone (tsbi,ctr-registers-only)"
                                  : "not advertised (/chosen/tsbi,ctr-registers-only would)");
}

unsigned long ctr::subsystem::per_hart_bytes(const void *) { return sizeof(Slot); }

unsigned long ctr::subsystem::fdt_room(const void *) {
    return g_views ? ctr::dt::annotate_room(fw::device_tree_cpu_nodes(), g_views & ctr::VIEW_RATIFIED) : 0;
}

void ctr::subsystem::hart_init() {
    unsigned long id = fw::current_hartid();
    const unsigned x = fw::this_index();
    PerHart &p = g_slot[x].p;
    p = PerHart{};
    p.chain_pc = kNoChain;
    ctr::Config &c = p.cfg;
    c.views = g_views;
    c.has_h = fw::hart_has(id, fw::EXT_H);
    c.rv32 = sizeof(long) == 4;
    c.emulate_iselect = csr::csr_read_safe_num(ctr::ind::siselect).trapped != 0;
    c.finish();
    bool native = probe_native();
    if (!g_views) { // "none": CTR hidden from S-mode
        if (native) mstateen0_clear(csr::mstateen0_bits::CTR);
        return;
    }
    const bool feed = !native && ctr::feed::possible(id);
    const ctr::dt::Source src = native ? ctr::dt::Source::native
                                : feed ? ctr::dt::Source::encoder
                                       : ctr::dt::Source::registers;
    if (id == 0 || src != source_of(0))
        fw::printf("tsbi: ctr: hart %lu: %s%s%s%s%s%s\n", id, native ? "native Smctr" : "emulated",
                   g_views & ctr::VIEW_RATIFIED ? ", ratified" : "",
                   g_views & ctr::VIEW_DRAFT ? ", draft v0.1.4" : "", native ? "" : ", ",
                   native ? "" : source_text(src),
                   feed && g_cycles && trace::ctr_cycles_possible(id) ? ", with cycle counts" : "");
    if (native != g_dt_ctr[x])
        fw::printf("tsbi: ctr: hart %lu: device tree %s Smctr, probing %s it\n", id,
                   g_dt_ctr[x] ? "lists" : "omits", native ? "finds" : "does not find");
    bool stateen = fw::hart_has(id, fw::EXT_SMSTATEEN);
    if (native) {
        p.impl = Impl::native;
        // "State Enable Access Control": S-mode reaches sctrctl, sctrstatus,
        // sctrdepth and sireg* (CSRIND) only with these bits set. Without
        // the ratified layout CTR stays closed: the draft registers and the
        // entries are then served through traps, and S-mode sees no
        // ratified register.
        constexpr uint64_t kBits = csr::mstateen0_bits::CTR | csr::mstateen0_bits::CSRIND;
        if (g_views & ctr::VIEW_RATIFIED) mstateen0_set(kBits);
        else mstateen0_clear(csr::mstateen0_bits::CTR);
        if (c.has_h && csr::csr_read_safe_num(csr::hstateen0).trapped == 0) hstateen0_set(kBits);
        // M-mode is never recorded and does not opt in to external traps.
        csr_write(ctr::ratified::mctrctl, 0);
        HwCsr::sctrclr();
        csr_write(ctr::ratified::sctrstatus, 0);
        p.shadow = {};
        return;
    }
    p.impl = Impl::emulated;
    p.entry_fast = c.stateen_ctr;
    ctr::feed::hart_init(g_slot[x].feed, id);
    if (stateen && !c.emulate_iselect) mstateen0_set(csr::mstateen0_bits::CSRIND);
    ctr::reset(c, g_slot[x].emu);
    p.last_cycle = mcycle();
    // Breakpoints pass through M-mode while BPFRZ is armed; the core's
    // redirect then does what delegation would have done (for a trap from
    // VS/VU this needs the redirect to honour hedeleg).
    p.bp_managed = csr_read(csr::medeleg) & kBpDeleg;
    p.lcofi_managed = csr_read(csr::mideleg) & kLcofiBit;
}

void ctr::subsystem::hart_resume() {
    // A non-retentive suspend may lose M-mode CSRs: re-open CTR to S-mode.
    // S-mode state (sctrctl, entries) is S-mode's to save and restore.
    Slot &s = slot();
    PerHart &p = s.p;
    p.chain_pc = kNoChain;
    if (p.impl == Impl::native) {
        constexpr uint64_t kBits = csr::mstateen0_bits::CTR | csr::mstateen0_bits::CSRIND;
        if (p.cfg.views & ctr::VIEW_RATIFIED) mstateen0_set(kBits);
        else mstateen0_set(csr::mstateen0_bits::CSRIND);
        if (p.cfg.has_h) hstateen0_set(kBits);
    } else if (p.impl == Impl::emulated && (p.bp_managed | p.lcofi_managed)) {
        sync_delegation(p, s.emu);
    }
}


