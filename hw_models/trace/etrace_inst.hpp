// SPDX-License-Identifier: BSD-2-Clause
// E-Trace 2.0 instruction trace: the packets of the project QEMU's encoder with
// trTeFormat = 0 (hw_models/qemu/README.md "E-Trace") in the RISC-V packet
// encapsulation, and the flow decoder that turns them and the program image into the
// retired instructions.
//
// Encapsulation ("Unformatted Trace & Diagnostic Data Packet Encapsulation for RISC-V"):
// a header byte {extend[7], flow[6:5], length[4:0]} (length 0: a null packet, one
// byte; flow 1: a data trace packet, etrace_data.hpp), the source ID in `src_bytes`
// bytes, then `length` payload bytes. Payloads as
// hw_models/trace/etrace_pkts.def lays them out, sign-compressed (bits past the end
// repeat the last bit). Parameters: iaddress_width_p 64 (or 32), iaddress_lsb_p 1,
// privilege_width_p 3, ecause_width_p 6, notime_p, nocontext_p, no return stack or call
// counter, no format 0; support packet E=1, N=6, M=2.
#pragma once
#include <array>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "image.hpp"
#include "textpatch.hpp"

namespace etrace {

struct InstParams {
    unsigned iaddress_width = 64, iaddress_lsb = 1, privilege_width = 3, ecause_width = 6;
    unsigned src_bytes = 0; // encapsulation: bytes of source ID after the header
};

struct InstPacket {
    unsigned format = 0, subformat = 0;
    // format 3
    unsigned branch = 1, privilege = 0, interrupt = 0, thaddr = 0, qual_status = 0;
    uint64_t ecause = 0, tval = 0;
    bool ienable = false;
    // formats 1 and 2
    unsigned branches = 0;     // format 1: count (0: a full map of 31, no address)
    uint32_t branch_map = 0;   // bit 0 oldest, 1 = not taken
    bool has_address = false;
    uint64_t address = 0;      // format 3: full; 1/2: differential, already shifted
    bool notify_flip = false;  // notify != address MSB
    bool updiscon_flip = false;// updiscon != notify
};

bool parse_inst(const InstParams &p, std::span<const uint8_t> payload, InstPacket &k, std::string &err);
std::string format_inst(const InstPacket &k);

// Flow decoder: packets in, retired instruction addresses out.
//
// Code the program rewrites while it runs (textpatch.hpp; a Linux boot): with a
// TextPatches object the walk reads each site in its current version, applies a
// trigger's sites when the trigger retires, and for free sites takes the version seen
// live last; when the walk from one address packet to the next cannot be explained
// (branch outcomes left or missing at the reported address, no instruction), it goes
// back to the last free site it passed and takes the other version (depth first, at
// most kMaxChoices sites and kMaxRetries retries per walk), as the N-Trace decoder
// does per message (ntrace_core.hpp "Rewritten code").
class InstDecoder {
  public:
    using Bulk = std::function<void(const uint64_t *, size_t)>;
    InstDecoder(const InstParams &p, const trace::Image &img, std::function<void(uint64_t)> retired,
                trace::TextPatches *patches = nullptr)
        : p_(p), img_(img), retired_(std::move(retired)), tp_(patches) {}
    InstDecoder(const InstParams &p, const trace::Image &img, Bulk retired, trace::TextPatches *patches)
        : p_(p), img_(img), bulk_(std::move(retired)), tp_(patches) {}
    void packet(const InstPacket &k, uint64_t offset);
    void finish();
    uint64_t errors() const { return errors_; }
    // Format 1/2 packets with notify != address[MSB]: trace-notify (trigger[2]) reports.
    uint64_t notifies() const { return notifies_; }
    uint64_t max_steps = 100000000;
    static constexpr unsigned kMaxChoices = 16, kMaxRetries = 256;
    // Optional: false for an address an indirect call (jalr linking ra) cannot go to,
    // e.g. one inside the kernel's text that is no function's entry. Choosing between
    // versions of rewritten code, a walk whose call lands there backtracks: what tells
    // a static key's nop from its jump when both versions are straight-line code up
    // to the next uninferable jump (the jump's side calls, the nop's side returns).
    std::function<bool(uint64_t)> call_target_ok;

  private:
    enum class Step { Next, Uninferable, NeedBit, Bad };
    Step successor(uint64_t pc, uint64_t &next, bool consume);
    const rv::Insn *insn(uint64_t pc, bool peek);
    bool is_branch(uint64_t pc) {
        const rv::Insn *i = insn(pc, true);
        return i && i->kind == rv::Kind::Branch;
    }
    void emit(uint64_t pc) {
        out_.push_back(pc), last_ = pc;
        if (tp_) tp_->retire(pc);
    }
    void flush();
    void error(uint64_t off, const std::string &what);
    void settle_tentative(bool next_is_address);
    size_t bits_left() const { return bits_.size() - bh_; }
    bool retry(uint64_t &pc);
    void walk_done();
    bool seq_target(uint64_t prev, uint64_t pc, const rv::Insn &jump, uint64_t &target);
    bool after_call(uint64_t addr);

    InstParams p_;
    const trace::Image &img_;
    std::function<void(uint64_t)> retired_;
    Bulk bulk_;
    trace::TextPatches *tp_ = nullptr;
    std::vector<uint64_t> out_; // retired, not yet handed on (a walk may be undone)
    bool known_ = false;      // last_ is the last retired instruction
    uint64_t last_ = 0;
    uint64_t ref_ = 0;        // reference for differential addresses
    std::vector<uint8_t> bits_; // branch outcomes (1 = taken), used from bh_ on
    size_t bh_ = 0;
    bool tentative_ = false;  // stopped at a reported address reached without an updiscon
    uint64_t tentative_addr_ = 0;
    uint64_t errors_ = 0;
    uint64_t notifies_ = 0;
    // The image's classified code, the segment looked up last.
    uint64_t seg_base_ = 0, seg_len_ = 0;
    const rv::Insn *seg_cache_ = nullptr;
    // Free sites passed by the current walk: the version taken and what to restore
    // to take the other one.
    struct Choice {
        uint32_t site;
        uint8_t version;
        bool retried;
        uint64_t pc;
        size_t out, bh;
        std::array<size_t, trace::TextPatches::kMaxTriggers> cursor;
    };
    std::vector<Choice> choices_;
    bool walking_ = false;
    unsigned retries_ = 0;
};

// Splits an encapsulated stream; `src` the source ID read (0 without), `flow` the header's
// flow field (the project QEMU: kFlowInst instruction trace, kFlowData data trace packets,
// hw_models/qemu/README.md "E-Trace data trace"). False at the end or at a truncated packet
// (err set).
constexpr unsigned kFlowInst = 0, kFlowData = 1;
bool next_inst_packet(const InstParams &p, std::span<const uint8_t> s, size_t &off, unsigned &src,
                      std::span<const uint8_t> &payload, std::string &err, unsigned *flow = nullptr);

} // namespace etrace
