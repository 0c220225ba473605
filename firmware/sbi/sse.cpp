// SPDX-License-Identifier: BSD-2-Clause
// Supervisor Software Events extension (ext-sse.adoc, EID "SSE").
//
// Events (README "SSE"): LOCAL_SOFTWARE and GLOBAL_SOFTWARE (raised only by
// sbi_sse_inject) and LOCAL_PMU_OVERFLOW (Sscofpmf counter overflow). The
// state machine and attribute rules are in sse_events.hpp; this file holds
// the per-hart state, the delivery into S-mode and the completion.
//
// Delivery happens on the way out of M-mode: after an SSE call (inject,
// enable, unmask, complete can make an event ready on the calling hart) and
// after an M-mode interrupt (the IPI of an injection from another hart, the
// counter-overflow interrupt). It rewrites the context the trap returns to
// ("Software Event Injection"); completion rewrites it back ("Software Event
// Completion"). Local events are touched only by their own hart, other harts
// inject through an atomic mailbox plus an IPI; global events are shared
// under one lock.
#include "ecall_list.hpp"
#include "riscv/csr.hpp"
#include "services.hpp"
#include "sse_events.hpp"
#include "trap.hpp"

namespace sbi {
namespace {

using namespace sse;
using namespace csr;

// mstatus fields only SSE needs: SPELP (Zicfilp); MPELP in mstatus on RV64,
// in mstatush on RV32 (privileged spec, "mstatus").
constexpr unsigned long SPELP = 1ul << 23, SDT = mstatus_bits::SDT;
constexpr unsigned kMstatush = 0x310;
#if __riscv_xlen == 64
constexpr unsigned long MPELP = 1ul << 41;
#else
constexpr unsigned long MPELP_H = 1ul << 9, MPV_H = 1ul << 7;
#endif
constexpr unsigned long kLcofiBit = 1ul << irq::LCOFI;
constexpr uint8_t kNone = 0xff;


constexpr unsigned kNumGlobal = kNumEvents - kNumLocal;
struct GlobalEvent {
    Event ev;
    unsigned long preferred; // PREFERRED_HART; kNoHart until written
    unsigned long runner;    // hart it is RUNNING on
};
constexpr unsigned long kNoHart = ~0ul;
GlobalEvent globals[kNumGlobal] = {{{}, kNoHart, kNoHart}};
fw::atomic<unsigned> global_lock;

struct GlobalGuard {
    GlobalGuard() {
        while (global_lock.exchange(1, fw::memory_order_acquire)) {
        }
    }
    ~GlobalGuard() { global_lock.store(0, fw::memory_order_release); }
};

HartSse &self() { return fw::this_block().sse; }
bool pmu_overflow_backed() { return fw::hart_has(fw::current_hartid(), fw::EXT_SSCOFPMF); }
bool double_trap_backed() { return fwft_double_trap_backed(); }

// PREFERRED_HART of a global event: its reset value is the lowest hart ID
// S-mode can use (README "SSE").
unsigned long preferred(const GlobalEvent &g) {
    if (g.preferred != kNoHart) return g.preferred;
    for (unsigned i = 0; i < fw::hart_count(); i++) // ascending hart IDs
        if (fw::index_valid(i)) return fw::hart_at(i).hartid;
    return 0;
}

Event &event_of(unsigned idx, HartSse &h) {
    return idx < kNumLocal ? h.local[idx] : globals[idx - kNumLocal].ev;
}

// While this hart's PMU overflow event is ENABLED or RUNNING the overflow
// interrupt comes to M-mode and is delivered as the event; otherwise it is
// S-mode's LCOFI as before (delegated, with S-mode's own sie.LCOFIE).
void route_lcofi(HartSse &h) {
    uint8_t st = h.local[EV_PMU_OVERFLOW].state;
    bool take = st == ENABLED || st == RUNNING;
    if (take == h.lcofi_taken) return;
    if (take) {
        h.s_lcofie = (csr_read(mie) & kLcofiBit) != 0;
        csr_clear(mideleg, kLcofiBit);
        csr_set(mie, kLcofiBit);
    } else {
        csr_set(mideleg, kLcofiBit);
        if (h.s_lcofie) csr_set(mie, kLcofiBit);
        else csr_clear(mie, kLcofiBit);
    }
    h.lcofi_taken = take;
}

// --- the S-mode context a trap returns to -------------------------------------
// pc and mstatus as mret will use them; a6/a7 the trap frame's slots.
struct Ctx {
    unsigned long pc, mstatus;
    unsigned long &a6, &a7;
};

unsigned long with(unsigned long v, unsigned long bit, bool on) { return on ? v | bit : v & ~bit; }

// MPV and MPELP of the trapped context: in mstatus on RV64, in the live
// mstatush on RV32 (the trap frame does not hold it).
struct HiBit {
    uint64_t in_mstatus;
    unsigned long in_mstatush;
};
#if __riscv_xlen == 64
constexpr HiBit kMpv{mstatus_bits::MPV, 0}, kMpelp{MPELP, 0};
#else
constexpr HiBit kMpv{0, MPV_H}, kMpelp{0, MPELP_H};
#endif
bool ctx_get(const Ctx &c, HiBit b) {
    if constexpr (sizeof(long) == 8) return (c.mstatus & b.in_mstatus) != 0;
    return (csr_read(kMstatush) & b.in_mstatush) != 0;
}
void ctx_put(Ctx &c, HiBit b, bool v) {
    if constexpr (sizeof(long) == 8) {
        c.mstatus = with(c.mstatus, static_cast<unsigned long>(b.in_mstatus), v);
    } else if (v) {
        csr_set(kMstatush, b.in_mstatush);
    } else {
        csr_clear(kMstatush, b.in_mstatush);
    }
}

// Which of SPELP/SDT the hart implements now (writable in mstatus): Zicfilp,
// and Ssdbltrp with menvcfg.DTE set ("available to supervisor mode").
unsigned long status_ext_bits() {
    unsigned long old = csr_read(mstatus);
    csr_set(mstatus, SPELP | SDT);
    unsigned long got = csr_read(mstatus) & (SPELP | SDT);
    csr_write(mstatus, old);
    return got;
}

// "Software Event Injection": save the interrupted state in the event,
// enter its handler in S-mode.
void enter_handler(Ctx &c, Event &e, unsigned long hartid) {
    const unsigned long m = c.mstatus, ext = status_ext_bits();
    const bool h_ext = fw::hart_has(hartid, fw::EXT_H);
    const bool virt = ctx_get(c, kMpv);
    unsigned long flags = ((m & mstatus_bits::SPP) ? FLAG_SPP : 0) |
                          ((m & mstatus_bits::SPIE) ? FLAG_SPIE : 0) |
                          ((m & ext & SPELP) ? FLAG_SPELP : 0) | ((m & ext & SDT) ? FLAG_SDT : 0);
    unsigned long hs = h_ext ? csr_read(hstatus) : 0;
    if (hs & hstatus_bits::SPV) flags |= FLAG_SPV;
    if (hs & hstatus_bits::SPVP) flags |= FLAG_SPVP;
    e.i_flags = static_cast<uint8_t>(flags);
    e.i_sepc = csr_read(sepc);
    e.i_a6 = c.a6, e.i_a7 = c.a7;

    c.a6 = hartid, c.a7 = e.entry_arg;
    csr_write(sepc, c.pc);
    const bool from_s = ((m & mstatus_bits::MPP) >> mstatus_bits::MPP_SHIFT) == PRV_S;
    unsigned long n = with(m, mstatus_bits::SPP, from_s);
    n = with(n, mstatus_bits::SPIE, (m & mstatus_bits::SIE) != 0);
    n &= ~mstatus_bits::SIE;
    if (ext & SPELP) {
        n = with(n, SPELP, ctx_get(c, kMpelp));
        ctx_put(c, kMpelp, false); // NO_LP_EXPECTED
    }
    if (h_ext) {
        hs = with(hs, hstatus_bits::SPV, virt);
        if (virt) hs = with(hs, hstatus_bits::SPVP, from_s);
        csr_write(hstatus, hs);
    }
    if (ext & SDT) n |= SDT;
    n = (n & ~mstatus_bits::MPP) | static_cast<unsigned long>(PRV_S) << mstatus_bits::MPP_SHIFT;
    c.mstatus = n;
    ctx_put(c, kMpv, false);
    c.pc = e.entry_pc;
}

// "Software Event Completion": resume the state saved in the event (as
// S-mode may have changed it through the INTERRUPTED_* attributes).
void resume_interrupted(Ctx &c, const Event &e, unsigned long hartid) {
    const unsigned long ext = status_ext_bits(), f = e.i_flags;
    unsigned long m = c.mstatus;
    c.pc = csr_read(sepc);
    const bool to_s = (m & mstatus_bits::SPP) != 0;
    m = (m & ~mstatus_bits::MPP) | static_cast<unsigned long>(to_s ? PRV_S : PRV_U)
                                       << mstatus_bits::MPP_SHIFT;
    if (ext & SDT) m = with(m, SDT, f & FLAG_SDT);
    if (ext & SPELP) {
        ctx_put(c, kMpelp, (m & SPELP) != 0);
        m = with(m, SPELP, f & FLAG_SPELP);
    }
    c.mstatus = m;
    if (fw::hart_has(hartid, fw::EXT_H)) {
        unsigned long hs = csr_read(hstatus);
        ctx_put(c, kMpv, (hs & hstatus_bits::SPV) != 0);
        hs = with(hs, hstatus_bits::SPV, f & FLAG_SPV);
        hs = with(hs, hstatus_bits::SPVP, f & FLAG_SPVP);
        csr_write(hstatus, hs);
    }
    m = c.mstatus;
    m = with(m, mstatus_bits::SIE, (m & mstatus_bits::SPIE) != 0);
    m = with(m, mstatus_bits::SPIE, f & FLAG_SPIE);
    m = with(m, mstatus_bits::SPP, f & FLAG_SPP);
    c.mstatus = m;
    c.a7 = e.i_a7, c.a6 = e.i_a6;
    csr_write(sepc, e.i_sepc);
}

// The next event to run on this hart, if one is ready and goes before the
// innermost running one ("Software Event Priority"); kNone otherwise. Call
// with the global lock held.
uint8_t pick(HartSse &h, unsigned long hartid) {
    if (unsigned got = h.injected.exchange(0, fw::memory_order_acquire))
        for (unsigned i = 0; i < kNumLocal; i++)
            if ((got >> i) & 1) signal(h.local[i]);
    if (!h.unmasked) return kNone;
    uint8_t best = kNone;
    auto better = [&](unsigned i) {
        const Event &e = event_of(i, h);
        return best == kNone ||
               higher(e.prio, kEventIds[i], event_of(best, h).prio, kEventIds[best]);
    };
    for (unsigned i = 0; i < kNumLocal; i++)
        if (ready(h.local[i]) && better(i)) best = static_cast<uint8_t>(i);
    for (unsigned g = 0; g < kNumGlobal; g++)
        if (ready(globals[g].ev) && preferred(globals[g]) == hartid && better(kNumLocal + g))
            best = static_cast<uint8_t>(kNumLocal + g);
    if (best == kNone || h.nrunning == 0) return best;
    uint8_t top = h.running[h.nrunning - 1];
    const Event &b = event_of(best, h), &t = event_of(top, h);
    return higher(b.prio, kEventIds[best], t.prio, kEventIds[top]) ? best : kNone;
}

// Delivers the next ready event into the context, if any.
bool deliver(Ctx &c) {
    unsigned long hartid = fw::current_hartid();
    HartSse &h = fw::block_of(hartid).sse;
    GlobalGuard lock;
    uint8_t idx = pick(h, hartid);
    if (idx == kNone) return false;
    Event &e = event_of(idx, h);
    e.state = RUNNING, e.pending = false;
    if (idx >= kNumLocal) globals[idx - kNumLocal].runner = hartid;
    h.running[h.nrunning++] = idx;
    enter_handler(c, e, hartid);
    return true;
}

// The context of the SBI call being served (ecall fast path, entry.S): a6
// and a7 in the frame, mstatus live, and mepc, which entry.S advances past
// the ecall after the handler returns.
template <typename Fn> bool on_ecall_context(Fn fn) {
    fw::TrapFrame &f = fw::current_frame();
    Ctx c{csr_read(mepc) + 4, csr_read(mstatus), f.x[16], f.x[17]};
    if (!fn(c)) return false;
    csr_write(mepc, c.pc - 4);
    csr_write(mstatus, c.mstatus);
    return true;
}
void deliver_on_ecall() {
    on_ecall_context([](Ctx &c) { return deliver(c); });
}

// --- the functions --------------------------------------------------------------
// Resolves event_id for the calling hart.
struct Target {
    Error err;
    unsigned idx;
    Event *e;
};
Target resolve(uint32_t id) {
    Lookup l = lookup(id, pmu_overflow_backed(), double_trap_backed());
    if (l.err != Error::Success) return {l.err, 0, nullptr};
    return {Error::Success, l.idx, &event_of(l.idx, self())};
}

bool running_here(unsigned idx, const Event &e) {
    if (e.state != RUNNING) return false;
    unsigned long hartid = fw::current_hartid();
    if (idx >= kNumLocal) return globals[idx - kNumLocal].runner == hartid;
    return true;
}

// Attribute values live at offset (XLEN / 8) * i for attribute base + i
// (README "SSE": as OpenSBI and Linux; the buffer is attr_count long).
SbiRet attrs(bool write, uint32_t id, uint32_t base, uint32_t count, unsigned long lo,
             unsigned long hi) {
    Target t = resolve(id);
    if (t.err != Error::Success) return err(t.err);
    if (Error r = attr_range_check(base, count); r != Error::Success) return err(r);
    // M-mode reaches XLEN-bit physical addresses only: hi must be 0.
    if ((lo & (sizeof(long) - 1)) || hi != 0 || !fw::s_mode_range_ok(lo, 0, count * sizeof(long)))
        return err(Error::InvalidAddress);
    volatile unsigned long *buf = reinterpret_cast<volatile unsigned long *>(lo);
    const bool global = t.idx >= kNumLocal;
    GlobalEvent *g = global ? &globals[t.idx - kNumLocal] : nullptr;
    GlobalGuard lock;
    Event &e = *t.e;
    if (!write) {
        unsigned long hart = g ? preferred(*g) : fw::current_hartid();
        for (uint32_t i = 0; i < count; i++) buf[i] = read_attr(e, base + i, hart);
        return ok();
    }
    // All or nothing: the first error in attribute order, else every write.
    unsigned long v[kNumAttrs];
    const bool here = running_here(t.idx, e);
    for (uint32_t i = 0; i < count; i++) {
        v[i] = buf[i];
        Error r = write_check(e, global, here, base + i, v[i], fw::hart_valid);
        if (r != Error::Success) return err(r);
    }
    for (uint32_t i = 0; i < count; i++) {
        if (base + i == PREFERRED_HART) g->preferred = v[i];
        else write_attr(e, base + i, v[i]);
    }
    return ok();
}

SbiRet transition(uint32_t id, Error (*op)(Event &)) {
    Target t = resolve(id);
    if (t.err != Error::Success) return err(t.err);
    Error r;
    unsigned long wake = kNoHart;
    {
        GlobalGuard lock;
        r = op(*t.e);
        // A global event enabled while pending runs on its preferred hart.
        if (t.idx >= kNumLocal && ready(*t.e)) wake = preferred(globals[t.idx - kNumLocal]);
    }
    if (t.idx == EV_PMU_OVERFLOW) route_lcofi(self());
    if (wake != kNoHart && wake != fw::current_hartid()) fw::send_ipi(wake, fw::IPI_SSE);
    return err(r);
}

SbiRet do_register_call(uint32_t id, unsigned long pc, unsigned long arg) {
    Target t = resolve(id);
    if (t.err != Error::Success) return err(t.err);
    GlobalGuard lock;
    return err(do_register(*t.e, pc, arg));
}

SbiRet inject(uint32_t id, unsigned long hartid) {
    Target t = resolve(id);
    if (t.err != Error::Success) return err(t.err);
    unsigned long me = fw::current_hartid();
    if (t.idx >= kNumLocal) { // hart_id is ignored for global events
        GlobalEvent &g = globals[t.idx - kNumLocal];
        unsigned long target;
        {
            GlobalGuard lock;
            signal(g.ev);
            target = preferred(g);
        }
        if (target != me) fw::send_ipi(target, fw::IPI_SSE);
        return ok();
    }
    if (!fw::hart_valid(hartid)) return err(Error::InvalidParam);
    if (hartid == me) {
        signal(*t.e);
        return ok();
    }
    fw::block_of(hartid).sse.injected.fetch_or(1u << t.idx, fw::memory_order_release);
    fw::send_ipi(hartid, fw::IPI_SSE);
    return ok();
}

// sbi_sse_complete. When an event completes, S-mode's a0/a1 are part of the
// resumed context: they are returned unchanged (past the error-code guard,
// keep_a0_once).
SbiRet complete(unsigned long a0, unsigned long a1) {
    unsigned long hartid = fw::current_hartid();
    HartSse &h = fw::block_of(hartid).sse;
    if (h.nrunning == 0) return ok();
    on_ecall_context([&](Ctx &c) {
        {
            GlobalGuard lock;
            uint8_t idx = h.running[--h.nrunning];
            Event &e = event_of(idx, h);
            do_complete(e);
            if (idx >= kNumLocal) globals[idx - kNumLocal].runner = kNoHart;
            resume_interrupted(c, e, hartid);
        }
        route_lcofi(h);
        deliver(c); // a pending event that waited for this one
        return true;
    });
    if (!is_error_code(static_cast<long>(a0))) keep_a0_once();
    return {static_cast<long>(a0), a1};
}

SbiRet handle(unsigned long a0, unsigned long a1, unsigned long a2, unsigned long a3,
              unsigned long a4, unsigned long, unsigned long fid) {
    // event_id, base_attr_id and attr_count are uint32_t: only their low 32
    // bits count (binary-encoding.adoc).
    const uint32_t id = static_cast<uint32_t>(a0);
    HartSse &h = self();
    SbiRet r;
    switch (fid) {
    case READ_ATTRS:
    case WRITE_ATTRS:
        return attrs(fid == WRITE_ATTRS, id, static_cast<uint32_t>(a1), static_cast<uint32_t>(a2),
                     a3, a4);
    case REGISTER: return do_register_call(id, a1, a2);
    case UNREGISTER: return transition(id, do_unregister);
    case ENABLE: r = transition(id, do_enable); break;
    case DISABLE: return transition(id, do_disable);
    case COMPLETE: return complete(a0, a1);
    case INJECT: r = inject(id, a1); break;
    case HART_UNMASK:
        if (h.unmasked) return err(Error::AlreadyStarted);
        h.unmasked = true;
        r = ok();
        break;
    case HART_MASK:
        if (!h.unmasked) return err(Error::AlreadyStopped);
        h.unmasked = false;
        return ok();
    default: return err(Error::NotSupported);
    }
    // The call may have made an event ready here: it runs before the caller
    // resumes (the handler's interrupted context is the call's return).
    if (r.error == 0) deliver_on_ecall();
    return r;
}
} // namespace

bool sse_take_lcofi() {
    HartSse &h = self();
    if (!h.lcofi_taken) return false;
    // OF stays set until S-mode restarts the counter, so no new interrupt
    // comes meanwhile; clearing LCOFIP ends this one.
    csr_clear(mip, kLcofiBit);
    signal(h.local[EV_PMU_OVERFLOW]);
    return true;
}

bool sse_double_trap(fw::TrapFrame &f) {
    // The trapped instruction cannot run again until S-mode has handled the
    // event, so it must be deliverable now: ENABLED on this hart, events
    // unmasked, nothing of higher priority running.
    HartSse &h = self();
    Event &e = h.local[EV_DOUBLE_TRAP];
    if (e.state != ENABLED || !h.unmasked) return false;
    signal(e);
    Ctx c{f.mepc, f.mstatus, f.x[16], f.x[17]};
    if (!deliver(c)) return false;
    f.mepc = c.pc;
    f.mstatus = c.mstatus;
    return true;
}

void sse_trap_exit(fw::TrapFrame &f) {
    // Most interrupts find events masked: only the mailbox to empty, no lock.
    HartSse &h = self();
    if (!h.unmasked) {
        // A plain load first: the AMO only when something was injected.
        if (!h.injected.load(fw::memory_order_relaxed)) return;
        if (unsigned got = h.injected.exchange(0, fw::memory_order_acquire))
            for (unsigned i = 0; i < kNumLocal; i++)
                if ((got >> i) & 1) signal(h.local[i]);
        return;
    }
    Ctx c{f.mepc, f.mstatus, f.x[16], f.x[17]};
    if (!deliver(c)) return;
    f.mepc = c.pc;
    f.mstatus = c.mstatus;
}

void sse_hart_reset() {
    // A hart that HSM starts again begins with its local events UNUSED and
    // events masked ("The software events are masked initially"); a global
    // event it was running is back to ENABLED.
    unsigned long hartid = fw::current_hartid();
    HartSse &h = fw::block_of(hartid).sse;
    {
        GlobalGuard lock;
        for (GlobalEvent &g : globals)
            if (g.ev.state == RUNNING && g.runner == hartid) g.ev.state = ENABLED, g.runner = kNoHart;
    }
    for (Event &e : h.local) e = Event{};
    h.injected.store(0, fw::memory_order_relaxed);
    h.nrunning = 0;
    h.unmasked = false;
    // The new S-mode starts with no interrupt enabled (the stopped hart's
    // mie holds MSIE only): LCOFI goes back to it delegated and disabled.
    h.s_lcofie = false;
    route_lcofi(h);
}

extern const Extension sbi_ext_sse = {nullptr, handle};
} // namespace sbi
