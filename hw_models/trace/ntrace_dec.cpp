// SPDX-License-Identifier: BSD-2-Clause
// N-Trace program-flow decoder (N-Trace 1.0 chapter 11 "Decoding Algorithm Principles"):
// the core's walk (ntrace_core.hpp) with the program image, rewritten code, the PC
// buffer and the events as its Env.
#include "ntrace_dec.hpp"

#include <algorithm>
#include <array>

namespace ntrace {

Decoder::Decoder(const DecoderConfig &c, const trace::Image &img, DecodeSink &sink)
    : cfg_(c), img_(img), sink_(sink) {
    flow_cfg_.xlen = img.opts.xlen;
    flow_cfg_.src = c.src;
    flow_cfg_.implicit_return = c.implicit_return;
    flow_cfg_.seq_jump = c.seq_jump;
    flow_cfg_.all_jumps = c.all_jumps;
}

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

struct Decoder::Env {
    Decoder &d;
    unsigned hw = 0; // site_at(): the half-word of the site pc is in

    bool cached(uint64_t pc) const {
        return pc - d.seg_base_ < d.seg_len_ && !(pc & 1) && d.seg_cache_[(pc - d.seg_base_) >> 1].size;
    }
    // Classified code only: rewritten code and trigger addresses are never in the
    // image's cache (Image::set_volatile).
    bool insn(uint64_t pc, rv::Insn &in) {
        if (cached(pc)) {
            in = d.seg_cache_[(pc - d.seg_base_) >> 1];
            return true;
        }
        const rv::Insn *p = d.img_.at(pc);
        if (!p) return false;
        // img_.at() classified the instruction, so the cache holds it now.
        const trace::Image::Seg *seg = d.img_.segment_of(pc);
        d.seg_base_ = seg->base, d.seg_len_ = seg->bytes.size(), d.seg_cache_ = seg->cache.data();
        if (d.cfg_.patches) d.cfg_.patches->retire(pc);
        in = *p;
        return true;
    }
    bool peek(uint64_t pc, rv::Insn &in) const {
        const rv::Insn *p = d.img_.at(pc);
        if (p) in = *p;
        return p;
    }
    bool jump_table(unsigned index, uint64_t &target) const {
        bool ok = d.img_.has_jvt;
        target = ok ? d.img_.read_xlen(d.img_.jvt + index * (d.img_.opts.xlen / 8), ok) : 0;
        return ok;
    }

    void retired(uint64_t pc) {
        d.buf_[d.nbuf_++] = pc;
        d.ninsns_++;
        if (d.nbuf_ == d.buf_.size()) {
            if (!d.holding_) d.flush();
            else d.buf_.resize(2 * d.nbuf_); // keep the block until its choices are settled
        }
    }
    // Straight-line code inside the block (not its last instruction): nothing to
    // decide, only addresses to emit, from the current segment's cache. The loop
    // keeps everything in locals (members would be reloaded after every store
    // through the buffer); it leaves one buffer slot for retired().
    void run(FlowRun &r) {
        const uint64_t base = d.seg_base_, len = d.seg_len_;
        if (r.pc - base >= len) return;
        const rv::Insn *const cache = d.seg_cache_;
        const uint64_t pcmask = d.flow_cfg_.xlen == 32 ? 0xFFFFFFFFull : ~0ull;
        const uint64_t limit = d.cfg_.max_steps ? d.cfg_.max_steps : ~0ull;
        uint64_t *const bufp = d.buf_.data();
        const size_t nb0 = d.nbuf_;
        size_t k = nb0;
        const uint64_t room = d.ninsns_ >= limit ? 0 : std::min<uint64_t>(d.buf_.size() - 1 - nb0, limit - d.ninsns_);
        uint64_t p = r.pc, q = r.last;
        int64_t bu = r.budget;
        for (const rv::Insn *c; k - nb0 < room && p - base < len &&
                                (c = &cache[(p - base) >> 1])->kind == rv::Kind::Linear && c->size &&
                                bu > c->size / 2;) {
            bufp[k++] = p;
            bu -= c->size / 2;
            q = p;
            p = (p + c->size) & pcmask;
        }
        d.ninsns_ += k - nb0;
        d.nbuf_ = k;
        r.pc = p, r.last = q, r.budget = bu;
    }
    bool at_limit() const { return d.cfg_.max_steps && d.ninsns_ >= d.cfg_.max_steps; }

