// SPDX-License-Identifier: BSD-2-Clause
// E-Trace 2.0 data trace packets (Efficient Trace chapter "Data Trace Encoder Output
// Packets", Tables 27-39) and the format 3 subformat 3 support packet.
//
// Packets are bit strings, fields LSB first. The packet length comes from the transport;
// as in all E-Trace packets the final field is truncated and the decoder sign-extends it
// from the last transmitted bit. Data fields with a *_len field are likewise shortened to
// the fewest bytes whose sign extension restores the value.
//
// File container (project choice, the transport encapsulation is outside the spec): each
// packet is preceded by one header byte, bits [5:0] = payload length in bytes (1..63),
// bits [7:6] = msg_type (0 = instruction trace packet, 1 = data trace packet), the 2-bit
// type field the spec mentions for telling trace types apart.
//
// Implementation-defined choices: format 111 is the split atomic data packet (the table
// reuses 110, which is already the atomic request); data_width_p is at most 64; CSR
// packets carry the address also when addresses are excluded (no CSR data-only table);
// the CSR address-only packet (Table 39) has the 3-bit subtype its table gives and a
// 0-bit diff (CSR numbers are never differential); both synchronization packets
// (format 3 subformats 0 and 1) restart compression;
// support packet widths E=1 (encoder_mode), N=6 (ioptions), M=2 (doptions: bit 0 no data,
// bit 1 no address).
#pragma once
#include <array>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

namespace etrace {

struct Params {
    unsigned data_width = 64;     // data_width_p (8, 16, 32 or 64)
    unsigned daddress_width = 64; // daddress_width_p
    unsigned lrid_width = 4;      // lrid_width_p
    bool unified_only = false;    // only unified loads/stores: 2-bit format field
    bool split = false;           // split load/atomic protocol (discoverable parameter)
    unsigned compress = 3;        // data compression offered: bit 0 XOR, bit 1 differential
    unsigned csr_width = 64;      // 32 or 64: data_len/op_len of CSR packets 2 or 3 bits
    // Run-time configuration (reported in the support packet).
    bool no_addr = false, no_data = false;

    unsigned size_bits() const;
    unsigned format_bits() const { return unified_only ? 2 : 3; }
    unsigned data_diff_bits() const { return compress == 3 ? 2 : 1; }
    bool valid() const;
};

enum class Kind : uint8_t {
    Load,            // unified load (or split load request when split)
    Store,
    Atomic,          // unified atomic (address, operand, data)
    ScFail,          // atomic, address only, subtype 111
    Csr,
    SplitLoadAddr,   // split load request
    SplitLoadData,   // split load response
    SplitAtomicAddr, // split atomic request (operand, address)
    SplitAtomicData, // split atomic response
    Sync,            // instruction trace synchronisation (resets compression state)
    Support,         // format 3 subformat 3
};

struct Record {
    Kind kind = Kind::Load;
    unsigned size = 2;     // log2 of bytes
    uint64_t addr = 0;     // byte address, CSR number for Csr
    uint64_t data = 0;
    uint64_t operand = 0;
    unsigned subtype = 0;  // atomic op (0 swap .. 6 min) or CSR op (0 RW, 1 RS, 2 RC)
    unsigned lrid = 0;
    bool error = false;    // split responses: resp = 00
    // Support packet fields.
    bool ienable = true, denable = true, dloss = false;
    unsigned qual_status = 0, ioptions = 0;
    bool operator==(const Record &) const = default;
};

// Compression state: reference address and data per access size, reset at sync (8.1.3).
struct State {
    std::array<uint64_t, 8> addr{}, data{};
    std::array<bool, 8> addr_valid{}, data_valid{};
    uint64_t csr_data = 0;
    bool csr_valid = false;
    std::array<uint8_t, 256> lrid_size{}; // split: size of the outstanding request per lrid
    std::array<bool, 256> lrid_pending{};
    void reset();
};

class Encoder {
  public:
    explicit Encoder(const Params &p) : p_(p) { st_.reset(); }
    // Appends header + packet. Returns false for a record the parameters cannot express.
    bool encode(const Record &r, std::vector<uint8_t> &out);
    const Params &params() const { return p_; }

  private:
    Params p_;
    State st_;
};

enum class Err : uint8_t { None, Empty, TooLong, Reserved, UnknownLrid, BadParams, NoSync };
const char *err_name(Err e);

class Decoder {
  public:
    explicit Decoder(const Params &p) : p_(p) { st_.reset(); }
    // Decodes one packet (payload without header) of message type msg_type.
    Err decode(unsigned msg_type, std::span<const uint8_t> payload, Record &r);
    const Params &params() const { return p_; }

  private:
    Params p_;
    State st_;
};

// Splits a container stream into (msg_type, payload); returns false at a bad header,
// with the offset in err_off.
bool next_packet(std::span<const uint8_t> s, size_t &off, unsigned &type, std::span<const uint8_t> &payload);

std::string format_record(const Record &r);
bool parse_record(const std::string &line, Record &r, std::string &err);

int cli_main(const std::vector<std::string> &pos, const std::vector<std::pair<std::string, std::string>> &opts);

} // namespace etrace
