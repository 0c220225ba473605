// SPDX-License-Identifier: BSD-2-Clause
// N-Trace 1.0 program-flow decoder (chapter 11): messages + program image -> the exact
// sequence of retired instruction addresses. Starts at any synchronising message,
// reports inconsistencies with the byte offset of the message and resynchronises at the
// next synchronising message. SRC demultiplexing selects one trace source.
#pragma once
#include <array>
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
    // An I-CNT above the spec's NTRACE_MAX_ICNT (22 bits) in an otherwise well-formed
    // stream (the N-Trace reference encoder never reports I-CNT full and writes 26
    // bits and more): decoded and counted (icnt_out_of_spec()), or with strict_icnt an
    // error as the spec's limit says.
    bool strict_icnt = false;
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
    uint64_t instructions() const { return ninsns_; }
    bool synced() const { return synced_; }

  private:
    // One message (Msg or Fields: the same has/get/tcode) at byte offset off.
    template <class M> void handle(const M &m, uint64_t off);
    enum class End : uint8_t { None, Taken, Addr };
    bool walk(uint64_t add_icnt, uint64_t hist, bool hist_present, End end, uint64_t off, bool jump_end = false,
              uint64_t target = 0);
    const rv::Insn *insn_at(uint64_t pc);
    bool after_call(uint64_t addr) const;
    bool walk_hist(uint64_t hist, uint64_t repeat, uint64_t off);
    bool step(bool more_follow, bool &branch_taken_needed, uint64_t off);
    bool seq_target(uint64_t prev, uint64_t pc, const rv::Insn &jump, uint64_t &target) const;
    void fail(uint64_t off, const char *what);
    void out(uint64_t a) {
        buf_[nbuf_++] = a;
        if (nbuf_ == buf_.size()) {
            if (choices_.empty()) flush();
            else buf_.resize(2 * nbuf_); // keep the block until its choices are settled
        }
    }
    void flush() {
        if (nbuf_) sink_.insns(buf_.data(), nbuf_);
        nbuf_ = 0;
    }
    void push(uint64_t a) {
        stack_[sp_] = a;
        sp_ = (sp_ + 1) % stack_.size();
        if (depth_ < stack_.size()) depth_++;
    }
    bool pop(uint64_t &a) {
        if (!depth_) return false;
        sp_ = (sp_ + stack_.size() - 1) % stack_.size();
        depth_--;
        a = stack_[sp_];
        return true;
    }
    void event(Event::Kind k, uint64_t off, uint64_t addr, uint64_t value, const char *what = "");

    DecoderConfig cfg_;
    const trace::Image &img_;
    DecodeSink &sink_;
    std::vector<uint64_t> buf_ = std::vector<uint64_t>(1024);
    // A free patch site met in the current I-CNT block: the version taken and the
    // walk's state before it, to take the other version when the block fails.
    struct Choice {
        uint32_t site;
        uint8_t version;
        bool retried;
        uint64_t pc, prev, steps, hbits, hrep;
        int64_t budget;
        size_t nb;
        std::array<size_t, trace::TextPatches::kMaxTriggers> cursor;
        int hpos;
        unsigned sp, depth;
        uint64_t gap; // HIST walk: instructions since the last branch
        std::array<uint64_t, NT_LIMIT_MAX_CALL_STACK> stack;
    };
    std::vector<Choice> choices_;
    size_t nbuf_ = 0;

    bool synced_ = false;
    uint64_t pc_ = 0, ref_ = 0;
    // Address of the instruction retired last (kNoPc after a synchronisation): a
    // sequentially inferable jump needs the constant load retired right before it.
    static constexpr uint64_t kNoPc = ~0ull;
    uint64_t prev_ = kNoPc;
    int64_t budget_ = 0;      // I-CNT half-words available (negative: already walked)
    bool hist_mode_ = false;  // the current block is HTM (branches must have HIST bits)
    // History bits being consumed: value with stop bit, bit cursor, repeat count.
    uint64_t hbits_ = 0, hrep_ = 0;
    int hpos_ = -1;
    std::array<uint64_t, NT_LIMIT_MAX_CALL_STACK> stack_{};
    unsigned sp_ = 0, depth_ = 0;
    uint64_t ts_ = 0;
    bool has_ts_ = false;
    // The last branch message, for RepeatBranch.
    struct {
        bool valid;
        bool direct;
        bool jump_end;
        uint64_t icnt, hist, target;
        bool hist_present;
    } last_{};
    uint64_t nerrors_ = 0, ninsns_ = 0, nicnt_oos_ = 0;
    // False (after failing) when an I-CNT above the spec's limit must be rejected.
    bool icnt_in_spec(uint64_t icnt, uint64_t off);
};

} // namespace ntrace
