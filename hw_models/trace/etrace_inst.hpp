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
#include <cstdint>
#include <deque>
#include <functional>
#include <span>
#include <string>

#include "image.hpp"

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
class InstDecoder {
  public:
    InstDecoder(const InstParams &p, const trace::Image &img, std::function<void(uint64_t)> retired)
        : p_(p), img_(img), retired_(std::move(retired)) {}
    void packet(const InstPacket &k, uint64_t offset);
    void finish();
    uint64_t errors() const { return errors_; }
    uint64_t max_steps = 100000000;

  private:
    enum class Step { Next, Uninferable, NeedBit, Bad };
    Step successor(uint64_t pc, uint64_t &next, bool consume);
    bool is_branch(uint64_t pc) const;
    void emit(uint64_t pc) { retired_(pc), last_ = pc; }
    void error(uint64_t off, const std::string &what);
    void settle_tentative(bool next_is_address);

    InstParams p_;
    const trace::Image &img_;
    std::function<void(uint64_t)> retired_;
    bool known_ = false;      // last_ is the last retired instruction
    uint64_t last_ = 0;
    uint64_t ref_ = 0;        // reference for differential addresses
    std::deque<bool> bits_;   // branch outcomes not yet used (true = taken)
    bool tentative_ = false;  // stopped at a reported address reached without an updiscon
    uint64_t tentative_addr_ = 0;
    uint64_t errors_ = 0;
};

// Splits an encapsulated stream; `src` the source ID read (0 without), `flow` the header's
// flow field (the project QEMU: kFlowInst instruction trace, kFlowData data trace packets,
// hw_models/qemu/README.md "E-Trace data trace"). False at the end or at a truncated packet
// (err set).
constexpr unsigned kFlowInst = 0, kFlowData = 1;
bool next_inst_packet(const InstParams &p, std::span<const uint8_t> s, size_t &off, unsigned &src,
                      std::span<const uint8_t> &payload, std::string &err, unsigned *flow = nullptr);

} // namespace etrace
