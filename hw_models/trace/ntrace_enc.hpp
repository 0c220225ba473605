// SPDX-License-Identifier: BSD-2-Clause
// N-Trace 1.0 encoder model: a retired-instruction stream in, messages out. BTM and HTM,
// I-CNT/HIST full handling (ResourceFull), periodic synchronisation, XOR address
// compression with optional ExtendAddrMSB, implicit return (modes 1-3), repeated history
// (RCODE=2) and RepeatBranch, all-jumps, Ownership, Error and ProgTraceCorrelation.
// Configured by the Trace Control Interface registers (tci_regs.def: trTeControl,
// trTeInstFeatures, trTsControl).
#pragma once
#include <array>
#include <cstdint>
#include <vector>

#include "ntrace.hpp"
#include "tci_regs.h"

namespace ntrace {

constexpr uint32_t te_get(uint32_t reg, unsigned lsb, unsigned width) {
    return reg >> lsb & ((1u << width) - 1);
}
constexpr uint32_t te_put(uint32_t reg, unsigned lsb, unsigned width, uint32_t v) {
    const uint32_t m = ((1u << width) - 1) << lsb;
    return (reg & ~m) | (v << lsb & m);
}
// Position and width of Trace Control Interface field NAME of REG, for te_get/te_put.
#define NT_TE(reg, name) TCI_##reg##_##name##_LSB, TCI_##reg##_##name##_WIDTH

struct EncoderConfig {
    uint32_t trTeControl = te_put(0, NT_TE(trTeControl, InstMode), TCI_INSTMODE_BTM);
    uint32_t trTeInstFeatures = 0;
    uint32_t trTsControl = 0;
    unsigned xlen = 64;
    // Implementation parameters (hardware sizes).
    unsigned icnt_bits = NT_LIMIT_MAX_ICNT; // the I-CNT counter's width
    // I-CNT full (8.4.4): with an overflow bit, when the counter's MSB sets (the spec's
    // example: a 4-bit counter full at 8); without, when the next instruction (up to 4
    // halfwords) might not fit, so reported values use the whole field: up to 2^22-1
    // by default, the limit NTRACE_MAX_ICNT sets, half as many ResourceFull messages
    // on long stretches without a branch message as with an overflow bit.
    bool icnt_overflow_bit = false;
    unsigned hist_bits = NT_LIMIT_MAX_HIST; // HIST register incl. stop bit
    unsigned hrepeat_bits = NT_LIMIT_MAX_HREPEAT;
    unsigned bcnt_bits = NT_LIMIT_MAX_BCNT;
    unsigned stack_depth = NT_LIMIT_MAX_CALL_STACK;
    unsigned partial_bits = 16; // ImplicitReturnMode=2: low address bits kept per entry
    bool btype_split = true;    // B-TYPE 2/3 for exception/interrupt instead of 1
    bool icnt_full_sync = false; // BTM: report a full I-CNT with SYNC=4 instead of ResourceFull

    bool htm() const { return te_get(trTeControl, NT_TE(trTeControl, InstMode)) == TCI_INSTMODE_HTM; }
    bool context() const { return te_get(trTeControl, NT_TE(trTeControl, Context)); }
    unsigned sync_mode() const { return te_get(trTeControl, NT_TE(trTeControl, InstSyncMode)); }
    unsigned sync_max() const { return te_get(trTeControl, NT_TE(trTeControl, InstSyncMax)); }
    unsigned implicit_return() const {
        return te_get(trTeInstFeatures, NT_TE(trTeInstFeatures, EnImplicitReturn))
                   ? te_get(trTeInstFeatures, NT_TE(trTeInstFeatures, ImplicitReturnMode))
                   : 0;
    }
    bool repeated_history() const {
        return te_get(trTeInstFeatures, NT_TE(trTeInstFeatures, EnRepeatedHistory));
    }
    bool all_jumps() const { return te_get(trTeInstFeatures, NT_TE(trTeInstFeatures, EnAllJumps)); }
    bool sequential_jump() const {
        return te_get(trTeInstFeatures, NT_TE(trTeInstFeatures, EnSequentialJump));
    }
    Framing framing() const {
        Framing f;
        unsigned sb = te_get(trTeInstFeatures, NT_TE(trTeInstFeatures, SrcBits));
        if (!te_get(trTeControl, NT_TE(trTeControl, InhibitSrc))) f.src_bits = uint8_t(sb);
        f.tstamp = te_get(trTsControl, NT_TE(trTsControl, Enable));
        f.extend_addr = te_get(trTeInstFeatures, NT_TE(trTeInstFeatures, ExtendAddrMSB));
        f.xlen = uint8_t(xlen);
        return f;
    }
    unsigned src_id() const { return te_get(trTeInstFeatures, NT_TE(trTeInstFeatures, SrcID)); }
};

class Encoder {
  public:
    explicit Encoder(const EncoderConfig &c);
    std::vector<uint8_t> &out() { return out_; }
    const EncoderConfig &config() const { return cfg_; }

