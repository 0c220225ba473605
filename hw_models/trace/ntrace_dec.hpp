// SPDX-License-Identifier: BSD-2-Clause
// N-Trace 1.0 program-flow decoder (chapter 11): messages + program image -> the exact
// sequence of retired instruction addresses. Starts at any synchronising message,
// reports inconsistencies with the byte offset of the message and resynchronises at the
// next synchronising message. SRC demultiplexing selects one trace source.
#pragma once
#include <cstdint>
#include <string>

#include "image.hpp"
#include "ntrace.hpp"
#include "textpatch.hpp"

#include <vector>

namespace ntrace {

struct DecoderConfig {
    Framing fr;
    bool implicit_return = false; // trTeInstImplicitReturnMode != 0 on the encoder
    bool all_jumps = false;       // trTeInstEnAllJumps on the encoder
    bool seq_jump = false;        // trTeInstEnSequentialJump on the encoder
    int src = -1;                 // only messages with this SRC (-1: all)
    uint64_t max_steps = 0;       // stop after this many instructions (0: no limit)
    // What the N-Trace reference encoder writes out of spec, decoded and counted unless
    // strict (then an error, as the spec says):
    //  - an I-CNT above NTRACE_MAX_ICNT (22 bits): it never reports I-CNT full and
    //    writes 26 bits and more (icnt_out_of_spec());
    //  - an IndirectBranch with B-TYPE 0 whose block ends at an ecall/ebreak (or an
    //    instruction that cannot retire): its indirect call, where the spec wants
    //    B-TYPE 1 or 2 and the trapping instruction not counted (trap_calls()); from
    //    then on its xRET is a return for the implicit-return stack, as it has it.
    bool strict = false;
    // Code the program rewrites while it runs (textpatch.hpp); its addresses must be
    // volatile in the image (Image::set_volatile). Shared state: see TextPatches.
    trace::TextPatches *patches = nullptr;
};

struct Event {
    enum Kind : uint8_t { Sync, Trap, Ownership, Stop, Error, Vendor, Lost };
    Kind kind;
    uint64_t offset;  // byte offset of the message
    uint64_t addr;    // Sync/Trap: new PC; Stop: next PC
    uint64_t value;   // Sync: SYNC; Trap: B-TYPE; Ownership: PROCESS; Stop: EVCODE
    uint64_t tstamp;  // full timestamp (0 when not available)
    bool has_tstamp;
    const char *what; // Error: description
};

struct DecodeSink {
    virtual ~DecodeSink() = default;
    virtual void insns(const uint64_t *addrs, size_t n) = 0;
    virtual void event(const Event &) {}
};

class Decoder : public Callbacks {
  public:
    Decoder(const DecoderConfig &c, const trace::Image &img, DecodeSink &sink);
    // Decodes a whole byte stream (may start inside a message when mid_stream).
    void run(std::span<const uint8_t> bytes, bool mid_stream = false);
    void finish(); // flushes buffered addresses
    // Streaming input (StreamParser feeding on_msg/on_error): the instruction limit
    // may grow with the bytes read so far.
    void set_max_steps(uint64_t n) { cfg_.max_steps = n; }
    void on_msg(const Msg &m) override { handle(m, m.offset); }
    void on_fields(const Fields &f, uint64_t offset, std::span<const uint8_t>) override { handle(f, offset); }
    void on_error(uint64_t offset, Err e) override;

    uint64_t errors() const { return nerrors_; }
    uint64_t icnt_out_of_spec() const { return nicnt_oos_; }
    uint64_t trap_calls() const { return ntrapcall_; }
    uint64_t instructions() const { return ninsns_; }
    bool synced() const { return flow_.synced; }

  private:
    // The decoder is an Env of the core's walk (ntrace_core.hpp, "Program flow"): the
    // image and rewritten code in, the retired addresses and events out.
    struct Env;
    // One message (Msg or Fields: the same has/get/tcode) at byte offset off.
    template <class M> void handle(const M &m, uint64_t off);
    void flush() {
        if (nbuf_) sink_.insns(buf_.data(), nbuf_);
        nbuf_ = 0;
    }
    void event(Event::Kind k, uint64_t off, uint64_t addr, uint64_t value, const char *what = "");

    DecoderConfig cfg_;
    FlowConfig flow_cfg_;
    const trace::Image &img_;
    DecodeSink &sink_;
    FlowStateT<kFlowAll> flow_{};
    std::vector<uint64_t> buf_ = std::vector<uint64_t>(1024);
    size_t nbuf_ = 0;
    bool holding_ = false; // a block's rewritten-code choices are open: keep its addresses
    // The current segment's classification cache (empty: look the PC up).
    uint64_t seg_base_ = 0, seg_len_ = 0;
    const rv::Insn *seg_cache_ = nullptr;
    // The message being walked: for the events the walk's callbacks make.
    uint64_t off_ = 0, btype_ = 0, evcode_ = 0;
    uint8_t tcode_ = 0;
    uint64_t ts_ = 0;
    bool has_ts_ = false;
    uint64_t nerrors_ = 0, ninsns_ = 0, nicnt_oos_ = 0, ntrapcall_ = 0;
};

} // namespace ntrace