    // Rewritten code (textpatch.hpp).
    int site_at(uint64_t pc, uint32_t &site) {
        trace::TextPatches *tp = d.cfg_.patches;
        if (!tp || cached(pc) || !tp->find(pc, site, hw)) return -1;
        return tp->site(site).scheduled ? 0 : 1;
    }
    uint8_t believed(uint32_t site) const { return d.cfg_.patches->version(site); }
    bool site_insn(uint32_t site, uint8_t version, uint64_t, rv::Insn &in) {
        const rv::Insn &p = d.cfg_.patches->site(site).insn[version][hw];
        d.seg_len_ = 0;
        in = p;
        return p.size;
    }
    struct Snap {
        size_t nb;
        uint64_t steps;
        std::array<size_t, trace::TextPatches::kMaxTriggers> cursor;
    };
    Snap snapshot() {
        d.holding_ = true;
        return {d.nbuf_, d.ninsns_, d.cfg_.patches->cursor};
    }
    void restore(const Snap &s) {
        d.nbuf_ = s.nb, d.ninsns_ = s.steps, d.cfg_.patches->cursor = s.cursor;
        d.seg_len_ = 0;
    }
    void settle(uint32_t site, uint8_t version) {
        trace::TextPatches *tp = d.cfg_.patches;
        if (tp->belief[site] != version) tp->switches++;
        tp->belief[site] = version;
    }
    void release() { d.holding_ = false; }
    void backtracked() { d.cfg_.patches->backtracks++; }

    // Results: addresses only (retired()), and the events.
    void transfer(uint64_t, uint64_t, uint8_t) {}
    void trap(uint64_t, uint64_t handler, bool) {
        // A RepeatBranch repeats the transfer, not the event; a synchronising
        // message reports its trap with the Sync event.
        if (d.tcode_ == NT_TCODE_IndirectBranch || d.tcode_ == NT_TCODE_IndirectBranchHist)
            d.event(Event::Trap, d.off_, handler, d.btype_);
    }
    void leave(uint64_t pc, const rv::Insn *) { d.event(Event::Stop, d.off_, pc, d.evcode_); }
    void gap() {}
    void error(const char *what, uint64_t pc) {
        d.nerrors_++;
        d.event(Event::Error, d.off_, pc, 0, what);
    }
    bool accept_long_icnt() {
        if (d.cfg_.strict) return false;
        d.nicnt_oos_++;
        return true;
    }
    bool accept_trap_call() {
        if (d.cfg_.strict) return false;
        d.ntrapcall_++;
        return true;
    }
    bool ref_returns() const { return d.ntrapcall_ != 0; }
    template <class M> void sync(const M &m) {
        d.event(Event::Sync, d.off_, d.flow_.pc, m.get(Fld::SYNC));
        if (m.has(Fld::BTYPE) && m.get(Fld::BTYPE) != NT_BTYPE_INDIRECT)
            d.event(Event::Trap, d.off_, d.flow_.pc, m.get(Fld::BTYPE));
    }
    void ownership(uint64_t process) { d.event(Event::Ownership, d.off_, d.flow_.pc, process); }
    void lost(uint64_t ecode) { d.event(Event::Lost, d.off_, d.flow_.pc, ecode, "messages lost (Error)"); }
    void vendor(unsigned tcode) { d.event(Event::Vendor, d.off_, d.flow_.pc, tcode); }
};

void Decoder::on_error(uint64_t offset, Err e) {
    if (e == Err::ReservedTcode) return; // reported with the message (Vendor event)
    off_ = offset;
    Env env{*this};
    Flow<Env, kFlowAll>(flow_cfg_, flow_, env).error(err_name(e));
}

template <class M> void Decoder::handle(const M &m, const uint64_t off) {
    if (cfg_.src >= 0 && m.has(Fld::SRC) && m.get(Fld::SRC) != uint64_t(cfg_.src)) return;
    if (m.has(Fld::TSTAMP)) {
        // 8.7: absolute in synchronising messages, relative otherwise.
        if (is_sync_tcode(m.tcode)) {
            ts_ = m.get(Fld::TSTAMP), has_ts_ = true;
        } else {
            ts_ += m.get(Fld::TSTAMP);
        }
    }
    off_ = off, tcode_ = m.tcode;
    btype_ = m.has(Fld::BTYPE) ? m.get(Fld::BTYPE) : 0;
    evcode_ = m.has(Fld::EVCODE) ? m.get(Fld::EVCODE) : 0;
    Env env{*this};
    Flow<Env, kFlowAll>(flow_cfg_, flow_, env).on_msg(m);
}

template void Decoder::handle(const Msg &, uint64_t);
template void Decoder::handle(const Fields &, uint64_t);

} // namespace ntrace