    void set_time(uint64_t t) { now_ = t; }
    // Trace on: ProgTraceSync(SYNC, I-CNT=0, F-ADDR=pc of the next instruction).
    void start(uint64_t pc, unsigned sync = NT_SYNC_EXIT_DEBUG);
    // One retired instruction: address, size in bytes, itype (3- or 4-bit, Table 2).
    // seq_inferable: the hart found the register jump's target loaded by the
    // lui/c.lui/auipc retired just before it (N-Trace 1.0 "Sequential Jump
    // Optimization"); with trTeInstEnSequentialJump the encoder then treats it as a
    // direct jump of the same kind.
    void retire(uint64_t pc, unsigned size, unsigned itype, bool seq_inferable = false);
    // Exception or interrupt after the last retired instruction. epc = address of the
    // instruction that did not retire (or would have executed next), handler = next PC.
    void trap(uint64_t epc, uint64_t handler, bool interrupt);
    // Privilege/context change (Ownership message when trTeContext is set).
    void context(unsigned prv, bool v, uint64_t scontext);
    // Trace off: ProgTraceCorrelation(EVCODE, CDF, I-CNT[, HIST]); next_pc is where the
    // hart continues (used as the target of a jump retired just before).
    void stop(uint64_t next_pc, unsigned evcode = NT_EVCODE_DEBUG_ENTRY);
    // Inserts a vendor-defined message (TCODE 56..62) given as complete MSEO/MDO bytes;
    // returns false (nothing emitted) when the bytes are not one such message.
    bool vendor(std::span<const uint8_t> msg_bytes);
    // Models an output FIFO overrun: an Error message, then SYNC=7 at the next event.
    void overflow();
    bool tracing() const { return tracing_; }

    uint64_t messages() const { return nmsgs_; }

  private:
    enum class Pending : uint8_t { None, Direct, Indirect, ReturnCheck };
    void emit(Msg &m);
    void resolve(uint64_t next);
    void branch_msg(bool direct, unsigned btype, uint64_t target);
    void sync_msg(unsigned sync, uint64_t pc);
    // A synchronising DirectBranchSync or IndirectBranch[Hist]Sync at addr.
    void branch_sync_msg(bool direct, unsigned sync, unsigned btype, uint64_t addr);
    void reset_state(uint64_t addr);
    void hist_full();
    void flush_repeats();
    void check_icnt();
    void note_progress(unsigned halfwords);
    void push(uint64_t ret);
    bool pop(uint64_t &ret);
    bool predicted(uint64_t pred, uint64_t actual) const;

    EncoderConfig cfg_;
    Framing fr_;
    std::vector<uint8_t> out_;
    bool tracing_ = false, htm_ = false;
    uint64_t now_ = 0, last_ts_ = 0;
    uint64_t icnt_ = 0, hist_ = 1, ref_ = 0;
    uint64_t icnt_limit_, hist_full_bit_;
    Pending pending_ = Pending::None;
    unsigned pending_btype_ = 0;
    uint64_t pending_pred_ = 0;
    // Return-address stack (circular; counting mode only uses depth_).
    std::array<uint64_t, NT_LIMIT_MAX_CALL_STACK> stack_{};
    unsigned sp_ = 0, depth_ = 0;
    // Repeated history (HTM) and RepeatBranch (BTM).
    uint64_t rep_hist_ = 0, rep_count_ = 0;
    // A periodic pattern shorter than the HIST register (9.3 allows any RDATA length):
    // how many bits shorter, 0 for whole registers.
    unsigned rep_shift_ = 0;
    struct Sig {
        uint8_t tcode, btype;
        uint64_t icnt, hist, target;
        bool operator==(const Sig &) const = default;
    } last_sig_{};
    bool last_sig_valid_ = false;
    uint64_t bcnt_ = 0;
    bool in_flush_ = false;
    // Periodic synchronisation.
    uint64_t since_sync_ = 0;
    bool sync_due_ = false;
    unsigned force_sync_ = 0; // non-zero: SYNC code of a sync required at the next event
    uint64_t nmsgs_ = 0;
    // Ownership state.
    unsigned prv_ = 3;
    bool v_ = false;
    uint64_t ctx_ = 0;
};

} // namespace ntrace
