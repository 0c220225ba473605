// SPDX-License-Identifier: BSD-2-Clause
// N-Trace 1.0 message layer: MSEO/MDO framing and the message table (ntrace_msgs.def)
// driving encoding, decoding and the one-field-per-line dump. Spec: N-Trace 1.0
// chapters 3 (transmission protocol), 6-7 (messages) and 8.1-8.2 (addresses).
#pragma once
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "ntrace_core.hpp"

namespace ntrace {

// A decoded or to-be-encoded message: field values indexed by Fld.
struct Msg {
    uint8_t tcode = 0;
    uint32_t present = 0; // bit per Fld
    std::array<uint64_t, kFieldCount> v{};
    uint64_t offset = 0;  // byte offset of the first byte in the stream (decode)
    uint32_t length = 0;  // bytes (decode)
    std::span<const uint8_t> raw; // vendor/reserved: the message bytes (decode and encode)
    // Decode only: bits each field occupied and the index of the byte it ended in
    // (used by the Table-6 style dump).
    std::array<uint8_t, kFieldCount> nbits{};
    std::array<uint16_t, kFieldCount> endbyte{};

    bool has(Fld f) const { return present >> unsigned(f) & 1; }
    uint64_t get(Fld f) const { return v[unsigned(f)]; }
    Msg &set(Fld f, uint64_t x) {
        v[unsigned(f)] = x, present |= 1u << unsigned(f);
        return *this;
    }
};

// --- encoding ------------------------------------------------------------------------
// Appends the bytes of one message. For table messages fields missing from msg are
// encoded as 0 (conditional fields follow their condition). A message whose TCODE is
// not in the table is passed through from msg.raw unchanged (vendor-defined TCODEs).
void encode(const Framing &fr, const Msg &msg, std::vector<uint8_t> &out);

// Low-level writer used by encode(); exposed for tests and for building odd messages.
class Writer {
  public:
    explicit Writer(std::vector<uint8_t> &o) : out_(o) {}
    void fixed(uint64_t v, unsigned bits);
    // Variable-length field ending on a byte boundary; last == end of message.
    void var(uint64_t v, bool last) { var_bits(v, 64 - std::countl_zero(v | 0), last, false); }
    // Address field (value = address >> 1), width = xlen-1 bits, optional MSB extension.
    void addr(uint64_t v, unsigned width, bool extend, bool last);

  private:
    void var_bits(uint64_t v, unsigned nbits, bool last, bool exact);
    void push(uint8_t mseo);
    std::vector<uint8_t> &out_;
    uint8_t mdo_ = 0;
    unsigned pos_ = 0; // bits used in the current MDO
};

// --- decoding (the field reader and the message splitter are ntrace_core.hpp's) -------
const char *err_name(Err e);

struct Callbacks {
    virtual ~Callbacks() = default;
    virtual void on_msg(const Msg &m) = 0;
    // A message's field values without their layout (StreamParser with values_only);
    // by default passed on as a Msg.
    virtual void on_fields(const Fields &f, uint64_t offset, std::span<const uint8_t> raw);
    // Framing/format error at byte offset; the parser resynchronises at the next start.
    virtual void on_error(uint64_t offset, Err e) = 0;
};

// Parses a stream of bytes. Idle bytes (0xFF) between messages are skipped. When
// mid_stream is set the stream may begin inside a message (wrapped trace buffer):
// bytes up to the first end-of-message are skipped silently. Never allocates.
void parse(const Framing &fr, std::span<const uint8_t> bytes, Callbacks &cb,
           bool mid_stream = false);

// parse() over a stream that arrives in pieces of any size: the same messages, errors and
// byte offsets as parse() over the whole stream, with memory bounded by one piece plus
// the bytes of one unfinished message. Each piece is split up to its last end-of-message
// byte (MSEO=11; idle bytes are such bytes too): after one the splitter always starts
// afresh, so the rest of the piece is the only state carried to the next.
class StreamParser {
  public:
    // values_only: messages carry their field values only (no nbits/endbyte: not for
    // the dump), read faster.
    StreamParser(const Framing &fr, Callbacks &cb, bool mid_stream = false, bool values_only = false)
        : fr_(fr), cb_(cb), skip_(mid_stream), values_only_(values_only) {}
    void feed(const uint8_t *bytes, size_t n);
    // End of the stream: a message without its end byte is reported as Truncated.
    void finish();
    uint64_t consumed() const { return base_ + carry_.size(); }
    // No message is this long (the longest has a few dozen bytes): more carried bytes
    // without an end byte are reported (FieldOverflow) and skipped to the next end byte.
    static constexpr size_t kMaxCarry = 1 << 20;

  private:
    size_t split(const uint8_t *b, size_t n);
    Framing fr_;
    Callbacks &cb_;
    bool skip_;                  // dropping bytes up to the next end byte (mid-stream start)
    bool values_only_;
    std::vector<uint8_t> carry_; // bytes after the last end byte seen
    uint64_t base_ = 0;          // stream offset of carry_[0] (or of the next byte)
    Msg m_;
};

// Decodes exactly one message from bytes that hold it (first byte = start of message);
// returns Err::None and fills m, or the error.
Err parse_one(const Framing &fr, std::span<const uint8_t> msg_bytes, Msg &m);

// --- dump --------------------------------------------------------------------------------
// One line per byte in the style of the spec's Table 6: "0xHH MDO_MSEO: FIELD[bits]=0xV".
// Fields are printed on the byte where they end; other bytes show only the byte.
std::string dump(const Framing &fr, const Msg &m);
// One field per line: "TCODE=28 (IndirectBranchHist)", "BTYPE=0x0", ...
std::string dump_fields(const Msg &m);
const char *tcode_name(unsigned tcode);


} // namespace ntrace
