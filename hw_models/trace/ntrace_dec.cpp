// SPDX-License-Identifier: BSD-2-Clause
// N-Trace program-flow decoder (N-Trace 1.0 chapter 11 "Decoding Algorithm Principles").
#include "ntrace_dec.hpp"

#include <algorithm>

namespace ntrace {

namespace {
// Largest counts a conforming encoder can put in one field (Maximum Field Sizes); larger
// values are corrupt trace and would only make the decoder spin.
constexpr uint64_t kMaxIcnt = 1ull << NT_LIMIT_MAX_ICNT;
constexpr uint64_t kMaxRepeat = 1ull << NT_LIMIT_MAX_HREPEAT;
// Instructions a HIST walk may pass without meeting a branch.
constexpr uint64_t kMaxHistGap = 1ull << (NT_LIMIT_MAX_ICNT + 1);
} // namespace

Decoder::Decoder(const DecoderConfig &c, const trace::Image &img, DecodeSink &sink)
    : cfg_(c), img_(img), sink_(sink) {}

void Decoder::run(std::span<const uint8_t> bytes, bool mid_stream) {
    parse(cfg_.fr, bytes, *this, mid_stream);
    finish();
}

void Decoder::finish() { flush(); }

void Decoder::event(Event::Kind k, uint64_t off, uint64_t addr, uint64_t value, const char *what) {
    flush();
    Event e{k, off, addr, value, ts_, has_ts_, what};
    sink_.event(e);
}

bool Decoder::icnt_in_spec(uint64_t icnt, uint64_t off) {
    if (icnt <= kMaxIcnt) return true;
    if (!cfg_.strict_icnt) return nicnt_oos_++, true;
    fail(off, "I-CNT larger than NTRACE_MAX_ICNT");
    return false;
}

void Decoder::fail(uint64_t off, const char *what) {
    nerrors_++;
    event(Event::Error, off, pc_, 0, what);
    synced_ = false;
    budget_ = 0;
    hpos_ = -1, hrep_ = 0;
    last_.valid = false;
    prev_ = kNoPc;
}

// N-Trace 1.0 "Sequential Jump Optimization": a register jump is inferable when the
// instruction retired just before it (so at the preceding address) loaded its register
// with lui/c.lui (a constant) or auipc (pc + constant).
bool Decoder::seq_target(uint64_t prev, uint64_t pc, const rv::Insn &jump, uint64_t &target) const {
    const uint64_t pcmask = img_.opts.xlen == 32 ? 0xFFFFFFFFull : ~0ull;
    if (prev == kNoPc || !jump.jump_reg()) return false;
    const rv::Insn *ld = img_.at(prev);
    if (!ld || ld->loads_constant() != jump.jump_reg() || ((prev + ld->size) & pcmask) != pc) return false;
    uint64_t v = uint64_t(int64_t(ld->offset));
    if (ld->reg & rv::kRegAuipc) v += prev;
    target = (v + uint64_t(int64_t(jump.offset))) & ~1ull & pcmask;
    return true;
}

void Decoder::on_error(uint64_t offset, Err e) {
    if (e == Err::ReservedTcode) return; // reported with the message (Vendor event)
    fail(offset, err_name(e));
}

namespace {
struct Bits {
    uint64_t &v;
    int &pos;
    uint64_t &rep;
    bool have() const { return pos >= 0; }
    bool take() {
        bool b = v >> pos & 1;
        if (--pos < 0 && rep) {
            rep--;
            pos = 62 - std::countl_zero(v);
        }
        return b;
    }
};
} // namespace

// Whether the instruction before addr is a call (jal/jalr/c.jalr linking ra).
bool Decoder::after_call(uint64_t addr) const {
    const rv::Insn *c4 = img_.at(addr - 4), *c2 = img_.at(addr - 2);
    return (c4 && c4->size == 4 && c4->pushes()) || (c2 && c2->size == 2 && c2->pushes());
}

// The instruction at pc outside the backtracking walk: rewritten code in the version
// believed live (or scheduled), and a trigger applies the next scheduled patch.
const rv::Insn *Decoder::insn_at(uint64_t pc) {
    trace::TextPatches *tp = cfg_.patches;
    uint32_t site;
    unsigned hw;
    if (tp && tp->find(pc, site, hw)) {
        const rv::Insn *in = &tp->site(site).insn[tp->version(site)][hw];
        return in->size ? in : nullptr;
    }
    if (tp) tp->retire(pc);
    return img_.at(pc);
}

// Executes instructions from pc_. In a HIST walk (hist_walk) it stops after the
// instruction that consumes the last history bit; otherwise it runs until the I-CNT
// budget is used up. `strict`: every direct branch needs a history bit (HTM).
// jump_end: the block ends at an uninferable jump (IndirectBranch with B-TYPE 0) to
// target; a jump whose target the code still determines (the auipc/lui right before
// it loaded the register) must go there.
//
// Rewritten code (cfg_.patches): a free site takes the version believed live; when
// the block turns out inconsistent, the walk returns to the last site whose other
// version it has not tried and takes that one (depth first, bounded), so a block is
// only reported inconsistent when no choice of versions explains it.
bool Decoder::walk(uint64_t add_icnt, uint64_t hist, bool hist_present, End end, uint64_t off, bool jump_end,
                   uint64_t target) {
    if (!icnt_in_spec(add_icnt, off)) return false;
    if (hist_present && hist == 0) {
        fail(off, "HIST without stop bit");
        return false;
    }
    budget_ += int64_t(add_icnt);
    if (budget_ < 0) {
        fail(off, "I-CNT smaller than the instructions covered by earlier HIST bits");
        return false;
    }
    if (hist_present) hbits_ = hist, hrep_ = 0, hpos_ = 62 - std::countl_zero(hist);
    const bool strict = hist_present;
    if (end == End::Taken && budget_ == 0) {
        fail(off, "DirectBranch with I-CNT=0");
        return false;
    }
    Bits bits{hbits_, hpos_, hrep_};
    const uint64_t pcmask = img_.opts.xlen == 32 ? 0xFFFFFFFFull : ~0ull;
    const bool ir = cfg_.implicit_return;
    trace::TextPatches *const tp = cfg_.patches;
    // The hot loop keeps pc, budget and the output buffer in locals (members would be
    // reloaded after every store through the buffer) and looks instructions up in the
    // current segment's cache directly.
    uint64_t pc = pc_, prev = prev_;
    int64_t budget = budget_;
    size_t nb = nbuf_;
    uint64_t steps = 0;
    const uint64_t step_limit = cfg_.max_steps ? (cfg_.max_steps > ninsns_ ? cfg_.max_steps - ninsns_ : 0) : ~0ull;
    // The current segment's classification cache (empty: look the PC up).
    uint64_t seg_base = 0, seg_len = 0;
    const rv::Insn *seg_cache = nullptr;
    uint64_t *bufp = buf_.data();
    size_t bufcap = buf_.size();
    choices_.clear();
    unsigned retries = 0;
    constexpr unsigned kMaxChoices = 16, kMaxRetries = 256;
    auto sync_back = [&] {
        pc_ = pc, prev_ = prev, budget_ = budget, nbuf_ = nb, ninsns_ += steps;
        steps = 0;
        choices_.clear();
    };
    auto bail = [&](const char *what) {
        sync_back();
        fail(off, what);
        return false;
    };
    // Back to the latest untried choice; false when every choice was tried.
    auto retry = [&] {
        while (!choices_.empty() && retries < kMaxRetries) {
            Choice &c = choices_.back();
            if (c.retried) {
                choices_.pop_back();
                continue;
            }
            c.retried = true, c.version ^= 1;
            pc = c.pc, prev = c.prev, budget = c.budget, nb = c.nb, steps = c.steps;
            hbits_ = c.hbits, hrep_ = c.hrep, hpos_ = c.hpos, sp_ = c.sp, depth_ = c.depth;
            tp->cursor = c.cursor;
            if (ir) stack_ = c.stack;
            seg_len = 0;
            retries++;
            tp->backtracks++;
            return true;
        }
        return false;
    };
#define RETRY_OR_BAIL(what)                                                                                  \
    {                                                                                                        \
        if (retry()) continue;                                                                               \
        return bail(what);                                                                                   \
    }
    for (;;) {
    while (budget > 0) {
        // Straight-line code inside the block (not its last instruction): nothing to
        // decide, only addresses to emit. Classified code only: rewritten code and
        // trigger addresses are never in the cache (Image::set_volatile).
        // Copies the lambdas above do not capture, so they stay in registers.
        if (pc - seg_base < seg_len) {
            uint64_t p = pc, q = prev, st = steps;
            int64_t bu = budget;
            size_t k = nb;
            const uint64_t room = std::min<uint64_t>(bufcap - 1 - nb, step_limit - steps);
            const uint64_t stop = steps + room;
            for (const rv::Insn *c; st < stop && p - seg_base < seg_len &&
                                    (c = &seg_cache[(p - seg_base) >> 1])->kind == rv::Kind::Linear && c->size &&
                                    bu > c->size / 2;) {
                bufp[k++] = p;
                st++;
                bu -= c->size / 2;
                q = p;
                p = (p + c->size) & pcmask;
            }
            pc = p, prev = q, steps = st, budget = bu, nb = k;
        }
        if (steps >= step_limit) return bail("instruction limit reached");
        const rv::Insn *in;
        uint32_t site;
        unsigned hw;
        if (pc - seg_base < seg_len && !(pc & 1) && seg_cache[(pc - seg_base) >> 1].size) {
            in = &seg_cache[(pc - seg_base) >> 1];
        } else if (tp && tp->find(pc, site, hw)) {
            int v = -1;
            if (tp->site(site).scheduled) {
                v = tp->version(site);
            } else {
                for (const Choice &c : choices_)
                    if (c.site == site) v = c.version;
                if (v < 0) {
                    v = tp->belief[site];
                    if (choices_.size() < kMaxChoices)
                        choices_.push_back({site, uint8_t(v), false, pc, prev, steps, hbits_, hrep_, budget, nb,
                                            tp->cursor, hpos_, sp_, depth_, 0, stack_});
                }
            }
            in = &tp->site(site).insn[v][hw];
            seg_len = 0;
            if (!in->size) RETRY_OR_BAIL("PC inside an instruction of rewritten code");
        } else {
            in = img_.at(pc);
            if (!in) RETRY_OR_BAIL("PC outside the program image");
            // img_.at() classified the instruction, so the cache holds it now.
            const trace::Image::Seg *seg = img_.segment_of(pc);
            seg_base = seg->base, seg_len = seg->bytes.size(), seg_cache = seg->cache.data();
            if (tp) tp->retire(pc);
        }
        bufp[nb++] = pc;
        if (nb == bufcap) {
            if (choices_.empty()) {
                nbuf_ = nb;
                flush();
                nb = 0;
            } else {
                buf_.resize(2 * nb); // keep the block until its choices are settled
                bufp = buf_.data(), bufcap = buf_.size();
            }
        }
        steps++;
        budget -= in->size / 2;
        if (budget < 0) RETRY_OR_BAIL("I-CNT ends inside an instruction");
        const bool last = budget == 0;
        const uint64_t next = (pc + in->size) & pcmask;
        const uint64_t cur = pc;
        if (last && jump_end) {
            if (in->kind != rv::Kind::Indirect && in->kind != rv::Kind::TrapReturn)
                RETRY_OR_BAIL("IndirectBranch block does not end at an uninferable jump");
            uint64_t t;
            if (in->kind == rv::Kind::Indirect && seq_target(prev, cur, *in, t) && t != target)
                RETRY_OR_BAIL("the jump's target differs from the message's address");
            // Choosing between versions of rewritten code: a return goes to just after
            // a call. Not an error otherwise (code may return anywhere).
            if (!choices_.empty() && in->pops() && !in->pushes() && !after_call(target)) {
                if (retry()) continue;
            }
        }
        if (in->kind == rv::Kind::Linear) { // the common case first
            prev = cur;
            pc = next;
            continue;
        }
        // A sequentially inferable register jump behaves as a direct jump of the same
        // kind, unless the message ends at it with an address: then the encoder chose
        // not to infer it (it may, N-Trace 1.0 "Sequential Jump Optimization").
        rv::Kind kind = in->kind;
        uint64_t seq = 0;
        if (kind == rv::Kind::Indirect && cfg_.seq_jump && !(last && end == End::Addr) &&
            seq_target(prev, cur, *in, seq))
            kind = rv::Kind::DirectJump;
        prev = cur;
        // cm.jt/cm.jalt are direct jumps too (N-Trace 1.0 itype table, Zcmt note).
        const bool direct_jump = kind == rv::Kind::DirectJump || kind == rv::Kind::TableJump;
        if (last && end == End::Taken && kind != rv::Kind::Branch && !(cfg_.all_jumps && direct_jump))
            RETRY_OR_BAIL("DirectBranch block does not end with a branch");
        switch (kind) {
        case rv::Kind::Branch:
        case rv::Kind::DirectJump: {
            const bool is_branch = kind == rv::Kind::Branch;
            bool taken = !is_branch;
            if (is_branch || cfg_.all_jumps) {
                if (bits.have()) {
                    taken = bits.take();
                    if (!is_branch && !taken) RETRY_OR_BAIL("HIST bit 0 for an unconditional jump");
                } else if (strict) {
                    RETRY_OR_BAIL("direct branch without a HIST bit");
                } else if (is_branch) {
                    taken = last && end == End::Taken;
                }
            }
            if (last && end == End::Taken && !taken)
                RETRY_OR_BAIL("DirectBranch block does not end with a taken branch");
            if (!is_branch && ir && in->pushes()) push(next);
            if (in->kind == rv::Kind::Indirect) {
                pc = seq; // sequentially inferred
            } else {
                pc = taken ? (pc + int64_t(in->offset)) & pcmask : next;
            }
            break;
        }
        case rv::Kind::TableJump: {
            bool ok = img_.has_jvt;
            uint64_t t = ok ? img_.read_xlen(img_.jvt + in->table_index() * (img_.opts.xlen / 8), ok) : 0;
            if (!ok) RETRY_OR_BAIL("cm.jt/cm.jalt without a readable jump table (JVT)");
            if (cfg_.all_jumps) { // reported as a taken branch (trTeInstEnAllJumps)
                if (bits.have()) {
                    if (!bits.take()) RETRY_OR_BAIL("HIST bit 0 for an unconditional jump");
                } else if (strict) {
                    RETRY_OR_BAIL("direct branch without a HIST bit");
                }
            }
            if (ir && in->pushes()) push(next);
            pc = t & ~1ull & pcmask;
            break;
        }
        case rv::Kind::Indirect: {
            uint64_t t = 0;
            const bool popped = ir && in->pops() && pop(t);
            if (ir && in->pushes()) push(next);
            if (popped && (!last || end != End::Addr)) {
                pc = t; // implicit return (9.2)
            } else if (!last) {
                RETRY_OR_BAIL("uninferable jump inside an I-CNT block");
            }
            // Otherwise the message's address (or nothing, at a stop) gives the target.
            break;
        }
        case rv::Kind::TrapReturn:
            if (!last) RETRY_OR_BAIL("trap return inside an I-CNT block");
            break;
        default: pc = next; break;
        }
    }
    if (bits.have()) RETRY_OR_BAIL("HIST bits left after the I-CNT block");
    break;
    }
#undef RETRY_OR_BAIL
    // The versions that explained the block are the ones live now.
    for (const Choice &c : choices_) {
        if (tp->belief[c.site] != c.version) tp->switches++;
        tp->belief[c.site] = c.version;
    }
    sync_back();
    return true;
}

bool Decoder::walk_hist(uint64_t hist, uint64_t repeat, uint64_t off) {
    if (hist == 0 || repeat == 0 || repeat > kMaxRepeat) {
        fail(off, "invalid HIST or HREPEAT in ResourceFull");
        return false;
    }
    hbits_ = hist, hrep_ = repeat - 1, hpos_ = 62 - std::countl_zero(hist);
    Bits bits{hbits_, hpos_, hrep_};
    const uint64_t pcmask = img_.opts.xlen == 32 ? 0xFFFFFFFFull : ~0ull;
    uint64_t gap = 0;
    // Rewritten code: the same depth-first choice of versions as in walk().
    trace::TextPatches *const tp = cfg_.patches;
    choices_.clear();
    unsigned retries = 0;
    auto retry = [&] {
        while (!choices_.empty() && retries < 256) {
            Choice &c = choices_.back();
            if (c.retried) {
                choices_.pop_back();
                continue;
            }
            c.retried = true, c.version ^= 1;
            pc_ = c.pc, prev_ = c.prev, ninsns_ = c.steps, budget_ = c.budget, nbuf_ = c.nb, gap = c.gap;
            hbits_ = c.hbits, hrep_ = c.hrep, hpos_ = c.hpos, sp_ = c.sp, depth_ = c.depth;
            tp->cursor = c.cursor;
            if (cfg_.implicit_return) stack_ = c.stack;
            retries++;
            tp->backtracks++;
            return true;
        }
        choices_.clear();
        return false;
    };
    while (bits.have()) {
        if ((cfg_.max_steps && ninsns_ >= cfg_.max_steps) || ++gap > kMaxHistGap) {
            if (gap > kMaxHistGap && retry()) continue;
            fail(off, gap > kMaxHistGap ? "no branch for HIST bits" : "instruction limit reached");
            return false;
        }
        const rv::Insn *in;
        uint32_t site;
        unsigned hw;
        if (tp && tp->find(pc_, site, hw) && !tp->site(site).scheduled) {
            int v = -1;
            for (const Choice &c : choices_)
                if (c.site == site) v = c.version;
            if (v < 0) {
                v = tp->belief[site];
                if (choices_.size() < 16)
                    choices_.push_back({site, uint8_t(v), false, pc_, prev_, ninsns_, hbits_, hrep_, budget_, nbuf_,
                                        tp->cursor, hpos_, sp_, depth_, gap, stack_});
            }
            in = &tp->site(site).insn[v][hw];
            if (!in->size) in = nullptr;
        } else {
            in = insn_at(pc_);
        }
        if (!in) {
            if (retry()) continue;
            fail(off, "PC outside the program image");
            return false;
        }
        out(pc_);
        ninsns_++;
        budget_ -= in->size / 2;
        const uint64_t next = (pc_ + in->size) & pcmask, prev = prev_;
        prev_ = pc_;
        // A sequentially inferable register jump is a direct jump (see walk).
        rv::Kind kind = in->kind;
        uint64_t seq = 0;
        if (kind == rv::Kind::Indirect && cfg_.seq_jump && seq_target(prev, pc_, *in, seq))
            kind = rv::Kind::DirectJump;
        // All-jumps mode: an unconditional jump spends a HIST bit, which must be 1.
        auto jump_bit_ok = [&] {
            if (!cfg_.all_jumps) return true;
            gap = 0;
            return bits.take() != 0;
        };
        switch (kind) {
        case rv::Kind::Branch:
            gap = 0;
            pc_ = bits.take() ? (pc_ + int64_t(in->offset)) & pcmask : next;
            break;
        case rv::Kind::DirectJump:
            if (!jump_bit_ok()) {
                if (retry()) continue;
                fail(off, "HIST bit 0 for an unconditional jump");
                return false;
            }
            if (cfg_.implicit_return && in->pushes()) push(next);
            pc_ = in->kind == rv::Kind::Indirect ? seq : (pc_ + int64_t(in->offset)) & pcmask;
            break;
        case rv::Kind::TableJump: {
            bool ok = img_.has_jvt;
            uint64_t t = ok ? img_.read_xlen(img_.jvt + in->table_index() * (img_.opts.xlen / 8), ok) : 0;
            if (!ok) {
                if (retry()) continue;
                fail(off, "cm.jt/cm.jalt without a readable jump table (JVT)");
                return false;
            }
            if (!jump_bit_ok()) {
                if (retry()) continue;
                fail(off, "HIST bit 0 for an unconditional jump");
                return false;
            }
            if (cfg_.implicit_return && in->pushes()) push(next);
            pc_ = t & ~1ull & pcmask;
            break;
        }
        case rv::Kind::Indirect: {
            uint64_t t;
            if (!(cfg_.implicit_return && in->pops() && pop(t))) {
                if (retry()) continue;
                fail(off, "uninferable jump inside a HIST block");
                return false;
            }
            if (in->pushes()) push(next);
            pc_ = t;
            break;
        }
        case rv::Kind::TrapReturn:
            if (retry()) continue;
            fail(off, "trap return inside a HIST block");
            return false;
        default: pc_ = next; break;
        }
    }
    for (const Choice &c : choices_) {
        if (tp->belief[c.site] != c.version) tp->switches++;
        tp->belief[c.site] = c.version;
    }
    choices_.clear();
    return true;
}

template <class M> void Decoder::handle(const M &m, const uint64_t off) {
    if (cfg_.src >= 0 && m.has(Fld::SRC) && m.get(Fld::SRC) != uint64_t(cfg_.src)) return;
    const uint64_t pcmask = img_.opts.xlen == 32 ? 0xFFFFFFFFull : ~0ull;
    const bool sync = is_sync_tcode(m.tcode);
    if (m.has(Fld::TSTAMP)) {
        // 8.7: absolute in synchronising messages, relative otherwise.
        if (sync) {
            ts_ = m.get(Fld::TSTAMP), has_ts_ = true;
        } else {
            ts_ += m.get(Fld::TSTAMP);
        }
    }
    const uint64_t hist = m.has(Fld::HIST) ? m.get(Fld::HIST) : 1;
    if (sync) {
        const uint64_t faddr = (m.get(Fld::FADDR) << 1) & pcmask;
        if (synced_) {
            End end = m.tcode == NT_TCODE_DirectBranchSync ? End::Taken : End::Addr;
            if (m.tcode == NT_TCODE_DirectBranchSync && m.get(Fld::ICNT) == 0) end = End::None;
            // A synchronising message may end its block anywhere (I-CNT full, periodic).
            walk(m.get(Fld::ICNT), hist, m.has(Fld::HIST), end, off);
        }
        // Every synchronising message fully resets the state (ratified 8.5).
        pc_ = ref_ = faddr;
        prev_ = kNoPc;
        synced_ = true;
        budget_ = 0, hpos_ = -1, hrep_ = 0, sp_ = depth_ = 0;
        last_.valid = false;
        event(Event::Sync, off, faddr, m.get(Fld::SYNC));
        if (m.has(Fld::BTYPE) && m.get(Fld::BTYPE) != NT_BTYPE_INDIRECT)
            event(Event::Trap, off, faddr, m.get(Fld::BTYPE));
        return;
    }
    switch (m.tcode) {
    case NT_TCODE_Ownership: event(Event::Ownership, off, pc_, m.get(Fld::PROCESS)); return;
    case NT_TCODE_Error:
        event(Event::Lost, off, pc_, m.get(Fld::ECODE), "messages lost (Error)");
        synced_ = false;
        return;
    default: break;
    }
    if (!find_msg(m.tcode)) {
        event(Event::Vendor, off, pc_, m.tcode);
        return;
    }
    if (!synced_) return;
    switch (m.tcode) {
    case NT_TCODE_DirectBranch:
        if (walk(m.get(Fld::ICNT), 1, false, End::Taken, off))
            last_ = {true, true, false, m.get(Fld::ICNT), 1, pc_, false};
        break;
    case NT_TCODE_IndirectBranch:
    case NT_TCODE_IndirectBranchHist: {
        const bool jump_end = m.get(Fld::BTYPE) == NT_BTYPE_INDIRECT;
        const uint64_t target = (ref_ ^ (m.get(Fld::UADDR) << 1)) & pcmask;
        if (!walk(m.get(Fld::ICNT), hist, m.has(Fld::HIST), End::Addr, off, jump_end, target)) break;
        pc_ = ref_ = target;
        last_ = {true, false, jump_end, m.get(Fld::ICNT), hist, pc_, m.has(Fld::HIST)};
        if (m.get(Fld::BTYPE) != NT_BTYPE_INDIRECT) event(Event::Trap, off, pc_, m.get(Fld::BTYPE));
        break;
    }
    case NT_TCODE_ResourceFull:
        last_.valid = false;
        switch (m.get(Fld::RCODE)) {
        case NT_RCODE_ICNT_FULL:
            if (!icnt_in_spec(m.get(Fld::RDATA), off)) break;
            budget_ += int64_t(m.get(Fld::RDATA));
            break;
        case NT_RCODE_HIST_FULL: walk_hist(m.get(Fld::RDATA), 1, off); break;
        case NT_RCODE_HIST_REPEAT: walk_hist(m.get(Fld::RDATA), m.get(Fld::HREPEAT), off); break;
        default: event(Event::Vendor, off, pc_, m.tcode); break;
        }
        break;
    case NT_TCODE_RepeatBranch: {
        const uint64_t n = m.get(Fld::BCNT);
        if (!last_.valid || n > kMaxRepeat) {
            fail(off, "RepeatBranch without a branch message to repeat");
            break;
        }
        const auto l = last_;
        for (uint64_t i = 0; i < n; i++) {
            if (!walk(l.icnt, l.hist, l.hist_present, l.direct ? End::Taken : End::Addr, off, l.jump_end, l.target))
                break;
            pc_ = l.target;
            if (!l.direct) ref_ = l.target;
        }
        break;
    }
    case NT_TCODE_ProgTraceCorrelation: {
        const bool hp = m.has(Fld::HIST);
        if (walk(m.get(Fld::ICNT), hist, hp, End::None, off))
            event(Event::Stop, off, pc_, m.get(Fld::EVCODE));
        synced_ = false;
        break;
    }
    default: break;
    }
}

template void Decoder::handle(const Msg &, uint64_t);
template void Decoder::handle(const Fields &, uint64_t);

} // namespace ntrace
