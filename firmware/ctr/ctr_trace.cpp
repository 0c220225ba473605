// SPDX-License-Identifier: BSD-2-Clause
// CTR from the encoder (see ctr_trace.hpp, README "CTR from the encoder").
#include "ctr_trace.hpp"

#include "fw.hpp"
#include "ntrace_core.hpp"
#include "riscv/csr.hpp"
#include "trace/service.hpp"
#include "trap.hpp"

namespace ctr::feed {

namespace rc = ratified::ctl;

static_assert(sizeof(State) == 80, "README \"CTR from the encoder\" gives the bytes per hart");

namespace {

// Cycle counts asked for (/chosen/tsbi,ctr-cycles, set_cycles).
bool g_cycles;

// Types a trap from the trace cannot tell apart are passed as this cause: it
// is neither a breakpoint nor an LCOFI, which freeze through M-mode (the
// firmware routes those to itself while their freeze is armed).
constexpr unsigned long kCauseUnknown = ~0ul >> 1;

constexpr rv::Options kOptions{__riscv_xlen, false, false};

// Classified instructions of the current decode, shared by all harts: a
// decode runs under the trace service's lock (trace::ctr_feed_collect ..
// ctr_feed_release). A line is valid for the generation it was filled in;
// in a later decode its classification is used again only for the same
// instruction bits (read again: the code may have changed), classification
// being a function of the bits alone.
struct ICacheLine {
    uint64_t pc;
    uint32_t gen;
    uint32_t bits;
    rv::Insn in;
};
constexpr unsigned kICacheLines = 64;
ICacheLine g_icache[kICacheLines];
uint32_t g_icache_gen;

// Runs of plain instructions (Env::plain_run), the same way.
struct RunLine {
    uint64_t pc;
    uint32_t gen;
    uint64_t hw;
};
constexpr unsigned kRunLines = 64;
RunLine g_runs[kRunLines];


// Env's state for cycle counts (none without).
template <bool Timed> struct Dating {};
template <> struct Dating<true> {
    bool pend = false;  // a transfer waits
    uint8_t p_type = 0; // its type, source and target
    uint64_t p_src = 0, p_tgt = 0;
    uint64_t delta = 0; // S-mode cycles from the previous message to this one
    bool dated = false; // delta is known
};

// The decoder's view of the hart: code read as S-mode reads it (MPRV with
// MPP=S and the current satp; MXR so execute-only code reads), records into
// the emulated CTR. Only S-mode is traced (filter 0), so every transfer is
// S-mode's. Timed: the messages carry TSTAMP ("Cycle counts").
template <bool Timed> struct Env {
    const Config &c;
    Hart &h;
    unsigned long mstatus;
    uint32_t gen; // this decode's icache generation
    bool stop;    // code could not be read: the rest of this data is skipped
    TransferRun run;
    // The last two aligned XLEN-bit words of code read (word_base 1: none):
    // code is read two words at a time, one unprivileged access for up to 8
    // half-words (4 on RV32). Two aligned words lie in one page and in one
    // PMP region (the firmware's entries are NAPOT, at least 8 bytes,
    // aligned, and deny all or allow all), so they read whenever the
    // half-word S-mode executed does; words that fault anyway are read a
    // half-word at a time, as S-mode would fetch them.
    unsigned long word_base = 1, word[2] = {0, 0};

    bool insn(uint64_t pc, rv::Insn &in) { return read(pc, in) || (stop = true, false); }

    // Half-words of plain instructions from pc on, within pc's page: code
    // the hart ran up to pc runs on there unless it traps, and a page
    // boundary is where the mapping may change.
    uint64_t plain_run(uint64_t pc) {
        RunLine &line = g_runs[(pc >> 1) & (kRunLines - 1)];
        if (line.pc == pc && line.gen == gen) return line.hw;
        const uint64_t page_end = (pc | (kPage - 1)) + 1;
        uint64_t p = pc;
        rv::Insn in;
        uint32_t bits;
        // A run ends before a SYSTEM instruction too (a CSR access, ecall,
        // ebreak, ...): where S-mode trapped into M-mode the stretch of trace
        // ends, so the code after it is read only if a later message needs it.
        while (p < page_end && read(p, in, bits) && ntrace::is_plain(in.kind) && (bits & kOpcodeMask) != kOpSystem &&
               p + in.size <= page_end)
            p += in.size;
        line = {pc, gen, (p - pc) / 2};
        return line.hw;
    }

  private:
    static constexpr uint64_t kPage = 4096;
    static constexpr unsigned long kWord = sizeof(long);
    CTR_INLINE bool half(unsigned long a, uint32_t &h) {
        const unsigned long base = a & ~(2 * kWord - 1);
        if (base != word_base) {
            fw::UnprivResult r = fw::unpriv_lx2(base, mstatus, &word[1]);
            if (r.trapped) {
                word_base = 1;
                r = fw::unpriv_lhu(a, mstatus);
                h = static_cast<uint32_t>(r.value);
                return !r.trapped;
            }
            word_base = base;
            word[0] = r.value;
        }
        h = static_cast<uint32_t>(word[(a / kWord) & 1] >> ((a & (kWord - 1)) * 8)) & 0xFFFF;
        return true;
    }

    static constexpr uint32_t kOpcodeMask = 0x7F, kOpSystem = 0x73;
    CTR_INLINE bool read(uint64_t pc, rv::Insn &in) {
        uint32_t bits;
        return read(pc, in, bits);
    }
    // The instruction at pc and its bits; false if S-mode cannot read it.
    CTR_INLINE bool read(uint64_t pc, rv::Insn &in, uint32_t &bits) {
        // Loops and calls walk the same code again: classified instructions
        // are kept for the rest of this decode (code and satp do not change
        // while the hart is in M-mode).
        ICacheLine &line = g_icache[(pc >> 1) & (kICacheLines - 1)];
        if (line.pc == pc && line.gen == gen) {
            in = line.in;
            bits = line.bits;
            return true;
        }
        uint32_t hi;
        if (!half(static_cast<unsigned long>(pc), bits)) return false;
        if ((bits & 3) == 3) {
            if (!half(static_cast<unsigned long>(pc + 2), hi)) return false;
            bits |= hi << 16;
        }
        // Zeroed lines hold no instruction (bits 0 is not one: size 0).
        if (line.bits != bits || line.in.size == 0) line.in = rv::classify(bits, kOptions);
        line.pc = pc;
        line.gen = gen;
        line.bits = bits;
        in = line.in;
        return true;
    }

  public:
    // With cycle counts (README "Cycle counts"): a message's TSTAMP dates the
    // transfer that ends it, not the ones inferred from the code before it.
    // So each transfer waits here until the next one or the end of the
    // message: the last one of a DirectBranch or IndirectBranch (Sync) is the
    // message's own; every other is inferred, recorded with CCV=0, and the
    // record after it too (when it happened is not known).
    [[no_unique_address]] Dating<Timed> d;

    // Kept small for the walker's call sites (constant types filter inline);
    // the timed path is out of line so that it costs nothing without.
    void transfer(uint64_t src, uint64_t tgt, uint8_t itype) {
        if constexpr (Timed) return defer(src, tgt, itype);
        record(src, tgt, itype);
    }
    __attribute__((noinline)) void defer(uint64_t src, uint64_t tgt, uint8_t itype) {
        inferred();
        d.pend = true, d.p_src = src, d.p_tgt = tgt, d.p_type = itype;
    }
    // The waiting transfer was not the message's own. One that is not
    // recorded leaves the counter running; a record restarts it at a time
    // the trace does not tell.
    CTR_INLINE void inferred() {
        if (d.pend) [[unlikely]]
            inferred_record();
    }
    __attribute__((noinline)) void inferred_record() {
        d.pend = false;
        if (d.p_type != TYPE_TRAP_RETURN && run.skips(static_cast<Type>(d.p_type))) return;
        record(d.p_src, d.p_tgt, d.p_type);
        cycles_inexact(h);
    }
    // The message's cycles go to the counter: before the record they date
    // (a trap, the message's own transfer), or after the inferred ones.
    void take_cycles() {
        if (d.dated) add_cycles(h, d.delta);
        else cycles_inexact(h);
        d.dated = true, d.delta = 0;
    }
    // After each message: its own transfer, dated by its TSTAMP.
    void end_msg(bool own) {
        if (d.pend && own) {
            d.pend = false;
            take_cycles();
            if (d.p_type == TYPE_TRAP_RETURN)
                record_trap_return(c, h, MODE_S, MODE_S, static_cast<unsigned long>(d.p_src),
                                   static_cast<unsigned long>(d.p_tgt));
            else
                run.transfer_dated(static_cast<unsigned long>(d.p_src), static_cast<unsigned long>(d.p_tgt),
                                   static_cast<Type>(d.p_type));
            return;
        }
        inferred();
        take_cycles();
    }

    // Without cycle counts: CCV=0 (README).
    void record(uint64_t src, uint64_t tgt, uint8_t itype) {
        if (itype != TYPE_TRAP_RETURN)
            return run.transfer(static_cast<unsigned long>(src), static_cast<unsigned long>(tgt),
                                static_cast<Type>(itype));
        cycles_inexact(h);
        record_trap_return(c, h, MODE_S, MODE_S, static_cast<unsigned long>(src), static_cast<unsigned long>(tgt));
    }
    void trap(uint64_t epc, uint64_t handler, bool interrupt) {
        if constexpr (Timed) {
            inferred();
            take_cycles();
        } else {
            cycles_inexact(h);
        }
        record_trap(c, h, MODE_S, MODE_S, static_cast<unsigned long>(epc), static_cast<unsigned long>(handler),
                    interrupt, kCauseUnknown);
        run.refresh(); // a trap may freeze (not with kCauseUnknown, but the rules decide)
    }
    void leave(uint64_t pc, const rv::Insn *last) {
        if constexpr (Timed) inferred();
        // sret to U-mode: U is not traced, so the target is unknown; the
        // record is only exact when U-mode is not recorded (target 0).
        if (last && !mode_enabled(h, MODE_U)) {
            cycles_inexact(h);
            record_trap_return(c, h, MODE_S, MODE_U, static_cast<unsigned long>(pc), 0);
        }
    }
    void gap() {
        if constexpr (Timed) inferred();
    }
};

// The message's TSTAMP: the S-mode cycles since the previous message of
// this hart (env.d.delta), none across a stretch's start (the hart was in
// M-mode or not traced), unknown without a synchronizing message since a gap.
CTR_INLINE void date_msg(State &s, Env<true> &env, const ntrace::Fields &m) {
    env.d.delta = 0;
    env.d.dated = false;
    if (!m.has(ntrace::Fld::TSTAMP)) return;
    const uint64_t t = m.get(ntrace::Fld::TSTAMP);
    if (ntrace::is_sync_tcode(m.tcode)) {
        env.d.dated = true;
        if (s.time_open) env.d.delta = t - s.ts;
        s.time_open = true;
        s.ts = t;
    } else if (s.time_open) {
        env.d.dated = true;
        env.d.delta = t;
        s.ts += t;
    }
}

// The message ends with its own transfer (BTM: the taken branch of a
// DirectBranch, the jump of an IndirectBranch; a trap is dated in Env::trap).
constexpr bool ends_with_transfer(unsigned tcode) {
    return tcode == NT_TCODE_DirectBranch || tcode == NT_TCODE_IndirectBranch ||
           tcode == NT_TCODE_DirectBranchSync || tcode == NT_TCODE_IndirectBranchSync;
}

// One message: without cycle counts straight to the flow; with them dated
// first (if it is this hart's) and its own transfer recorded after it.
CTR_INLINE void on_msg(Env<false> &, ntrace::Flow<Env<false>> &flow, const ntrace::Fields &m, State &) {
    flow.on_msg(m);
}
CTR_INLINE void on_msg(Env<true> &env, ntrace::Flow<Env<true>> &flow, const ntrace::Fields &m, State &s) {
    const bool mine = !m.has(ntrace::Fld::SRC) || m.get(ntrace::Fld::SRC) == s.hartid;
    if (mine) date_msg(s, env, m);
    flow.on_msg(m);
    if (!mine) return;
    env.end_msg(ends_with_transfer(m.tcode));
    if (m.tcode == NT_TCODE_ProgTraceCorrelation || m.tcode == NT_TCODE_Error) s.time_open = false;
}

// The flow state is the same for both kinds of Env (it holds no Env).
using FlowAny = ntrace::Flow<Env<false>>;

bool wanted(const Hart &h) { return (h.mctl & rc::S) && !frozen(h); }

} // namespace

bool possible(unsigned long hartid) { return trace::ctr_feed_possible(hartid); }

bool hart_init(State &s, unsigned long hartid) {
    if (s.on) trace::ctr_feed_stop(s.slot);
    s = State{};
    s.hartid = hartid;
    s.slot = trace::slot(hartid);
    s.possible = s.slot != trace::kNoSlot && possible(hartid);
    return s.possible;
}

void set_cycles(bool on) { g_cycles = on; }

bool timed(const State &s) { return s.on && trace::ctr_cycles(); }

namespace {
// The trace in `sp` into records; with cycle counts (Timed: TSTAMP in every
// message) or without, two instances so that the common case pays nothing.
template <bool Timed>
CTR_INLINE void decode(const Config &c, Hart &h, State &s, const trace::CtrSpans &sp) {
    unsigned long ms = csr_read(csr::mstatus);
    ms = (ms & ~csr::mstatus_bits::MPP) | csr::mstatus_bits::MPRV | csr::mstatus_bits::MXR |
         (static_cast<unsigned long>(csr::PRV_S) << csr::mstatus_bits::MPP_SHIFT);
#if __riscv_xlen == 64
    ms &= ~static_cast<unsigned long>(csr::mstatus_bits::MPV);
#endif
    // A new generation per decode (0 is never one: zeroed lines stay invalid).
    if (++g_icache_gen == 0) g_icache_gen = 1;
    Env<Timed> env{c, h, ms, g_icache_gen, false, TransferRun(c, h, MODE_S)};
    ntrace::FlowConfig fc;
    fc.xlen = __riscv_xlen;
    fc.src = static_cast<int>(s.hartid);
    ntrace::Framing fr;
    fr.xlen = __riscv_xlen;
    // The stream's SRC width: every encoder's SrcBits (trace service).
    fr.src_bits = static_cast<uint8_t>(trace::ctr_src_bits());
    fr.tstamp = Timed;
    ntrace::Flow<Env<Timed>> flow(fc, s.flow, env);
    // Lost data: the flow starts again at a synchronizing message, and so
    // does the time (the records after a gap have CCV=0 until then).
    auto lose = [&] {
        FlowAny::reset(s.flow);
        if constexpr (Timed) {
            s.time_open = false;
            cycles_inexact(h);
        }
    };
    if (sp.lost) {
        lose();
        s.resync = true;
    }
    auto one = [&](const uint8_t *b, size_t n, size_t) {
        if (env.stop) return;
        ntrace::Fields m;
        if (ntrace::decode_fields<Timed>(fr, b, n, m) != ntrace::Err::None) lose();
        else on_msg(env, flow, m, s);
        if (env.stop) lose();
    };
    auto bad = [&](size_t, ntrace::Err) { lose(); };
    // A message may run over the buffer's end: the tail of the first span
    // and the head of the second are joined in a small buffer.
    size_t end = ntrace::split_messages(sp.a, sp.na, s.resync, one, bad);
    s.resync = false;
    size_t skip = 0;
    if (end < sp.na && sp.nb) {
        constexpr size_t kMaxMsg = 64;
        uint8_t join[kMaxMsg];
        size_t k = 0;
        for (size_t i = end; i < sp.na && k < kMaxMsg; i++) join[k++] = sp.a[i];
        while (skip < sp.nb && k < kMaxMsg) {
            uint8_t byte = sp.b[skip++];
            join[k++] = byte;
            if ((byte & 3) == ntrace::wire::kMseoEndMsg) break;
        }
        if (ntrace::split_messages(join, k, false, one, bad) != k) lose();
        end = sp.na;
    }
    if (end < sp.na) {
        lose();
        s.resync = true;
    } else if (sp.nb && ntrace::split_messages(sp.b + skip, sp.nb - skip, false, one, bad) != sp.nb - skip) {
        // A message cut short: lost data (the encoder reports it too).
        lose();
        s.resync = true;
    }
}
} // namespace

void sync(const Config &c, Hart &h, State &s) {
    if (!s.on) return;
    trace::CtrSpans sp;
    if (!trace::ctr_feed_collect(s.slot, sp)) {
        // The trace service stopped the encoder (HSM stop or suspend):
        // start again, a fresh sequence (the transfers meanwhile are lost).
        s.on = false;
        update(c, h, s);
        return;
    }
    if (trace::ctr_cycles()) decode<true>(c, h, s, sp);
    else decode<false>(c, h, s, sp);
    trace::ctr_feed_release();
}

void update(const Config &c, Hart &h, State &s) {
    if (!s.possible) return;
    bool want = wanted(h);
    if (want == s.on) return;
    if (!want) {
        sync(c, h, s);
        trace::ctr_feed_stop(s.slot);
        s.on = false;
        return;
    }
    // A fresh sequence: the encoder starts with a synchronizing message.
    FlowAny::reset(s.flow);
    s.resync = false;
    s.time_open = false;
    s.on = trace::ctr_feed_start(s.slot, g_cycles);
}

} // namespace ctr::feed
