// SPDX-License-Identifier: BSD-2-Clause
// The reference C code's encoder choices (see ntrace_refenc.hpp). Written from the
// behaviour of NexRv -enco (its published outputs and documented algorithm), not from
// its source text.
#include "ntrace_refenc.hpp"

#include <cstring>

namespace ntrace {

namespace {
// History register width at which the reference reports ResourceFull: 31 history bits
// plus the stop bit.
constexpr unsigned kHistBits = 31;

// Two consecutive full histories (prev, cur: 31 bits each with the stop bit at 31)
// that continue one periodic pattern of 28 or 30 bits (every period 1..7 divides one
// of them). Returns the pattern length, 0 if neither. History is shifted in at bit 0,
// so the oldest bit is the highest: prev = a[30 or 28 bits] followed by the first bits
// of the next repetition, and cur continues it.
unsigned periodic_28_30(uint64_t prev, uint64_t cur) {
    // 28: prev's last 3 bits start the second repetition (== its first 3 bits), and
    // prev's bits 3..27 reappear in cur three bits further up.
    if ((prev & 7) == (prev >> 28 & 7) && (prev & 0x0FFFFFF8) == (cur >> 3 & 0x0FFFFFF8)) return 28;
    // 30: one bit of the second repetition in prev, 29 more in cur.
    if ((prev & 1) == (prev >> 30 & 1) && (prev & 0x3FFFFFFE) == (cur >> 1 & 0x3FFFFFFE)) return 30;
    return 0;
}
} // namespace

RefcodeEncoder::RefcodeEncoder(const RefcodeOptions &o) : o_(o) { fr_.xlen = 64; }

unsigned RefcodeEncoder::info_of(const trace::PcInfo &p) {
    const char *t = p.type;
    unsigned i = 0;
    switch (t[0]) {
    case 'L': i = Linear; break;
    case 'B': i = Branch | (t[1] == 'N' ? Linear : 0); break;
    case 'J': i = Jump | (t[1] == 'I' ? Indirect : 0); break;
    case 'C': i = Jump | Call | (t[1] == 'I' ? Indirect : 0); break;
    case 'R': i = Jump | Indirect | Ret; break;
    default: break;
    }
    return i | (p.size == 4 ? Size4 : 0);
}

void RefcodeEncoder::put(Msg &m) {
    encode(fr_, m, out_);
    nmsgs_++;
}

void RefcodeEncoder::push(uint64_t ret) {
    const unsigned max = unsigned(o_.call_stack < 0 ? -o_.call_stack : o_.call_stack);
    if (o_.call_stack > 0) {
        // The reference's ring: the top index runs 0..max on push but wraps to max-1 on
        // pop; kept as is so that deep recursion predicts exactly as it does.
        top_ = top_ >= max ? 0 : top_ + 1;
        stack_[top_] = ret;
    }
    if (count_ < max) count_++;
}

uint64_t RefcodeEncoder::pop() {
    if (count_ == 0) return 1; // odd: never a PC, so no prediction
    count_--;
    if (o_.call_stack <= 0) return 0;
    const unsigned max = unsigned(o_.call_stack);
    const unsigned t = top_;
    top_ = top_ == 0 ? max - 1 : top_ - 1;
    return stack_[t];
}

void RefcodeEncoder::retire(const trace::PcInfo &p) {
    last_addr_ = p.addr;
    step(p.addr, info_of(p));
}

void RefcodeEncoder::finish() {
    if (started_) step(last_addr_, 0);
}

void RefcodeEncoder::step(uint64_t addr, unsigned info) {
    if (!started_) {
        started_ = true;
        next_ = NT_TCODE_ProgTraceSync;
    }
    // Implicit return: the instruction after a return is at the predicted address, so
    // the pending IndirectBranchHist is not sent and counting goes on.
    if (o_.call_stack != 0 && !(check_ret_ & 1)) {
        if (o_.call_stack < 0 || check_ret_ == addr) next_ = 0;
        check_ret_ = 1;
    }
    if (info == 0 && (icnt_ > 0 || rep_bits_ != 0)) {
        if (next_ == 0) next_ = NT_TCODE_ProgTraceCorrelation;
        if (bcnt_ > 0) prev_hist_ = 0;
    }
    if (next_ != 0) {
        if (o_.level >= 21) {
            bool repeat = false;
            if ((o_.repeat & 2) && next_ == NT_TCODE_ResourceFull) {
                const uint64_t keep = (1ull << rep_shift_) - 1;
                if (rep_bits_ == 0) {
                    // First full history: hold it back to compare with the next.
                    rep_bits_ = kHistBits, rep_shift_ = 0, rep_prev_ = hist_;
                    bcnt_ = 0, repeat = true, hist_ = 1;
                } else if (hist_ >> rep_shift_ == rep_prev_) {
                    hist_ = (keep + 1) | (hist_ & keep);
                    repeat = true;
                } else if (bcnt_ == 1) {
                    if (unsigned m = periodic_28_30(rep_prev_, hist_)) {
                        rep_bits_ = m, rep_shift_ = kHistBits - m;
                        rep_prev_ >>= rep_shift_;
                        const uint64_t left = (1ull << 2 * rep_shift_) - 1;
                        hist_ = (left + 1) | (hist_ & left);
                        repeat = true;
                    }
                }
            } else if ((o_.repeat & 1) && next_ != NT_TCODE_ResourceFull && prev_hist_ == hist_ &&
                       addr_ == addr && prev_icnt_ == icnt_) {
                repeat = true, icnt_ = 0, hist_ = 1;
            }
            if (repeat) {
                bcnt_++;
                next_ = 0;
            } else if (bcnt_ > 0 && rep_bits_ != 0) {
                Msg r;
                r.tcode = NT_TCODE_ResourceFull;
                r.set(Fld::RCODE, bcnt_ > 1 ? NT_RCODE_HIST_REPEAT : NT_RCODE_HIST_FULL);
                r.set(Fld::RDATA, rep_prev_);
                if (bcnt_ > 1) r.set(Fld::HREPEAT, bcnt_);
                put(r);
                if (next_ == NT_TCODE_ResourceFull) {
                    rep_bits_ = kHistBits, rep_shift_ = 0, rep_prev_ = hist_;
                    bcnt_ = 1, next_ = 0, hist_ = 1;
                } else {
                    bcnt_ = 0, rep_bits_ = 0;
                }
            } else if (bcnt_ > 0) {
                Msg r;
                r.tcode = NT_TCODE_RepeatBranch;
                r.set(Fld::BCNT, bcnt_);
                put(r);
                bcnt_ = 0;
            }
        }
        if (next_ == NT_TCODE_IndirectBranchHist && hist_ == 1) next_ = NT_TCODE_IndirectBranch;
        if (bcnt_ == 0) prev_hist_ = 0;
        Msg m;
        m.tcode = uint8_t(next_);
        switch (next_) {
        case NT_TCODE_ProgTraceSync:
            m.set(Fld::SYNC, NT_SYNC_EXIT_RESET).set(Fld::ICNT, icnt_).set(Fld::FADDR, addr >> 1);
            icnt_ = 0, addr_ = addr;
            put(m);
            break;
        case NT_TCODE_IndirectBranchHist:
        case NT_TCODE_IndirectBranch:
            prev_hist_ = hist_, prev_icnt_ = icnt_;
            m.set(Fld::BTYPE, NT_BTYPE_INDIRECT).set(Fld::ICNT, icnt_).set(Fld::UADDR, (addr_ ^ addr) >> 1);
            if (next_ == NT_TCODE_IndirectBranchHist) m.set(Fld::HIST, hist_);
            icnt_ = 0, addr_ = addr;
            put(m);
            break;
        case NT_TCODE_DirectBranch:
            m.set(Fld::ICNT, icnt_);
            icnt_ = 0;
            put(m);
            break;
        case NT_TCODE_ResourceFull:
            prev_hist_ = hist_, prev_icnt_ = icnt_;
            m.set(Fld::RCODE, NT_RCODE_HIST_FULL).set(Fld::RDATA, hist_);
            put(m);
            break;
        case NT_TCODE_ProgTraceCorrelation:
            m.set(Fld::EVCODE, NT_EVCODE_DEBUG_ENTRY).set(Fld::CDF, hist_ > 1 ? 1 : 0).set(Fld::ICNT, icnt_);
            if (hist_ > 1) m.set(Fld::HIST, hist_);
            icnt_ = 0;
            put(m);
            break;
        default: break;
        }
        next_ = 0;
        if (rep_bits_ == 0) hist_ = 1;
    }
    if (info == 0) return;
    icnt_ += info & Size4 ? 2 : 1;
    if (info & Branch) {
        const bool taken = !(info & Linear);
        if (o_.level >= 20) {
            hist_ = hist_ << 1 | (taken ? 1 : 0);
            if (hist_ >> kHistBits & 1) next_ = NT_TCODE_ResourceFull;
        } else if (taken) {
            next_ = NT_TCODE_DirectBranch;
        }
    } else if (info & Indirect) {
        if (o_.call_stack != 0 && (info & Ret)) check_ret_ = pop();
        next_ = o_.level >= 20 ? NT_TCODE_IndirectBranchHist : NT_TCODE_IndirectBranch;
    }
    if (o_.call_stack != 0 && (info & Call)) push(addr + (info & Size4 ? 4 : 2));
}

} // namespace ntrace
