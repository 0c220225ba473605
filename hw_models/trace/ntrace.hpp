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

#include "ntrace_defs.h"

namespace ntrace {

enum class Kind : uint8_t { Fix = NTRACE_KIND_FIX, Var = NTRACE_KIND_VAR, Addr = NTRACE_KIND_ADDR,
                            Src = NTRACE_KIND_SRC };

enum class Fld : uint8_t {
#define NTRACE_FIELD(id, kind, bits) id,
#include "ntrace_msgs.def"
};
constexpr unsigned kFieldCount = NT_FLD_COUNT;

struct FieldDesc {
    const char *name;
    Kind kind;
    uint8_t bits;
};
constexpr std::array<FieldDesc, kFieldCount> kFields = {{
#define NTRACE_FIELD(id, kind, bits) {#id, static_cast<Kind>(kind), bits},
#include "ntrace_msgs.def"
}};

// One field reference of a message row; cond_field == kNoCond means always present.
struct FieldRef {
    Fld id;
    Fld cond_field;
    uint8_t cond_value;
    bool conditional;
};
constexpr unsigned kMaxBody = 6;
struct MsgDesc {
    const char *name;
    uint8_t tcode;
    uint8_t nfields;
    FieldRef fields[kMaxBody];
};

namespace detail {
struct RowBuilder {
    MsgDesc d{};
    constexpr RowBuilder(const char *n, uint8_t t) { d.name = n, d.tcode = t; }
    constexpr RowBuilder &f(Fld id) { d.fields[d.nfields++] = {id, id, 0, false}; return *this; }
    constexpr RowBuilder &fc(Fld id, Fld c, uint8_t v) {
        d.fields[d.nfields++] = {id, c, v, true};
        return *this;
    }
};
} // namespace detail

#define NTRACE_F(id) .f(Fld::id)
#define NTRACE_FC(id, c, v) .fc(Fld::id, Fld::c, v)
constexpr MsgDesc kMessages[] = {
#define NTRACE_MSG(name, tcode, fields) detail::RowBuilder(#name, tcode) fields.d,
#include "ntrace_msgs.def"
};
#undef NTRACE_F
#undef NTRACE_FC

// TCODE -> row index (or -1), built at compile time from the table.
constexpr std::array<int8_t, 64> kTcodeIndex = [] {
    std::array<int8_t, 64> t{};
    for (auto &x : t) x = -1;
    for (unsigned i = 0; i < std::size(kMessages); i++) t[kMessages[i].tcode] = int8_t(i);
    return t;
}();
inline const MsgDesc *find_msg(unsigned tcode) {
    return tcode < 64 && kTcodeIndex[tcode] >= 0 ? &kMessages[kTcodeIndex[tcode]] : nullptr;
}
constexpr bool is_vendor_tcode(unsigned t) {
    return t >= NT_TCODE_VENDOR_FIRST && t <= NT_TCODE_VENDOR_LAST;
}
constexpr bool is_sync_tcode(unsigned t) {
    return t == NT_TCODE_ProgTraceSync || t == NT_TCODE_DirectBranchSync ||
           t == NT_TCODE_IndirectBranchSync || t == NT_TCODE_IndirectBranchHistSync;
}

// Stream-level parameters the message encoding depends on (trTeSrcBits/trTeInhibitSrc,
// trTsEnable, trTeInstExtendAddrMSB, XLEN for the address extension of 8.2).
struct Framing {
    uint8_t src_bits = 0;   // 0 = no SRC field
    bool tstamp = false;    // TSTAMP may follow the body fields
    bool extend_addr = false;
    uint8_t xlen = 64;
};

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

// --- decoding ------------------------------------------------------------------------
enum class Err : uint8_t {
    None,
    ReservedMseo,    // MSEO = 10
    Truncated,       // stream ended inside a message
    FieldOverflow,   // variable field longer than 64 bits with non-zero excess
    MissingField,    // message ended before a required field
    ExtraField,      // more fields than the table allows
    FixedAcrossEnd,  // fixed field runs over an end-of-field byte
    NoStart,         // bytes that are neither idle nor the start of a message
    ReservedTcode,   // TCODE not in the table and not vendor-defined (reported, passed on)
};
const char *err_name(Err e);

struct Callbacks {
    virtual ~Callbacks() = default;
    virtual void on_msg(const Msg &m) = 0;
    // Framing/format error at byte offset; the parser resynchronises at the next start.
    virtual void on_error(uint64_t offset, Err e) = 0;
};

// Parses a stream of bytes. Idle bytes (0xFF) between messages are skipped. When
// mid_stream is set the stream may begin inside a message (wrapped trace buffer):
// bytes up to the first end-of-message are skipped silently. Never allocates.
void parse(const Framing &fr, std::span<const uint8_t> bytes, Callbacks &cb,
           bool mid_stream = false);

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

// Address helpers (8.1, 8.2).
uint64_t extend_addr_field(uint64_t field, unsigned nbits, unsigned xlen);

} // namespace ntrace
