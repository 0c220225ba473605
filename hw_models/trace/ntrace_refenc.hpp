// SPDX-License-Identifier: BSD-2-Clause
// The N-Trace reference C code's encoder choices (tg-nexus-trace refcode/c, NexRv -enco),
// modelled so that `tsbi-trace ntrace encode --compat refcode` writes the same bytes as
// that golden model for the same PC sequence and options. Hardware teams diff against
// it. Our own encoder (ntrace_enc.hpp) keeps its choices; README.md lists where and why
// the two differ:
//   - every ProgTraceSync has SYNC=1 and is sent only at the start;
//   - an IndirectBranchHist with an empty history goes out as IndirectBranch;
//   - the I-CNT is never reported full (it can exceed the spec's 22 bits);
//   - repeated history also repeats 30- and 28-bit periodic patterns (period 1..7);
//   - the final ProgTraceCorrelation carries HIST only when there is history
//     (CDF=0 with an empty one);
//   - the return-address stack wraps at its depth the way the reference's does.
#pragma once
#include <cstdint>
#include <vector>

#include "ntrace.hpp"
#include "pcfmt.hpp"

namespace ntrace {

struct RefcodeOptions {
    // Message level: 10 = BTM (DirectBranch, -nobhm), 20 = HTM without repeats
    // (-norbm), 21 = HTM with the repeat detection the `repeat` bits enable (default).
    int level = 21;
    // Return-address stack: 0 none, N > 0 N entries with addresses, N < 0 a counter
    // of -N (every return with a non-empty count is predicted). At most 32 deep.
    int call_stack = 0;
    // Bit 0: RepeatBranch for identical branch messages; bit 1: repeated history.
    int repeat = 0;
};

class RefcodeEncoder {
  public:
    explicit RefcodeEncoder(const RefcodeOptions &o);
    // One retired instruction, described as in the reference's PC-sequence file.
    void retire(const trace::PcInfo &p);
    // End of the input: flushes what is pending (ProgTraceCorrelation).
    void finish();
    std::vector<uint8_t> &out() { return out_; } // the caller may drain it
    uint64_t messages() const { return nmsgs_; }

    static constexpr unsigned kMaxCallStack = 32;

  private:
    static constexpr unsigned Linear = 1, Branch = 2, Jump = 4, Call = 8, Ret = 16, Indirect = 32,
                              Size4 = 64; // the reference's instruction-info bits
    static unsigned info_of(const trace::PcInfo &p);
    void step(uint64_t addr, unsigned info); // info 0: flush
    void put(Msg &m);
    void push(uint64_t ret);
    uint64_t pop();

    RefcodeOptions o_;
    Framing fr_;
    std::vector<uint8_t> out_;
    uint64_t nmsgs_ = 0;
    bool started_ = false;
    unsigned next_ = 0; // TCODE to send at the next retired instruction, 0 none
    uint64_t icnt_ = 0, hist_ = 1, addr_ = 0, bcnt_ = 0;
    uint64_t prev_icnt_ = 0, prev_hist_ = 0;
    // Repeated history: the pattern (with its stop bit), its length 31/30/28 (0 none)
    // and how many low bits of a full HIST are left over after one repetition.
    uint64_t rep_prev_ = 0;
    unsigned rep_bits_ = 0, rep_shift_ = 0;
    uint64_t check_ret_ = 1; // odd: no return prediction pending
    uint64_t stack_[kMaxCallStack + 1] = {};
    unsigned top_ = 0, count_ = 0;
    uint64_t last_addr_ = 0;
};

} // namespace ntrace
