// SPDX-License-Identifier: BSD-2-Clause
// CTR from the encoder (see ctr_trace.hpp, README "CTR from the encoder").
#include "ctr_trace.hpp"

#include "fw.hpp"
#include "hart.hpp"
#include "ntrace_core.hpp"
#include "riscv/csr.hpp"
#include "trace/service.hpp"
#include "trap.hpp"

namespace ctr::feed {

namespace rc = ratified::ctl;

struct State {
    bool possible; // the hart's encoder can feed CTR
    bool on;       // the feed runs
    bool resync;   // the next data follows a gap: start at a message boundary
    unsigned slot; // the trace service's slot of the hart's encoder (trace/topology.hpp)
    ntrace::FlowState flow;
};

namespace {

// By hart ID below trace::kMaxHarts (64); every other hart shares the last
// entry, whose feed is never possible or on: CTR's encoder feed serves hart
// IDs below 64 only, though the trace service has slots for any IDs (a
// look-up by index or slot here cost about 20 instructions per CTR entry
// read while recording, bench 17, whose aim has 8 to spare).
State g_state[trace::kMaxHarts + 1];

CTR_INLINE State &of(unsigned long hartid) {
    return g_state[hartid < trace::kMaxHarts ? hartid : trace::kMaxHarts];
}
CTR_INLINE State &state() { return of(fw::current_hartid()); }

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


// The decoder's view of the hart: code read as S-mode reads it (MPRV with
// MPP=S and the current satp; MXR so execute-only code reads), records into
// the emulated CTR. Only S-mode is traced (filter 0), so every transfer is
// S-mode's.
struct Env {
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
    // The encoder has no cycle count here: CCV=0 (README).
    void transfer(uint64_t src, uint64_t tgt, uint8_t itype) {
        if (itype != TYPE_TRAP_RETURN)
            return run.transfer(static_cast<unsigned long>(src), static_cast<unsigned long>(tgt),
                                static_cast<Type>(itype));
        cycles_inexact(h);
        record_trap_return(c, h, MODE_S, MODE_S, static_cast<unsigned long>(src), static_cast<unsigned long>(tgt));
    }
    void trap(uint64_t epc, uint64_t handler, bool interrupt) {
        cycles_inexact(h);
        record_trap(c, h, MODE_S, MODE_S, static_cast<unsigned long>(epc), static_cast<unsigned long>(handler),
                    interrupt, kCauseUnknown);
        run.refresh(); // a trap may freeze (not with kCauseUnknown, but the rules decide)
    }
    void leave(uint64_t pc, const rv::Insn *last) {
        // sret to U-mode: U is not traced, so the target is unknown; the
        // record is only exact when U-mode is not recorded (target 0).
        if (last && !mode_enabled(h, MODE_U)) {
            cycles_inexact(h);
            record_trap_return(c, h, MODE_S, MODE_U, static_cast<unsigned long>(pc), 0);
        }
    }
    void gap() {}
};

bool wanted(const Hart &h) { return (h.mctl & rc::S) && !frozen(h); }

} // namespace

bool hart_init(unsigned long hartid) {
    State &s = of(hartid);
    if (s.on) trace::ctr_feed_stop(s.slot);
    s = State{};
    s.slot = trace::slot(hartid);
    s.possible = hartid < trace::kMaxHarts && s.slot != trace::kNoSlot && trace::ctr_feed_possible(hartid);
    return s.possible;
}

bool active() { return state().on; }

void sync(const Config &c, Hart &h) {
    State &s = state();
    if (!s.on) return;
    unsigned long hartid = fw::current_hartid();
    trace::CtrSpans sp;
    if (!trace::ctr_feed_collect(s.slot, sp)) {
        // The trace service stopped the encoder (HSM stop or suspend):
        // start again, a fresh sequence (the transfers meanwhile are lost).
        s.on = false;
        update(c, h);
        return;
    }
    unsigned long ms = csr_read(csr::mstatus);
    ms = (ms & ~csr::mstatus_bits::MPP) | csr::mstatus_bits::MPRV | csr::mstatus_bits::MXR |
         (static_cast<unsigned long>(csr::PRV_S) << csr::mstatus_bits::MPP_SHIFT);
#if __riscv_xlen == 64
    ms &= ~static_cast<unsigned long>(csr::mstatus_bits::MPV);
#endif
    // A new generation per decode (0 is never one: zeroed lines stay invalid).
    if (++g_icache_gen == 0) g_icache_gen = 1;
    Env env{c, h, ms, g_icache_gen, false, TransferRun(c, h, MODE_S)};
    ntrace::FlowConfig fc;
    fc.xlen = __riscv_xlen;
    fc.src = static_cast<int>(hartid);
    ntrace::Framing fr;
    fr.xlen = __riscv_xlen;
    // The stream's SRC width: every encoder's SrcBits (trace service).
    fr.src_bits = static_cast<uint8_t>(trace::ctr_src_bits());
    ntrace::Flow<Env> flow(fc, s.flow, env);
    if (sp.lost) {
        ntrace::Flow<Env>::reset(s.flow);
        s.resync = true;
    }
    auto one = [&](const uint8_t *b, size_t n, size_t) {
        if (env.stop) return;
        ntrace::Fields m;
        if (ntrace::decode_fields(fr, b, n, m) == ntrace::Err::None) flow.on_msg(m);
        else ntrace::Flow<Env>::reset(s.flow);
        if (env.stop) ntrace::Flow<Env>::reset(s.flow);
    };
    auto bad = [&](size_t, ntrace::Err) { ntrace::Flow<Env>::reset(s.flow); };
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
        if (ntrace::split_messages(join, k, false, one, bad) != k) ntrace::Flow<Env>::reset(s.flow);
        end = sp.na;
    }
    if (end < sp.na) {
        ntrace::Flow<Env>::reset(s.flow);
        s.resync = true;
    } else if (sp.nb && ntrace::split_messages(sp.b + skip, sp.nb - skip, false, one, bad) != sp.nb - skip) {
        // A message cut short: lost data (the encoder reports it too).
        ntrace::Flow<Env>::reset(s.flow);
        s.resync = true;
    }
    trace::ctr_feed_release();
}

void update(const Config &c, Hart &h) {
    State &s = state();
    if (!s.possible) return;
    bool want = wanted(h);
    if (want == s.on) return;
    if (!want) {
        sync(c, h);
        trace::ctr_feed_stop(s.slot);
        s.on = false;
        return;
    }
    // A fresh sequence: the encoder starts with a synchronizing message.
    ntrace::Flow<Env>::reset(s.flow);
    s.resync = false;
    s.on = trace::ctr_feed_start(s.slot);
}

} // namespace ctr::feed
