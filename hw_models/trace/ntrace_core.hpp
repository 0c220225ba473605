// SPDX-License-Identifier: BSD-2-Clause
// The N-Trace decoding core shared by the host tools (ntrace.cpp, ntrace_dec.cpp) and
// the firmware (firmware/ctr: CTR records from a hart's encoder): the message table of
// ntrace_msgs.def, the field reader (N-Trace 1.0 chapter 3 framing, chapters 6-7
// fields, 8.2 address extension) and a BTM program-flow walker that turns messages plus
// code into control transfers. Freestanding: no heap, no exceptions, no hosted headers,
// fixed-size state; code bytes and results go through a caller-supplied interface.
#pragma once
#include <stddef.h>
#include <stdint.h>

#include "ntrace_defs.h"
#include "rvinsn.hpp"

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
constexpr FieldDesc kFields[kFieldCount] = {
#define NTRACE_FIELD(id, kind, bits) {#id, static_cast<Kind>(kind), bits},
#include "ntrace_msgs.def"
};

// One field reference of a message row; conditional: present only when cond_field
// holds cond_value.
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
constexpr unsigned kMessageCount = sizeof(kMessages) / sizeof(kMessages[0]);

// TCODE -> row index (or -1), built at compile time from the table.
struct TcodeIndex {
    int8_t row[64];
};
constexpr TcodeIndex kTcodeIndex = [] {
    TcodeIndex t{};
    for (auto &x : t.row) x = -1;
    for (unsigned i = 0; i < kMessageCount; i++) t.row[kMessages[i].tcode] = int8_t(i);
    return t;
}();
inline const MsgDesc *find_msg(unsigned tcode) {
    return tcode < 64 && kTcodeIndex.row[tcode] >= 0 ? &kMessages[kTcodeIndex.row[tcode]] : nullptr;
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

namespace wire {
constexpr uint8_t kMseoData = 0, kMseoEndField = 1, kMseoReserved = 2, kMseoEndMsg = 3;
constexpr uint8_t kIdle = 0xFF;
constexpr unsigned kMdoBits = 6;
constexpr uint64_t mask(unsigned n) { return n >= 64 ? ~0ull : (1ull << n) - 1; }
constexpr unsigned min(unsigned a, unsigned b) { return a < b ? a : b; }
} // namespace wire

// 8.2: an address field shorter than the address repeats its top bit up to the MSB.
constexpr uint64_t extend_addr_field(uint64_t field, unsigned nbits, unsigned xlen) {
    const unsigned width = xlen - 1;
    if (nbits == 0 || nbits >= width) return field;
    if (field >> (nbits - 1) & 1) field |= wire::mask(width) & ~wire::mask(nbits);
    return field;
}

// Bit reader over the bytes of one message (3.1: MDO bits LSB first, MSEO in bits 1:0).
struct FieldReader {
    const uint8_t *b;
    size_t n;
    size_t idx = 0;
    unsigned pos = 0;
    bool ended = false; // the MSEO=11 byte has been consumed

    Err fixed(unsigned bits, uint64_t &v) {
        using namespace wire;
        v = 0;
        unsigned got = 0;
        while (got < bits) {
            if (ended || idx >= n) return Err::MissingField;
            uint8_t byte = b[idx];
            unsigned take = min(kMdoBits - pos, bits - got);
            v |= uint64_t((byte >> 2 >> pos) & mask(take)) << got;
            got += take, pos += take;
            if (pos == kMdoBits) {
                uint8_t mseo = byte & 3;
                idx++, pos = 0;
                if (mseo == kMseoEndMsg) ended = true;
                // A fixed field that fills a byte flagged as end of a variable field
                // leaves that variable field empty.
                if (mseo == kMseoEndField) return Err::FixedAcrossEnd;
                if (mseo == kMseoEndMsg && got < bits) return Err::FixedAcrossEnd;
            }
        }
        return Err::None;
    }

    Err var(uint64_t &v, unsigned &nbits) {
        using namespace wire;
        v = 0, nbits = 0;
        if (ended || idx >= n) return Err::MissingField;
        bool overflow = false;
        for (;;) {
            if (idx >= n) return Err::MissingField;
            uint8_t byte = b[idx++];
            unsigned take = kMdoBits - pos;
            uint64_t bits = (byte >> 2 >> pos) & mask(take);
            if (nbits < 64) {
                v |= bits << nbits;
                if (nbits + take > 64 && (bits >> (64 - nbits))) overflow = true;
            } else if (bits) {
                overflow = true;
            }
            nbits += take, pos = 0;
            uint8_t mseo = byte & 3;
            if (mseo == kMseoEndMsg) ended = true;
            if (mseo != kMseoData) break;
        }
        return overflow ? Err::FieldOverflow : Err::None;
    }
    // Index of the byte the last field ended in.
    size_t end_byte() const { return pos ? idx : idx - 1; }
};

// Decodes the fields of exactly one message (bytes[0] starts it, bytes[n-1] has
// MSEO=11). note(Fld, value, nbits, end_byte) is called per field in transmission
// order (TCODE, SRC, the table's fields, TSTAMP). Returns the TCODE in `tcode`.
template <class Note>
Err decode_fields(const Framing &fr, const uint8_t *bytes, size_t n, uint8_t &tcode, uint32_t &present,
                  Note note) {
    FieldReader r{bytes, n};
    uint64_t v;
    Err e;
    uint64_t vals[kFieldCount];
    present = 0;
    auto put = [&](Fld f, uint64_t val, unsigned nb) {
        vals[unsigned(f)] = val;
        present |= 1u << unsigned(f);
        note(f, val, nb, r.end_byte());
    };
    if ((e = r.fixed(6, v)) != Err::None) return e;
    tcode = uint8_t(v);
    put(Fld::TCODE, v, 6);
    if (fr.src_bits) {
        if ((e = r.fixed(fr.src_bits, v)) != Err::None) return e;
        put(Fld::SRC, v, fr.src_bits);
    }
    const MsgDesc *d = find_msg(tcode);
    if (!d) return is_vendor_tcode(tcode) ? Err::None : Err::ReservedTcode;
    for (unsigned i = 0; i < d->nfields; i++) {
        const FieldRef &ref = d->fields[i];
        if (ref.conditional &&
            !((present >> unsigned(ref.cond_field) & 1) && vals[unsigned(ref.cond_field)] == ref.cond_value))
            continue;
        const FieldDesc &fd = kFields[unsigned(ref.id)];
        unsigned nb = 0;
        switch (fd.kind) {
        case Kind::Fix:
            e = r.fixed(fd.bits, v), nb = fd.bits;
            break;
        case Kind::Src:
            e = r.fixed(fr.src_bits, v), nb = fr.src_bits;
            break;
        case Kind::Var: e = r.var(v, nb); break;
        case Kind::Addr:
            e = r.var(v, nb);
            if (e == Err::None && fr.extend_addr) v = extend_addr_field(v, nb, fr.xlen);
            break;
        }
        if (e != Err::None) return e;
        put(ref.id, v, nb);
    }
    if (!r.ended && fr.tstamp) {
        unsigned nb;
        if ((e = r.var(v, nb)) != Err::None) return e;
        put(Fld::TSTAMP, v, nb);
    }
    if (!r.ended) return Err::ExtraField;
    return Err::None;
}

// The fields of one message without the host's bookkeeping (byte spans, widths).
struct Fields {
    uint8_t tcode = 0;
    uint32_t present = 0;
    uint64_t v[kFieldCount]; // only fields in `present` are set
    bool has(Fld f) const { return present >> unsigned(f) & 1; }
    uint64_t get(Fld f) const { return v[unsigned(f)]; }
};
namespace detail {
// DirectBranch and IndirectBranch, the messages BTM sends for almost every transfer,
// read in one pass: TCODE, SRC and B-TYPE are fixed fields at the start, then I-CNT
// and (IndirectBranch) U-ADDR as variable fields. False for anything else (another
// message, TSTAMP, an error, a field of more than 64 bits): the table-driven reader
// then decides, so the result is always the table's.
inline bool decode_branch(const Framing &fr, const uint8_t *b, size_t n, Fields &m) {
    using namespace wire;
    if (fr.tstamp || n < 2 || (b[0] & 3) != kMseoData) return false;
    const unsigned tcode = b[0] >> 2;
    const bool ib = tcode == NT_TCODE_IndirectBranch;
    if (!ib && tcode != NT_TCODE_DirectBranch) return false;
    constexpr unsigned kBtypeBits = kFields[unsigned(Fld::BTYPE)].bits;
    const unsigned fixed = fr.src_bits + (ib ? kBtypeBits : 0); // bits after TCODE
    // The fixed fields fill whole MDO groups of bytes 1..k, which carry no end of a
    // field except in the last one, when I-CNT starts in it.
    size_t i = 1;
    uint64_t acc = 0;
    unsigned have = 0;
    while (have < fixed) {
        if (i >= n || have + kMdoBits > 64) return false;
        const uint8_t byte = b[i++];
        acc |= uint64_t(byte >> 2) << have;
        have += kMdoBits;
        if ((byte & 3) != kMseoData && (have <= fixed || (byte & 3) == kMseoReserved)) return false;
    }
    uint32_t p = 1u << unsigned(Fld::TCODE);
    m.tcode = uint8_t(tcode);
    m.v[unsigned(Fld::TCODE)] = tcode;
    if (fr.src_bits) m.v[unsigned(Fld::SRC)] = acc & mask(fr.src_bits), p |= 1u << unsigned(Fld::SRC);
    if (ib) m.v[unsigned(Fld::BTYPE)] = (acc >> fr.src_bits) & mask(kBtypeBits), p |= 1u << unsigned(Fld::BTYPE);
    // I-CNT: the rest of the last fixed byte (whose MSEO is I-CNT's), then bytes up to
    // an end of field or message.
    uint64_t v = acc >> fixed;
    unsigned nb = have - fixed;
    uint8_t mseo = nb ? b[i - 1] & 3 : kMseoData;
    while (mseo == kMseoData) {
        if (i >= n || nb + kMdoBits > 64) return false;
        v |= uint64_t(b[i] >> 2) << nb;
        nb += kMdoBits;
        mseo = b[i++] & 3;
    }
    m.v[unsigned(Fld::ICNT)] = v, p |= 1u << unsigned(Fld::ICNT);
    if (ib) {
        if (mseo != kMseoEndField) return false;
        v = 0, nb = 0;
        do {
            if (i >= n || nb + kMdoBits > 64) return false;
            v |= uint64_t(b[i] >> 2) << nb;
            nb += kMdoBits;
            mseo = b[i++] & 3;
        } while (mseo == kMseoData);
        if (fr.extend_addr) v = extend_addr_field(v, nb, fr.xlen);
        m.v[unsigned(Fld::UADDR)] = v, p |= 1u << unsigned(Fld::UADDR);
    }
    if (mseo != kMseoEndMsg || i != n) return false;
    m.present = p;
    return true;
}
} // namespace detail

inline Err decode_fields(const Framing &fr, const uint8_t *bytes, size_t n, Fields &m) {
    if (detail::decode_branch(fr, bytes, n, m)) return Err::None;
    return decode_fields(fr, bytes, n, m.tcode, m.present,
                         [&](Fld f, uint64_t val, unsigned, size_t) { m.v[unsigned(f)] = val; });
}

// ---- BTM program flow ---------------------------------------------------------------
// Turns Branch Trace Messaging (N-Trace 1.0 chapter 11, trTeInstMode = BTM, no implicit
// return, no sequential jumps, no jump-table instructions) plus the code into every
// control transfer the hart retired, in order: transfers inside an I-CNT block come
// from the code (not-taken branches, direct jumps and calls), the block's end from the
// message (a taken branch, the target of an indirect jump or trap return, a trap).
//
// Env, the caller's interface:
//   bool insn(uint64_t pc, rv::Insn &in)      the instruction at pc, classified with
//                                             rv::classify (the Env may cache it);
//                                             false: unreadable, this sequence ends
//   void transfer(uint64_t src, uint64_t tgt, uint8_t itype)
//                                             itype: the 4-bit N-Trace itype, which is
//                                             CTR's transfer type (4 = not taken,
//                                             3 = trap return)
//   void trap(uint64_t epc, uint64_t handler, bool interrupt)
//   void leave(uint64_t pc, const rv::Insn *last)
//                                             the sequence left traced code at pc (a
//                                             ProgTraceCorrelation); last: the final
//                                             instruction walked when it was a trap
//                                             return (which left), else nullptr
//   void gap()                                the flow is broken (lost data, an error,
//                                             unreadable code): what follows is a
//                                             fresh sequence
//   uint64_t plain_run(uint64_t pc)           optional: half-words of the plain
//                                             instructions (is_plain) from pc on, any
//                                             count up to where they end (pc's is
//                                             plain); the walk steps over them at once
//                                             when the block goes on past them. The
//                                             Env may cache it.
// Instructions the walk steps over: no transfer, no end of a block.
constexpr bool is_plain(rv::Kind k) { return k == rv::Kind::Linear || k == rv::Kind::Illegal; }

struct FlowConfig {
    unsigned xlen = 64;
    int src = -1; // only messages with this SRC (-1: all)
};

// The walker's state between calls (plain data: the firmware keeps one per hart).
struct FlowState {
    bool synced;
    bool last_valid; // last: the branch message RepeatBranch repeats
    uint8_t last_btype;
    bool last_direct;
    uint64_t pc, ref;
    int64_t budget; // I-CNT half-words from ResourceFull not walked yet
    uint64_t last_icnt, last_target;
    uint64_t errors; // messages that did not match the code
};

template <class Env> class Flow {
  public:
    Flow(const FlowConfig &c, FlowState &s, Env &env) : cfg_(c), env_(env), s_(s) {}
    static void reset(FlowState &s) {
        uint64_t e = s.errors;
        s = FlowState{};
        s.errors = e;
    }
    bool synced() const { return s_.synced; }

    void on_msg(const Fields &m) {
        if (cfg_.src >= 0 && m.has(Fld::SRC) && m.get(Fld::SRC) != uint64_t(cfg_.src)) return;
        const uint64_t pcmask = mask();
        if (is_sync_tcode(m.tcode)) {
            if (m.has(Fld::HIST)) return fail(); // HTM is not this walker's
            const uint64_t faddr = (m.get(Fld::FADDR) << 1) & pcmask;
            const uint64_t sync = m.get(Fld::SYNC);
            if (sync == NT_SYNC_FIFO_OVERRUN || sync == NT_SYNC_EXIT_DEBUG) lose();
            if (s_.synced) {
                // The block before the synchronising message ends like the non-sync form.
                if (m.tcode == NT_TCODE_DirectBranchSync && m.get(Fld::ICNT))
                    walk(m.get(Fld::ICNT), End::Taken, faddr, 0);
                else if (m.tcode == NT_TCODE_IndirectBranchSync)
                    walk(m.get(Fld::ICNT), End::Addr, faddr, m.get(Fld::BTYPE));
                else
                    walk(m.get(Fld::ICNT), End::None, 0, 0);
            }
            // Every synchronising message resets the state (8.5).
            s_.synced = true;
            s_.pc = s_.ref = faddr;
            s_.budget = 0;
            s_.last_valid = false;
            return;
        }
        switch (m.tcode) {
        case NT_TCODE_Error: lose(); return;
        case NT_TCODE_Ownership: return;
        default: break;
        }
        if (!s_.synced) return;
        switch (m.tcode) {
        case NT_TCODE_DirectBranch:
            if (walk(m.get(Fld::ICNT), End::Taken, 0, 0)) set_last(true, m.get(Fld::ICNT), 0, 0);
            break;
        case NT_TCODE_IndirectBranch: {
            const uint64_t target = (s_.ref ^ (m.get(Fld::UADDR) << 1)) & pcmask;
            if (walk(m.get(Fld::ICNT), End::Addr, target, m.get(Fld::BTYPE))) {
                s_.ref = target;
                set_last(false, m.get(Fld::ICNT), target, m.get(Fld::BTYPE));
            }
            break;
        }
        case NT_TCODE_ResourceFull:
            s_.last_valid = false;
            if (m.get(Fld::RCODE) != NT_RCODE_ICNT_FULL || m.get(Fld::RDATA) > kMaxIcnt) return fail();
            s_.budget += int64_t(m.get(Fld::RDATA));
            break;
        case NT_TCODE_RepeatBranch: {
            const uint64_t n = m.get(Fld::BCNT);
            if (!s_.last_valid || n > (1ull << NT_LIMIT_MAX_BCNT)) return fail();
            for (uint64_t i = 0; i < n && s_.synced; i++) {
                if (!walk(s_.last_icnt, s_.last_direct ? End::Taken : End::Addr, s_.last_target, s_.last_btype))
                    break;
                if (!s_.last_direct) s_.ref = s_.last_target;
            }
            break;
        }
        case NT_TCODE_ProgTraceCorrelation:
            if (m.get(Fld::CDF)) return fail();
            walk(m.get(Fld::ICNT), End::Leave, 0, 0);
            s_.synced = false;
            break;
        default: return fail(); // HTM messages, vendor-defined
        }
    }

  private:
    enum class End : uint8_t { None, Taken, Addr, Leave };
    static constexpr uint64_t kMaxIcnt = 1ull << NT_LIMIT_MAX_ICNT;
    uint64_t mask() const { return cfg_.xlen == 32 ? 0xFFFFFFFFull : ~0ull; }

    void fail() {
        s_.errors++;
        lose();
    }
    void lose() {
        if (s_.synced || s_.budget) env_.gap();
        reset();
    }
    void set_last(bool direct, uint64_t icnt, uint64_t target, uint64_t btype) {
        s_.last_valid = true;
        s_.last_direct = direct, s_.last_btype = uint8_t(btype), s_.last_icnt = icnt, s_.last_target = target;
    }

    // Runs the I-CNT block from s_.pc and ends it as the message says: the taken branch
    // (End::Taken), the indirect jump, trap return or trap to `target` (End::Addr with
    // B-TYPE), nothing (End::None: I-CNT full or periodic) or leaving traced code
    // (End::Leave). False when the block does not match the code.
    bool walk(uint64_t icnt, End end, uint64_t target, uint64_t btype) {
        if (icnt > kMaxIcnt) return fail(), false;
        const uint64_t pcmask = mask();
        int64_t budget = s_.budget + int64_t(icnt);
        uint64_t pc = s_.pc;
        const bool trap_end = end == End::Addr && btype != NT_BTYPE_INDIRECT;
        rv::Insn in{};
        bool measured = false; // pc is in a run of plain instructions plain_run measured
        while (budget > 0) {
            if (!env_.insn(pc, in)) return lose(), false;
            if constexpr (requires { env_.plain_run(pc); }) {
                // Stepping over plain instructions one by one would only move pc
                // and budget (the default case below).
                if (!is_plain(in.kind)) {
                    measured = false;
                } else if (!measured) {
                    measured = true;
                    const int64_t run = int64_t(env_.plain_run(pc));
                    if (run && run < budget) {
                        budget -= run;
                        pc = (pc + 2 * uint64_t(run)) & pcmask;
                        measured = false;
                        continue;
                    }
                }
            }
            budget -= in.size / 2;
            if (budget < 0) return fail(), false;
            const bool last = budget == 0;
            const uint64_t next = (pc + in.size) & pcmask;
            switch (in.kind) {
            case rv::Kind::Branch:
                if (last && end == End::Taken) {
                    uint64_t t = (pc + uint64_t(int64_t(in.offset))) & pcmask;
                    env_.transfer(pc, t, NT_ITYPE_BRANCH_TAKEN);
                    pc = t;
                    end = End::None;
                } else {
                    env_.transfer(pc, next, NT_ITYPE_BRANCH_NOT_TAKEN);
                    pc = next;
                }
                break;
            case rv::Kind::DirectJump: {
                uint64_t t = (pc + uint64_t(int64_t(in.offset))) & pcmask;
                env_.transfer(pc, t, in.itype);
                pc = t;
                break;
            }
            case rv::Kind::Indirect:
            case rv::Kind::TrapReturn:
                if (!last) return fail(), false;
                if (end == End::Leave) {
                    // A trap return that left traced code: its target is not known here.
                    s_.pc = pc, s_.budget = 0;
                    env_.leave(pc, in.kind == rv::Kind::TrapReturn ? &in : nullptr);
                    return true;
                }
                if (end != End::Addr || trap_end) return fail(), false;
                env_.transfer(pc, target, in.kind == rv::Kind::TrapReturn ? uint8_t(NT_ITYPE_TRAP_RETURN) : in.itype);
                pc = target;
                end = End::None;
                break;
            case rv::Kind::TableJump:
            case rv::Kind::Trap: return fail(), false; // cm.jt without JVT; ecall/ebreak retire no
            default: pc = next; break;
            }
        }
        s_.budget = 0;
        switch (end) {
        case End::Taken: return fail(), false; // no taken branch where the message ended
        case End::Addr:
            if (!trap_end) return fail(), false;
            // "An exception's instruction at epc did not retire; an interrupt is taken
            // before the instruction at epc": the block ends at epc.
            env_.trap(pc, target, btype == NT_BTYPE_INTERRUPT);
            pc = target;
            break;
        case End::Leave: env_.leave(pc, nullptr); break;
        default: break;
        }
        s_.pc = pc;
        return true;
    }

    void reset() {
        s_.synced = false;
        s_.pc = s_.ref = 0;
        s_.budget = 0;
        s_.last_valid = false;
    }

    const FlowConfig &cfg_;
    Env &env_;
    FlowState &s_;
};

// Splits a byte stream into messages: idle bytes skipped, each message from its first
// byte to the byte with MSEO=11. Calls on_msg(const uint8_t *bytes, size_t n, size_t
// offset) per complete message and on_error(offset, Err) for framing errors; returns
// the offset after the last complete message (a truncated tail is left for the next
// call). With mid_stream the bytes up to the first end of message are skipped.
template <class OnMsg, class OnError>
size_t split_messages(const uint8_t *bytes, size_t n, bool mid_stream, OnMsg on_msg, OnError on_error) {
    using namespace wire;
    size_t i = 0;
    if (mid_stream) {
        while (i < n && (bytes[i] & 3) != kMseoEndMsg) i++;
        if (i < n) i++;
    }
    while (i < n) {
        if (bytes[i] == kIdle) {
            i++;
            continue;
        }
        if ((bytes[i] & 3) != kMseoData) {
            // Not a message start: report once, then skip past the next end of message.
            on_error(i, Err::NoStart);
            while (i < n && (bytes[i] & 3) != kMseoEndMsg) i++;
            i++;
            continue;
        }
        size_t start = i, j = i;
        while (j < n && (bytes[j] & 3) != kMseoEndMsg && (bytes[j] & 3) != kMseoReserved) j++;
        if (j >= n) return start;
        if ((bytes[j] & 3) == kMseoReserved) {
            on_error(j, Err::ReservedMseo);
            while (j < n && (bytes[j] & 3) != kMseoEndMsg) j++;
            i = j + 1;
            continue;
        }
        i = j + 1;
        on_msg(bytes + start, j + 1 - start, start);
    }
    return n < i ? n : i;
}

} // namespace ntrace
