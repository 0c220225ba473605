// SPDX-License-Identifier: BSD-2-Clause
// N-Trace encoder model (N-Trace 1.0 chapters 2, 8, 9 and 10).
#include "ntrace_enc.hpp"

namespace ntrace {

namespace {
// Repeated history of a periodic pattern that does not fill the HIST register (e.g. a
// loop with 3, 7 or 11 branches in a 31-bit register): given two consecutive full
// registers of n history bits each (oldest bit highest, stop bit at n), finds the
// longest L = n - k such that the first 2L bits are the same L bits twice. Returns k,
// or 0.
unsigned periodic_trim(uint64_t prev, uint64_t cur, unsigned n) {
    const uint64_t mask_n = (1ull << n) - 1;
    const uint64_t seq = (prev & mask_n) << n | (cur & mask_n); // 2n bits, oldest highest
    // The longest pattern that repeats (smallest k): a period p pattern repeats in the
    // largest multiple of p that fits, so every period up to n/2 is found (loops of
    // 9, 11, 12, 13 ... branches as well as 1..7). The 2k bits left over start the
    // next register, which must keep room for its stop bit: 2k < n.
    for (unsigned k = 1; 2 * k < n; k++) {
        const unsigned l = n - k;
        const uint64_t two = seq >> 2 * k; // the first 2L bits
        if (two >> l == (two & ((1ull << l) - 1))) return k;
    }
    return 0;
}
} // namespace

Encoder::Encoder(const EncoderConfig &c) : cfg_(c), fr_(c.framing()), htm_(c.htm()) {
    // At most one instruction is counted after a check (a return whose prediction is
    // checked at the next one), so a limit of 2^bits - 4 keeps reports below 2^bits.
    icnt_limit_ = cfg_.icnt_overflow_bit || cfg_.icnt_bits < 4 ? 1ull << (cfg_.icnt_bits - 1)
                                                                : (1ull << cfg_.icnt_bits) - 4;
    hist_full_bit_ = 1ull << (cfg_.hist_bits - 1);
    if (cfg_.stack_depth > stack_.size()) cfg_.stack_depth = unsigned(stack_.size());
    if (cfg_.stack_depth == 0) cfg_.stack_depth = 1;
}

void Encoder::emit(Msg &m) {
    if (!in_flush_) {
        in_flush_ = true;
        flush_repeats();
        in_flush_ = false;
    }
    if (m.tcode != NT_TCODE_RepeatBranch) last_sig_valid_ = false;
    if (fr_.src_bits) m.set(Fld::SRC, cfg_.src_id() & ((1u << fr_.src_bits) - 1));
    if (fr_.tstamp) {
        // 8.7: absolute in synchronising messages, relative to the last one otherwise.
        m.set(Fld::TSTAMP, is_sync_tcode(m.tcode) ? now_ : now_ - last_ts_);
        last_ts_ = now_;
    }
    encode(fr_, m, out_);
    nmsgs_++;
    if (cfg_.sync_mode() == TCI_SYNCMODE_MESSAGES && ++since_sync_ >= 1ull << (cfg_.sync_max() + 4))
        sync_due_ = true;
}

void Encoder::flush_repeats() {
    if (bcnt_) {
        Msg r;
        r.tcode = NT_TCODE_RepeatBranch;
        r.set(Fld::BCNT, bcnt_);
        bcnt_ = 0;
        emit(r);
    }
    if (rep_count_) {
        Msg r;
        r.tcode = NT_TCODE_ResourceFull;
        r.set(Fld::RCODE, rep_count_ > 1 ? NT_RCODE_HIST_REPEAT : NT_RCODE_HIST_FULL);
        r.set(Fld::RDATA, rep_hist_);
        if (rep_count_ > 1) r.set(Fld::HREPEAT, rep_count_);
        rep_count_ = 0, rep_shift_ = 0;
        emit(r);
    }
}

void Encoder::reset_state(uint64_t addr) {
    icnt_ = 0, hist_ = 1, ref_ = addr;
    sp_ = depth_ = 0;
    since_sync_ = 0, sync_due_ = false;
    last_sig_valid_ = false;
    bcnt_ = rep_count_ = 0, rep_shift_ = 0;
    if (cfg_.context()) {
        // 7.1: Ownership follows every synchronising message.
        Msg o;
        o.tcode = NT_TCODE_Ownership;
        o.set(Fld::PROCESS, ctx_ << 5 | uint64_t(v_) << 4 | prv_ << 2 | NT_PROCESS_FORMAT_SCONTEXT);
        emit(o);
    }
}

void Encoder::start(uint64_t pc, unsigned sync) {
    tracing_ = true;
    pending_ = Pending::None;
    bcnt_ = rep_count_ = 0, rep_shift_ = 0;
    force_sync_ = 0;
    Msg m;
    m.tcode = NT_TCODE_ProgTraceSync;
    m.set(Fld::SYNC, sync).set(Fld::ICNT, 0).set(Fld::FADDR, pc >> 1);
    emit(m);
    reset_state(pc);
}

void Encoder::sync_msg(unsigned sync, uint64_t pc) {
    if ((icnt_ == 0 && hist_ == 1) || (sync == NT_SYNC_ICNT_FULL && !htm_)) {
        Msg m;
        m.tcode = NT_TCODE_ProgTraceSync;
        m.set(Fld::SYNC, sync).set(Fld::ICNT, icnt_).set(Fld::FADDR, pc >> 1);
        emit(m);
        reset_state(pc);
    } else {
        // Synchronisation on linear code: B-TYPE=0 without a flow change (ratified 8.5).
        branch_sync_msg(false, sync, NT_BTYPE_INDIRECT, pc);
    }
}

void Encoder::branch_sync_msg(bool direct, unsigned sync, unsigned btype, uint64_t addr) {
    Msg m;
    if (direct) {
        m.tcode = NT_TCODE_DirectBranchSync;
        m.set(Fld::SYNC, sync).set(Fld::ICNT, icnt_);
    } else {
        m.tcode = htm_ ? NT_TCODE_IndirectBranchHistSync : NT_TCODE_IndirectBranchSync;
        m.set(Fld::SYNC, sync).set(Fld::BTYPE, btype).set(Fld::ICNT, icnt_);
        if (htm_) m.set(Fld::HIST, hist_);
    }
    m.set(Fld::FADDR, addr >> 1);
    emit(m);
    reset_state(addr);
}

void Encoder::check_icnt() {
    // 8.4: a full I-CNT without a message of its own goes out as ResourceFull RCODE=0.
    if (icnt_ < icnt_limit_) return;
    if (cfg_.icnt_full_sync && !htm_) {
        // 8.4.4 second option (BTM only): a synchronising message at the next PC.
        force_sync_ = NT_SYNC_ICNT_FULL;
        return;
    }
    Msg m;
    m.tcode = NT_TCODE_ResourceFull;
    m.set(Fld::RCODE, NT_RCODE_ICNT_FULL).set(Fld::RDATA, icnt_);
    emit(m);
    icnt_ = 0;
}

void Encoder::hist_full() {
    const uint64_t h = hist_;
    hist_ = 1;
    last_sig_valid_ = false;
    if (cfg_.repeated_history()) {
        // 9.3: count identical full HIST registers instead of sending each one; with a
        // shorter pattern its low rep_shift_ bits start the next repetition.
        const uint64_t keep = (1ull << rep_shift_) - 1;
        if (rep_count_ && h >> rep_shift_ == rep_hist_ && rep_count_ < (1ull << cfg_.hrepeat_bits) - 1) {
            rep_count_++;
            hist_ = (keep + 1) | (h & keep);
            return;
        }
        if (rep_count_ == 1 && rep_shift_ == 0) {
            if (unsigned k = periodic_trim(rep_hist_, h, cfg_.hist_bits - 1)) {
                // The second register held the rest of a second repetition and 2k bits
                // of the third.
                rep_shift_ = k, rep_hist_ >>= k, rep_count_ = 2;
                const uint64_t left = (1ull << 2 * k) - 1;
                hist_ = (left + 1) | (h & left);
                return;
            }
        }
        flush_repeats();
        rep_hist_ = h, rep_count_ = 1;
        return;
    }
    Msg m;
    m.tcode = NT_TCODE_ResourceFull;
    m.set(Fld::RCODE, NT_RCODE_HIST_FULL).set(Fld::RDATA, h);
    emit(m);
}

void Encoder::branch_msg(bool direct, unsigned btype, uint64_t target) {
    pending_ = Pending::None;
    if (sync_due_ || force_sync_) {
        const unsigned sync = force_sync_ ? force_sync_ : unsigned(NT_SYNC_PERIODIC);
        force_sync_ = 0;
        branch_sync_msg(direct, sync, btype, target);
        return;
    }
    // N-Trace 1.0, Rules of Generating Messages (HTM): "Should the HIST field be empty, an IndirectBranch message may
    // optionally be generated instead" -- one byte shorter.
    const bool with_hist = htm_ && hist_ != 1;
    const uint8_t tcode = direct ? NT_TCODE_DirectBranch
                                 : with_hist ? NT_TCODE_IndirectBranchHist : NT_TCODE_IndirectBranch;
    const Sig s{tcode, uint8_t(btype), icnt_, direct ? 0 : hist_, target};
    if (cfg_.repeated_history() && last_sig_valid_ && s == last_sig_ && !rep_count_ &&
        bcnt_ < (1ull << cfg_.bcnt_bits) - 1) {
        // 7.11: the same branch message again (loops): count it.
        bcnt_++;
        icnt_ = 0, hist_ = 1;
        return;
    }
    Msg m;
    m.tcode = tcode;
    m.set(Fld::ICNT, icnt_);
    if (!direct) {
        const uint64_t w = fr_.xlen - 1;
        m.set(Fld::BTYPE, btype).set(Fld::UADDR, ((ref_ ^ target) >> 1) & ((1ull << w) - 1));
        if (with_hist) m.set(Fld::HIST, hist_);
    }
    emit(m);
    last_sig_ = s, last_sig_valid_ = true;
    icnt_ = 0, hist_ = 1;
    if (!direct) ref_ = target;
}

bool Encoder::predicted(uint64_t pred, uint64_t actual) const {
    switch (cfg_.implicit_return()) {
    case 1: return true; // counting: the encoder cannot check the address
    case 2: {
        const uint64_t m = cfg_.partial_bits >= 64 ? ~0ull : (1ull << cfg_.partial_bits) - 1;
        return (pred & m) == (actual & m);
    }
    default: return pred == actual;
    }
}

void Encoder::push(uint64_t ret) {
    stack_[sp_] = ret;
    sp_ = (sp_ + 1) % cfg_.stack_depth;
    if (depth_ < cfg_.stack_depth) depth_++;
}

bool Encoder::pop(uint64_t &ret) {
    if (!depth_) return false;
    sp_ = (sp_ + cfg_.stack_depth - 1) % cfg_.stack_depth;
    depth_--;
    ret = stack_[sp_];
    return true;
}

void Encoder::resolve(uint64_t next) {
    switch (pending_) {
    case Pending::None: return;
    case Pending::Direct: branch_msg(true, 0, next); return;
    case Pending::Indirect: branch_msg(false, pending_btype_, next); return;
    case Pending::ReturnCheck:
        pending_ = Pending::None;
        if (predicted(pending_pred_, next)) {
            check_icnt();
            return;
        }
        branch_msg(false, NT_BTYPE_INDIRECT, next);
        return;
    }
}

void Encoder::note_progress(unsigned hw) {
    switch (cfg_.sync_mode()) {
    case TCI_SYNCMODE_CYCLES: since_sync_ += 1; break; // one retirement per cycle model
    case TCI_SYNCMODE_HALFWORDS: since_sync_ += hw; break;
    default: return;
    }
    if (since_sync_ >= 1ull << (cfg_.sync_max() + 4)) sync_due_ = true;
}

// The direct-jump itype a sequentially inferred register jump is treated as: a call
// when it links through x1/x5, else a jump with or without linkage.
static unsigned seq_jump_itype(unsigned itype) {
    switch (itype) {
    case NT_ITYPE_INDIRECT_CALL:
    case NT_ITYPE_COROUTINE_SWAP: return NT_ITYPE_DIRECT_CALL;
    case NT_ITYPE_INDIRECT_JUMP_LINK: return NT_ITYPE_DIRECT_JUMP_LINK;
    case NT_ITYPE_INDIRECT_JUMP:
    case NT_ITYPE_INDIRECT_JUMP_NOLINK:
    case NT_ITYPE_RETURN: return NT_ITYPE_DIRECT_JUMP_NOLINK;
    default: return itype;
    }
}

void Encoder::retire(uint64_t pc, unsigned size, unsigned itype, bool seq_inferable) {
    if (!tracing_) return;
    if (seq_inferable && cfg_.sequential_jump()) itype = seq_jump_itype(itype);
    if (force_sync_ && pending_ == Pending::None) {
        sync_msg(force_sync_, pc);
        force_sync_ = 0;
    } else {
        resolve(pc);
        if (sync_due_ && pending_ == Pending::None) sync_msg(NT_SYNC_PERIODIC, pc);
    }
    const unsigned hw = size / 2;
    icnt_ += hw;
    note_progress(hw);
    const bool ir = cfg_.implicit_return() != 0;
    const bool all = cfg_.all_jumps();
    auto taken_branch = [&] {
        if (htm_) {
            hist_ = hist_ << 1 | 1;
            if (hist_ & hist_full_bit_) hist_full();
        } else {
            pending_ = Pending::Direct;
        }
    };
    switch (itype) {
    case NT_ITYPE_BRANCH_NOT_TAKEN:
        if (htm_) {
            hist_ <<= 1;
            if (hist_ & hist_full_bit_) hist_full();
        }
        break;
    case NT_ITYPE_BRANCH_TAKEN: taken_branch(); break;
    case NT_ITYPE_DIRECT_CALL:
        if (ir) push(pc + size);
        if (all) taken_branch();
        break;
    case NT_ITYPE_DIRECT_JUMP_NOLINK:
    case NT_ITYPE_DIRECT_JUMP_LINK:
        if (all) taken_branch();
        break;
    case NT_ITYPE_TRAP_RETURN:
    case NT_ITYPE_INDIRECT_JUMP:
    case NT_ITYPE_INDIRECT_JUMP_NOLINK:
    case NT_ITYPE_INDIRECT_JUMP_LINK:
        pending_ = Pending::Indirect, pending_btype_ = NT_BTYPE_INDIRECT;
        break;
    case NT_ITYPE_INDIRECT_CALL:
        if (ir) push(pc + size);
        pending_ = Pending::Indirect, pending_btype_ = NT_BTYPE_INDIRECT;
        break;
    case NT_ITYPE_COROUTINE_SWAP:
    case NT_ITYPE_RETURN: {
        uint64_t r = 0;
        const bool ok = ir && pop(r);
        if (ir && itype == NT_ITYPE_COROUTINE_SWAP) push(pc + size);
        if (ok) {
            pending_ = Pending::ReturnCheck, pending_pred_ = r;
        } else {
            pending_ = Pending::Indirect, pending_btype_ = NT_BTYPE_INDIRECT;
        }
        break;
    }
    default: break; // 0, 1, 2 (the trap itself comes through trap()), 7
    }
    if (pending_ == Pending::None) check_icnt();
}

void Encoder::trap(uint64_t epc, uint64_t handler, bool interrupt) {
    if (!tracing_) return;
    if (force_sync_ && pending_ == Pending::None) {
        sync_msg(force_sync_, epc);
        force_sync_ = 0;
    } else {
        resolve(epc);
    }
    const unsigned btype = !cfg_.btype_split ? NT_BTYPE_TRAP
                           : interrupt       ? NT_BTYPE_INTERRUPT
                                             : NT_BTYPE_EXCEPTION;
    branch_msg(false, btype, handler);
}

void Encoder::context(unsigned prv, bool v, uint64_t scontext) {
    const bool ctx_changed = scontext != ctx_, priv_changed = prv != prv_ || v != v_;
    prv_ = prv, v_ = v, ctx_ = scontext;
    if (!tracing_ || !cfg_.context() || !(ctx_changed || priv_changed)) return;
    Msg o;
    o.tcode = NT_TCODE_Ownership;
    uint64_t p = uint64_t(v) << 4 | prv << 2;
    p |= ctx_changed ? (scontext << 5 | NT_PROCESS_FORMAT_SCONTEXT) : uint64_t(NT_PROCESS_FORMAT_PRIV);
    o.set(Fld::PROCESS, p);
    emit(o);
}

void Encoder::stop(uint64_t next_pc, unsigned evcode) {
    if (!tracing_) return;
    resolve(next_pc);
    force_sync_ = 0;
    Msg m;
    m.tcode = NT_TCODE_ProgTraceCorrelation;
    // CDF=0 (no HIST field) when the history is empty: one byte shorter, as the
    // reference code does ("0: Only I-CNT field follows and there is no HIST field").
    const bool with_hist = htm_ && hist_ != 1;
    m.set(Fld::EVCODE, evcode).set(Fld::CDF, with_hist ? 1 : 0).set(Fld::ICNT, icnt_);
    if (with_hist) m.set(Fld::HIST, hist_);
    emit(m);
    tracing_ = false;
    icnt_ = 0, hist_ = 1;
}

bool Encoder::vendor(std::span<const uint8_t> b) {
    Msg m;
    // Checked with the message layer so a malformed message cannot corrupt the stream.
    if (b.empty() || parse_one(fr_, b, m) != Err::None || !is_vendor_tcode(m.tcode)) return false;
    for (size_t i = 0; i + 1 < b.size(); i++)
        if ((b[i] & 3) == 3) return false;
    if ((b.back() & 3) != 3) return false;
    if (!in_flush_) {
        in_flush_ = true;
        flush_repeats();
        in_flush_ = false;
    }
    last_sig_valid_ = false;
    out_.insert(out_.end(), b.begin(), b.end());
    nmsgs_++;
    return true;
}

void Encoder::overflow() {
    if (!tracing_) return;
    Msg e;
    e.tcode = NT_TCODE_Error;
    e.set(Fld::ETYPE, NT_ETYPE_FIFO_OVERRUN).set(Fld::ECODE, NT_ECODE_PROGRAM_LOST);
    emit(e);
    // What was not yet sent is lost; the next event starts over with SYNC=7.
    pending_ = Pending::None;
    icnt_ = 0, hist_ = 1;
    force_sync_ = NT_SYNC_FIFO_OVERRUN;
}

} // namespace ntrace
