// SPDX-License-Identifier: BSD-2-Clause
// The N-Trace decoding core shared by the host tools (ntrace.cpp, ntrace_dec.cpp) and
// the firmware (firmware/ctr: CTR records from a hart's encoder): the message table of
// ntrace_msgs.def, the field reader (N-Trace 1.0 chapter 3 framing, chapters 6-7
// fields, 8.2 address extension) and the program-flow walker that turns messages plus
// code into control transfers or retired addresses. Freestanding: no heap, no exceptions, no hosted headers,
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
// A variable field from b[i] (at least one byte) to its end of field or of the
// message: its MDO bits in v (nb of them) and the MSEO that ended it.
[[gnu::always_inline]] inline bool read_var_field(const uint8_t *b, size_t n, size_t &i, uint64_t &v, unsigned &nb,
                                                  uint8_t &mseo) {
    using namespace wire;
    v = 0, nb = 0;
    do {
        if (i >= n || nb + kMdoBits > 64) return false;
        v |= uint64_t(b[i] >> 2) << nb;
        nb += kMdoBits;
        mseo = b[i++] & 3;
    } while (mseo == kMseoData);
    return true;
}
// One message kind: F1 and F2 the fixed fields after SRC (TCODE: none), Addr
// the address after I-CNT (TCODE: none); constants, so that each kind
// compiles to its own straight reader.
template <unsigned Tcode, Fld F1, Fld F2, Fld Addr, bool Ts>
inline bool read_common(const Framing &fr, const uint8_t *b, size_t n, Fields &m) {
    using namespace wire;
    constexpr unsigned bits1 = F1 == Fld::TCODE ? 0 : kFields[unsigned(F1)].bits;
    constexpr unsigned bits2 = F2 == Fld::TCODE ? 0 : kFields[unsigned(F2)].bits;
    const unsigned src_bits = fr.src_bits;
    const unsigned fixed = src_bits + bits1 + bits2; // bits after TCODE
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
    m.tcode = uint8_t(Tcode);
    m.v[unsigned(Fld::TCODE)] = Tcode;
    if (src_bits) m.v[unsigned(Fld::SRC)] = acc & mask(src_bits), p |= 1u << unsigned(Fld::SRC);
    if constexpr (bits1 != 0) {
        m.v[unsigned(F1)] = (acc >> src_bits) & mask(bits1), p |= 1u << unsigned(F1);
    }
    if constexpr (bits2 != 0) {
        const uint64_t v2 = (acc >> (src_bits + bits1)) & mask(bits2);
        if (F2 == Fld::CDF && v2 == 1) return false; // HIST follows I-CNT
        m.v[unsigned(F2)] = v2, p |= 1u << unsigned(F2);
    }
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
    if constexpr (Addr != Fld::TCODE) {
        if (mseo != kMseoEndField) return false;
        if (!read_var_field(b, n, i, v, nb, mseo)) return false;
        if (fr.extend_addr) v = extend_addr_field(v, nb, fr.xlen);
        m.v[unsigned(Addr)] = v, p |= 1u << unsigned(Addr);
    }
    if (Ts && mseo == kMseoEndField) { // TSTAMP, the last field
        if (!read_var_field(b, n, i, v, nb, mseo)) return false;
        m.v[unsigned(Fld::TSTAMP)] = v, p |= 1u << unsigned(Fld::TSTAMP);
    }
    if (mseo != kMseoEndMsg || i != n) return false;
    m.present = p;
    return true;
}

// The messages BTM sends for almost every transfer, DirectBranch and
// IndirectBranch, and at every trap out of and return into the code a
// privilege filter selects, ProgTraceCorrelation (CDF=0) and ProgTraceSync,
// read in one pass: TCODE, SRC and up to two fixed fields at the start (B-TYPE;
// SYNC; EVCODE and CDF), then I-CNT and (IndirectBranch, ProgTraceSync) an
// address as variable fields; with Ts (only for a framing with TSTAMP) TSTAMP
// after them. False for anything else (another message, TSTAMP without Ts,
// HIST, an error, a field of more than 64 bits): the table-driven
// reader then decides, so the result is always the table's.
template <bool Ts = false>
inline bool decode_common(const Framing &fr, const uint8_t *b, size_t n, Fields &m) {
    // Without Ts a TSTAMP after the last field ends that field with MSEO=01,
    // not 11: read_common refuses the message, the table reader takes it.
    if (n < 2 || (b[0] & 3) != wire::kMseoData) return false;
    switch (b[0] >> 2) {
    case NT_TCODE_DirectBranch:
        return read_common<NT_TCODE_DirectBranch, Fld::TCODE, Fld::TCODE, Fld::TCODE, Ts>(fr, b, n, m);
    case NT_TCODE_IndirectBranch:
        return read_common<NT_TCODE_IndirectBranch, Fld::BTYPE, Fld::TCODE, Fld::UADDR, Ts>(fr, b, n, m);
    case NT_TCODE_ProgTraceSync:
        return read_common<NT_TCODE_ProgTraceSync, Fld::SYNC, Fld::TCODE, Fld::FADDR, Ts>(fr, b, n, m);
    case NT_TCODE_ProgTraceCorrelation:
        return read_common<NT_TCODE_ProgTraceCorrelation, Fld::EVCODE, Fld::CDF, Fld::TCODE, Ts>(fr, b, n, m);
    default: return false;
    }
}
} // namespace detail

// Ts: the framing has TSTAMP (fr.tstamp), read on the one-pass path too.
template <bool Ts = false>
inline Err decode_fields(const Framing &fr, const uint8_t *bytes, size_t n, Fields &m) {
    if (detail::decode_common<Ts>(fr, bytes, n, m)) return Err::None;
    return decode_fields(fr, bytes, n, m.tcode, m.present,
                         [&](Fld f, uint64_t val, unsigned, size_t) { m.v[unsigned(f)] = val; });
}

// The one program-flow walker (N-Trace 1.0 chapter 11 "Decoding Algorithm Principles"):
// messages plus the code in, what the hart retired out, in order. Transfers inside an
// I-CNT block come from the code (not-taken branches, direct jumps and calls, inferable
// jumps), the block's end from the message (a taken branch, the target of an indirect
// jump or trap return, a trap). The firmware's CTR feed and `tsbi-trace ntrace
// transfers` take the transfers; the host decoder (ntrace_dec.cpp) takes every retired
// address and the events.
//
// What the walk can do beyond BTM is chosen at compile time (FlowFeatures) and switched
// on per stream (FlowConfig); a feature not compiled in costs neither code nor state
// (the firmware keeps one FlowState per hart and walks BTM only):
//   htm         HIST and HREPEAT (History Trace Messaging: IndirectBranchHist[Sync],
//               ResourceFull RCODE 1/2, ProgTraceCorrelation with CDF=1)
//   seq_jump    "Sequential Jump Optimization": the instruction retired before a
//               register jump may load its target
//   all_jumps   trTeInstEnAllJumps: direct jumps are reported as taken branches
//   call_stack  entries of the implicit-return stack (9.2 "Implicit Return")
//
// Env, the caller's interface (required):
//   bool insn(uint64_t pc, rv::Insn &in)      the instruction at pc that retires next,
//                                             classified with rv::classify (the Env may
//                                             cache it); false: unreadable, this
//                                             sequence ends
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
// Optional, each used only when the Env has it:
//   uint64_t plain_run(uint64_t pc)           half-words of the plain instructions
//                                             (is_plain) from pc on, any count up to
//                                             where they end; the walk steps over them
//                                             at once (an Env without retired())
//   void retired(uint64_t pc)                 every retired instruction, in order
//   void run(FlowRun &r)                      retires the linear instructions from r.pc
//                                             that end before the block does (their
//                                             half-words < r.budget) and advances r; the
//                                             Env emits their addresses at its speed
//   bool at_limit()                           stop: "instruction limit reached"
//   void error(const char *what, uint64_t pc) a message that does not match the code
//   bool accept_long_icnt()                   an I-CNT above NTRACE_MAX_ICNT is taken
//                                             (the Env counts it) instead of an error
//   void sync(const M &msg), ownership(uint64_t process), lost(uint64_t ecode),
//   vendor(unsigned tcode)                    the other messages; an Env with vendor()
//                                             also passes over the table's messages
//                                             that carry no program flow
//   bool peek(uint64_t pc, rv::Insn &in)      the code at pc without retiring it (for
//                                             seq_jump and rewritten code)
//   bool jump_table(unsigned index, uint64_t &target)
//                                             cm.jt/cm.jalt: entry `index` of the table
//                                             JVT points to
// Rewritten code (all of them, with peek): code with two versions the trace chooses
// between; the walk takes the believed version first and, when the block cannot be
// explained, backtracks to the last site it passed and takes the other (depth first,
// kMaxChoices sites and kMaxRetries retries per block):
//   int site_at(uint64_t pc, uint32_t &site)        pc is in no site (-1), in one
//                                                   whose version is known (0: a
//                                                   scheduled one) or a free one (1)
//   uint8_t believed(uint32_t site)                 the version to take (first)
//   bool site_insn(uint32_t site, uint8_t version, uint64_t pc, rv::Insn &in)
//   Snap snapshot(); void restore(const Snap &)     the Env's own state a retry rolls
//                                                   back (its output position, ...)
//   void settle(uint32_t site, uint8_t version)     the block was explained so
//   void release()                                  the walk is done with its choices
//   void backtracked()                              statistics
// Instructions a BTM walk steps over: no transfer, no end of a block.
constexpr bool is_plain(rv::Kind k) { return k == rv::Kind::Linear || k == rv::Kind::Illegal; }

struct FlowFeatures {
    bool htm = false;
    bool seq_jump = false;
    bool all_jumps = false;
    unsigned call_stack = 0;
};
constexpr FlowFeatures kFlowBtm{};
constexpr FlowFeatures kFlowAll{true, true, true, NT_LIMIT_MAX_CALL_STACK};

struct FlowConfig {
    unsigned xlen = 64;
    int src = -1;                 // only messages with this SRC (-1: all)
    bool implicit_return = false; // trTeInstImplicitReturnMode != 0 (needs call_stack)
    bool seq_jump = false;        // trTeInstEnSequentialJump (needs seq_jump)
    bool all_jumps = false;       // trTeInstEnAllJumps (needs all_jumps)
};

// Env::run's argument: the walk's position, advanced by the Env.
struct FlowRun {
    uint64_t pc;
    int64_t budget; // half-words left in the block
    uint64_t last;  // address of the last instruction retired
};

namespace detail {
template <int> struct None {};
template <bool C, class T, class F> struct IfT {
    using type = T;
};
template <class T, class F> struct IfT<false, T, F> {
    using type = F;
};
template <bool C, class T, int N> using Opt = typename IfT<C, T, None<N>>::type;
template <class T> T &declref(); // unevaluated operands only (std::declval)

struct HistState {
    uint64_t bits = 0; // HIST being consumed, with its stop bit
    uint64_t rep = 0;  // HREPEAT: times the same bits come again
    int pos = -1;      // next bit (-1: none left)
    bool last_present = false; // the last branch message's HIST, for RepeatBranch
    uint64_t last = 1;
};
struct PrevState {
    uint64_t pc = ~0ull; // the instruction retired last (none after a synchronisation)
};
template <unsigned N> struct CallStack {
    uint64_t a[N];
    unsigned sp, depth;
    void push(uint64_t x) {
        a[sp] = x;
        sp = (sp + 1) % N;
        if (depth < N) depth++;
    }
    bool pop(uint64_t &x) {
        if (!depth) return false;
        sp = (sp + N - 1) % N;
        depth--;
        x = a[sp];
        return true;
    }
};
} // namespace detail

// The walker's state between calls (plain data: the firmware keeps one per hart).
template <FlowFeatures F> struct FlowStateT {
    bool synced;
    bool last_valid; // last: the branch message RepeatBranch repeats
    uint8_t last_btype;
    bool last_direct;
    uint64_t pc, ref;
    int64_t budget; // I-CNT half-words not walked yet (negative: walked ahead by HIST)
    uint64_t last_icnt, last_target;
    uint64_t errors; // messages that did not match the code
    [[no_unique_address]] detail::Opt<F.htm, detail::HistState, 0> hist;
    [[no_unique_address]] detail::Opt<F.seq_jump, detail::PrevState, 1> prev;
    [[no_unique_address]] detail::Opt<(F.call_stack > 0), detail::CallStack<F.call_stack>, 2> calls;
};
using FlowState = FlowStateT<kFlowBtm>;
static_assert(sizeof(FlowState) == 7 * sizeof(uint64_t), "BTM state holds nothing for features it lacks");

template <class Env, FlowFeatures F = kFlowBtm> class Flow {
  public:
    using State = FlowStateT<F>;
    Flow(const FlowConfig &c, State &s, Env &env) : cfg_(c), env_(env), s_(s) {}
    static void reset(State &s) {
        uint64_t e = s.errors;
        s = State{};
        s.errors = e;
    }
    bool synced() const { return s_.synced; }

    // M: Fields, or any message with the same tcode/has/get.
    template <class M> void on_msg(const M &m) {
        if (cfg_.src >= 0 && m.has(Fld::SRC) && m.get(Fld::SRC) != uint64_t(cfg_.src)) return;
        const uint64_t pcmask = mask();
        // Without HTM, a message with HIST (IndirectBranchHist[Sync], ResourceFull
        // RCODE 1/2, ProgTraceCorrelation CDF=1) cannot be walked; BTM's own messages
        // have no HIST field, so they are not checked.
        const bool hp = F.htm && m.has(Fld::HIST);
        const uint64_t hist = hp ? m.get(Fld::HIST) : 1;
        if (is_sync_tcode(m.tcode)) {
            if (!F.htm && m.has(Fld::HIST)) return error("HIST in a walk without HTM");
            const uint64_t faddr = (m.get(Fld::FADDR) << 1) & pcmask;
            const uint64_t sync = m.get(Fld::SYNC);
            if (sync == NT_SYNC_FIFO_OVERRUN || sync == NT_SYNC_EXIT_DEBUG) lose();
            if (s_.synced) {
                // The block before the synchronising message ends like the non-sync form,
                // or anywhere (I-CNT full, periodic).
                const uint64_t icnt = m.get(Fld::ICNT);
                if (m.tcode == NT_TCODE_DirectBranchSync)
                    walk(icnt, hist, hp, icnt ? End::Taken : End::None, 0, 0, false);
                else
                    walk(icnt, hist, hp, End::Addr, faddr, m.has(Fld::BTYPE) ? m.get(Fld::BTYPE) : 0, false);
            }
            // Every synchronising message resets the state (8.5).
            const uint64_t errors = s_.errors;
            s_ = State{};
            s_.errors = errors;
            s_.synced = true;
            s_.pc = s_.ref = faddr;
            if constexpr (requires { env_.sync(m); }) env_.sync(m);
            return;
        }
        switch (m.tcode) {
        case NT_TCODE_Error:
            if constexpr (requires { env_.lost(0ull); }) env_.lost(m.get(Fld::ECODE));
            lose();
            return;
        case NT_TCODE_Ownership:
            if constexpr (requires { env_.ownership(0ull); }) env_.ownership(m.get(Fld::PROCESS));
            return;
        default: break;
        }
        if constexpr (kVendor) {
            if (!find_msg(m.tcode)) return env_.vendor(m.tcode);
        }
        if (!s_.synced) return;
        switch (m.tcode) {
        case NT_TCODE_DirectBranch:
            if (walk(m.get(Fld::ICNT), 1, false, End::Taken, 0, 0, false))
                set_last(true, m.get(Fld::ICNT), 0, 0, 1, false); // its target comes from the code
            break;
        case NT_TCODE_IndirectBranchHist:
            if constexpr (!F.htm) return error("HIST in a walk without HTM");
            [[fallthrough]];
        case NT_TCODE_IndirectBranch: {
            const uint64_t btype = m.get(Fld::BTYPE);
            const uint64_t target = (s_.ref ^ (m.get(Fld::UADDR) << 1)) & pcmask;
            if (!walk(m.get(Fld::ICNT), hist, hp, End::Addr, target, btype, btype == NT_BTYPE_INDIRECT)) break;
            s_.pc = s_.ref = target;
            set_last(false, m.get(Fld::ICNT), target, btype, hist, hp);
            break;
        }
        case NT_TCODE_ResourceFull:
            s_.last_valid = false;
            switch (m.get(Fld::RCODE)) {
            case NT_RCODE_ICNT_FULL:
                // A corrupt stream can pile I-CNT-full messages past int64_t.
                if (icnt_ok(m.get(Fld::RDATA)) && !add_budget(s_.budget, m.get(Fld::RDATA)))
                    error("I-CNT total beyond 2^63 half-words");
                return;
            case NT_RCODE_HIST_FULL:
            case NT_RCODE_HIST_REPEAT:
                if constexpr (F.htm) {
                    walk_hist(m.get(Fld::RDATA),
                              m.get(Fld::RCODE) == NT_RCODE_HIST_REPEAT ? m.get(Fld::HREPEAT) : 1);
                    return;
                }
                break;
            default: break;
            }
            if constexpr (kVendor) return env_.vendor(m.tcode);
            return error("ResourceFull the walk does not take");
        case NT_TCODE_RepeatBranch: {
            const uint64_t n = m.get(Fld::BCNT);
            if (!s_.last_valid || n > (1ull << NT_LIMIT_MAX_BCNT))
                return error("RepeatBranch without a branch message to repeat");
            const bool direct = s_.last_direct;
            const uint64_t icnt = s_.last_icnt, target = s_.last_target, btype = s_.last_btype;
            uint64_t lh = 1;
            bool lhp = false;
            if constexpr (F.htm) lh = s_.hist.last, lhp = s_.hist.last_present;
            for (uint64_t i = 0; i < n; i++) {
                if (!walk(icnt, lh, lhp, direct ? End::Taken : End::Addr, target, btype,
                          !direct && btype == NT_BTYPE_INDIRECT))
                    break;
                if (!direct) s_.pc = s_.ref = target;
            }
            break;
        }
        case NT_TCODE_ProgTraceCorrelation:
            if (!F.htm && m.has(Fld::HIST)) return error("HIST in a walk without HTM");
            walk(m.get(Fld::ICNT), hist, hp, End::Leave, 0, 0, false);
            s_.synced = false;
            break;
        default:
            if constexpr (!kVendor) error("message the walk does not take");
            break;
        }
    }

    // A message that does not fit the stream (framing, fields): counted and reported
    // with `what`; the flow is broken until the next synchronising message.
    void error(const char *what) {
        s_.errors++;
        if constexpr (requires { env_.error(what, 0ull); }) env_.error(what, s_.pc);
        lose();
    }

  private:
    enum class End : uint8_t { None, Taken, Addr, Leave };
    static constexpr uint64_t kMaxIcnt = 1ull << NT_LIMIT_MAX_ICNT;
    static constexpr uint64_t kMaxRepeat = 1ull << NT_LIMIT_MAX_HREPEAT;
    // Instructions a HIST walk may pass without meeting a branch.
    static constexpr uint64_t kMaxHistGap = 1ull << (NT_LIMIT_MAX_ICNT + 1);
    static constexpr uint64_t kNoPc = ~0ull;
    static constexpr bool kVendor = requires(Env &e) { e.vendor(0u); };
    static constexpr bool kRetired = requires(Env &e) { e.retired(0ull); };
    static constexpr bool kRun = requires(Env &e, FlowRun &r) { e.run(r); };
    static constexpr bool kPlainRun = requires(Env &e) { e.plain_run(0ull); };
    static constexpr bool kLimit = requires(Env &e) { e.at_limit(); };
    static constexpr bool kRewritten = requires(Env &e, uint32_t &site) { e.site_at(0ull, site); };
    static constexpr unsigned kMaxChoices = 16, kMaxRetries = 256;

    uint64_t mask() const { return cfg_.xlen == 32 ? 0xFFFFFFFFull : ~0ull; }
    bool ir() const { return F.call_stack && cfg_.implicit_return; }
    bool all_jumps() const { return F.all_jumps && cfg_.all_jumps; }
    void push(uint64_t a) {
        if constexpr (F.call_stack > 0) s_.calls.push(a);
    }
    bool pop(uint64_t &a) {
        if constexpr (F.call_stack > 0) return s_.calls.pop(a);
        return false;
    }

    // HIST bits, oldest first: the stop bit is the highest set bit; HREPEAT reloads
    // them (chapter 7 "History Trace Messaging").
    bool have_bits() const {
        if constexpr (F.htm) return s_.hist.pos >= 0;
        return false;
    }
    bool take_bit() {
        if constexpr (F.htm) {
            auto &h = s_.hist;
            bool b = h.bits >> h.pos & 1;
            if (--h.pos < 0 && h.rep) {
                h.rep--;
                h.pos = 62 - __builtin_clzll(h.bits);
            }
            return b;
        }
        return false;
    }
    void load_bits(uint64_t hist, uint64_t rep) {
        if constexpr (F.htm) s_.hist.bits = hist, s_.hist.rep = rep, s_.hist.pos = 62 - __builtin_clzll(hist);
    }

    // trTeInstEnAllJumps: a direct jump spends a HIST bit, which must be 1, as a taken
    // branch would (in BTM it ends a DirectBranch block instead). The error, or nullptr.
    const char *jump_bit(bool strict) {
        if (!all_jumps()) return nullptr;
        if (have_bits()) return take_bit() ? nullptr : "HIST bit 0 for an unconditional jump";
        return strict ? "direct branch without a HIST bit" : nullptr;
    }

    // A direct jump's target; a sequentially inferred register jump's is `seq`.
    static uint64_t direct_target(const rv::Insn &in, uint64_t cur, uint64_t seq, uint64_t pcmask) {
        return in.kind == rv::Kind::Indirect ? seq : (cur + uint64_t(int64_t(in.offset))) & pcmask;
    }
    // A direct jump (jal, cm.jt/cm.jalt, an inferred register jump) to target, its
    // HIST bit spent: a call pushes its return address (9.2), the transfer is reported.
    uint64_t take_jump(const rv::Insn &in, uint64_t cur, uint64_t target) {
        if (ir() && in.pushes()) push((cur + in.size) & mask());
        env_.transfer(cur, target, in.itype);
        return target;
    }
    // cm.jt/cm.jalt: the entry of the jump table JVT points to, read through the Env
    // (Zcmt; N-Trace 1.0 itype table: a direct jump).
    static constexpr const char *kNoTable = "cm.jt/cm.jalt without a readable jump table (JVT)";
    bool table_target(const rv::Insn &in, uint64_t &target) {
        bool ok = false;
        target = 0;
        if constexpr (requires { env_.jump_table(0u, target); }) ok = env_.jump_table(in.table_index(), target);
        target = target & ~1ull & mask();
        return ok;
    }

    void lose() {
        if (s_.synced || s_.budget) env_.gap();
        s_.synced = false;
        s_.budget = 0;
        s_.last_valid = false;
        if constexpr (F.htm) s_.hist.pos = -1, s_.hist.rep = 0;
        if constexpr (F.seq_jump) s_.prev.pc = kNoPc;
    }
    // b += n, false when the sum leaves int64_t (a corrupt stream's I-CNTs).
    static bool add_budget(int64_t &b, uint64_t n) {
        int64_t r;
        if (n > uint64_t(INT64_MAX) || __builtin_add_overflow(b, int64_t(n), &r)) return false;
        b = r;
        return true;
    }
    bool icnt_ok(uint64_t icnt) {
        if (icnt <= kMaxIcnt) return true;
        if constexpr (requires { env_.accept_long_icnt(); }) {
            if (env_.accept_long_icnt()) return true;
        }
        error("I-CNT larger than NTRACE_MAX_ICNT");
        return false;
    }
    // The N-Trace reference code (tg-nexus-trace refcode/c, NexRvConv.c) classifies
    // `ecall` as an indirect call ("CI": IndirectBranch with B-TYPE 0, the ecall
    // counted in I-CNT, its return address pushed) and `mret`/`ret` alike as returns
    // (popped, and left out when predicted). The spec reports an exception with
    // B-TYPE 1 or 2 and does not count the trapping instruction. When the Env accepts
    // such a block (counted, not --strict), the stream is read as the reference means
    // it, xRET included, from then on.
    static constexpr bool traps(rv::Kind k) { return k == rv::Kind::Trap || k == rv::Kind::Illegal; }
    bool accept_trap_call() {
        if constexpr (requires { env_.accept_trap_call(); }) return env_.accept_trap_call();
        return false;
    }
    bool ref_returns() {
        if constexpr (requires { env_.ref_returns(); }) return ir() && env_.ref_returns();
        return false;
    }
    void set_last(bool direct, uint64_t icnt, uint64_t target, uint64_t btype, uint64_t hist, bool hp) {
        s_.last_valid = true;
        s_.last_direct = direct, s_.last_btype = uint8_t(btype), s_.last_icnt = icnt, s_.last_target = target;
        if constexpr (F.htm) s_.hist.last = hist, s_.hist.last_present = hp;
    }

    // "Sequential Jump Optimization": a register jump is inferable when the instruction
    // retired just before it (so at the preceding address) loaded its register with
    // lui/c.lui (a constant) or auipc (pc + constant).
    bool seq_target(uint64_t prev, uint64_t pc, const rv::Insn &jump, uint64_t &target) {
        if constexpr (F.seq_jump) {
            rv::Insn ld;
            if (prev == kNoPc || !jump.jump_reg() || !env_.peek(prev, ld)) return false;
            if (ld.loads_constant() != jump.jump_reg() || ((prev + ld.size) & mask()) != pc) return false;
            uint64_t v = uint64_t(int64_t(ld.offset));
            if (ld.reg & rv::kRegAuipc) v += prev;
            target = (v + uint64_t(int64_t(jump.offset))) & ~1ull & mask();
            return true;
        }
        return false;
    }
    // Whether the instruction before addr is a call (jal/jalr/c.jalr linking ra).
    bool after_call(uint64_t addr) {
        rv::Insn c;
        return (env_.peek(addr - 4, c) && c.size == 4 && c.pushes()) ||
               (env_.peek(addr - 2, c) && c.size == 2 && c.pushes());
    }

    // Rewritten code: the versions taken in the current block and the walk's state
    // before each, to take the other version when the block fails.
    // Storage left uninitialised: a walk starts with no choices, and zeroing the
    // stack per block would cost more than the whole walk of most blocks.
    template <class T> union Raw {
        T v;
        Raw() {}
    };
    template <class E> struct ChoiceT {
        uint32_t site;
        uint8_t version;
        bool retried;
        uint64_t pc, prev, gap;
        int64_t budget;
        Raw<State> flow;
        decltype(detail::declref<E>().snapshot()) env;
    };
    template <class E> struct Choices {
        ChoiceT<E> c[kMaxChoices];
        unsigned n = 0, retries = 0;
    };
    struct NoChoices {
        unsigned n = 0;
    };
    // The walk's local position, saved with a choice and restored by a retry.
    struct Pos {
        uint64_t pc, prev, gap;
        int64_t budget;
    };

    // The instruction at p.pc, in the version the block's choices say for rewritten
    // code. False when there is none; `inside` tells a PC inside a site's instruction.
    template <class C> [[gnu::always_inline]] bool lookup(C &ch, const Pos &p, rv::Insn &in, bool &inside) {
        inside = false;
        if constexpr (kRewritten) {
            uint32_t site;
            const int kind = env_.site_at(p.pc, site);
            if (kind >= 0) return inside = true, site_insn(ch, p, site, kind, in);
        }
        return env_.insn(p.pc, in);
    }
    // Out of line, and p by value: the walk's position stays in registers.
    template <class C> [[gnu::noinline]] bool site_insn(C &ch, const Pos p, uint32_t site, int kind, rv::Insn &in) {
        int v = -1;
        if (kind == 0) {
            v = env_.believed(site);
        } else {
            for (unsigned i = 0; i < ch.n; i++)
                if (ch.c[i].site == site) v = ch.c[i].version;
            if (v < 0) {
                v = env_.believed(site);
                if (ch.n < kMaxChoices) {
                    auto &c = ch.c[ch.n++];
                    c.site = site, c.version = uint8_t(v), c.retried = false;
                    c.pc = p.pc, c.prev = p.prev, c.gap = p.gap, c.budget = p.budget;
                    c.flow.v = s_;
                    c.env = env_.snapshot();
                }
            }
        }
        return env_.site_insn(site, uint8_t(v), p.pc, in);
    }
    // Back to the latest untried choice; false when every choice was tried.
    template <class C> bool retry(C &ch, Pos &p) {
        if constexpr (kRewritten) {
            while (ch.n && ch.retries < kMaxRetries) {
                auto &c = ch.c[ch.n - 1];
                if (c.retried) {
                    ch.n--;
                    continue;
                }
                c.retried = true, c.version ^= 1;
                p = {c.pc, c.prev, c.gap, c.budget};
                s_ = c.flow.v;
                env_.restore(c.env);
                ch.retries++;
                env_.backtracked();
                return true;
            }
        }
        return false;
    }
    template <class C> void settle(C &ch) {
        if constexpr (kRewritten) {
            for (unsigned i = 0; i < ch.n; i++) env_.settle(ch.c[i].site, ch.c[i].version);
            ch.n = 0;
            env_.release();
        }
    }
    template <class C> void drop(C &ch) {
        if constexpr (kRewritten) {
            ch.n = 0;
            env_.release();
        }
    }
    template <class C> [[gnu::noinline]] bool bail(C &ch, const Pos p, const char *what) {
        put(p);
        drop(ch);
        error(what);
        return false;
    }
    void put(const Pos &p) {
        s_.pc = p.pc, s_.budget = p.budget;
        if constexpr (F.seq_jump) s_.prev.pc = p.prev;
    }
    using ChoiceSet = typename detail::IfT<kRewritten, Choices<Env>, NoChoices>::type;

    // In the walks below: a block that does not match the code is retried with the other
    // version of the last rewritten-code site passed, or fails with `what`.
#define NT_RETRY_OR_FAIL(what)                                                                               \
    {                                                                                                        \
        if (Pos q = p; retry(ch, q)) {                                                                       \
            p = q;                                                                                           \
            continue;                                                                                        \
        }                                                                                                    \
        return bail(ch, p, what);                                                                            \
    }

    // Runs the I-CNT block (with the HIST bits of its message) from s_.pc and ends it as
    // the message says: the taken branch (End::Taken), the indirect jump, trap return
    // or trap to `target` (End::Addr with B-TYPE; jump_end: the block must end at an
    // uninferable jump), nothing (End::None: I-CNT full or periodic) or leaving traced
    // code (End::Leave). False when the block does not match the code.
    bool walk(uint64_t icnt, uint64_t hist, bool hp, End end, uint64_t target, uint64_t btype, bool jump_end) {
        if (!icnt_ok(icnt)) return false;
        hp = F.htm && hp; // without HTM on_msg took no HIST
        if (hp && hist == 0) return error("HIST without stop bit"), false;
        int64_t budget = s_.budget;
        if (!add_budget(budget, icnt)) return error("I-CNT total beyond 2^63 half-words"), false;
        Pos p{s_.pc, kNoPc, 0, budget};
        if constexpr (F.seq_jump) p.prev = s_.prev.pc;
        // Only a HIST walk (walk_hist) goes ahead of the I-CNT.
        if (F.htm && p.budget < 0)
            return error("I-CNT smaller than the instructions covered by earlier HIST bits"), false;
        if (hp) load_bits(hist, 0);
        const bool strict = hp; // HTM: every direct branch has a HIST bit
        if (p.budget == 0 && end == End::Taken) return error("DirectBranch with I-CNT=0"), false;
        const uint64_t pcmask = mask();
        // The block ends at a trap (evaluated where needed: most blocks never ask).
        auto trap_end = [&] { return end == End::Addr && btype != NT_BTYPE_INDIRECT; };
        ChoiceSet ch;
        rv::Insn in{};
        bool measured = false; // p.pc is in a run of plain instructions plain_run measured
        for (;;) {
            while (p.budget > 0) {
                if constexpr (kRun) {
                    FlowRun r{p.pc, p.budget, p.prev};
                    env_.run(r);
                    p.pc = r.pc, p.budget = r.budget, p.prev = r.last;
                }
                if constexpr (kLimit) {
                    if (env_.at_limit()) return bail(ch, p, "instruction limit reached");
                }
                bool inside;
                if (!lookup(ch, p, in, inside)) {
                    if constexpr (!requires { env_.error("", 0ull); }) return put(p), lose(), false;
                    NT_RETRY_OR_FAIL(inside ? "PC inside an instruction of rewritten code"
                                            : "PC outside the program image");
                }
                if constexpr (kPlainRun && !kRetired) {
                    // Stepping over plain instructions one by one would only move pc
                    // and budget (the default case below).
                    if (!is_plain(in.kind)) {
                        measured = false;
                    } else if (!measured) {
                        measured = true;
                        const int64_t run = int64_t(env_.plain_run(p.pc));
                        if (run && run < p.budget) {
                            p.budget -= run;
                            p.pc = (p.pc + 2 * uint64_t(run)) & pcmask;
                            measured = false;
                            continue;
                        }
                    }
                }
                if constexpr (kRetired) env_.retired(p.pc);
                p.budget -= in.size / 2;
                if (p.budget < 0) NT_RETRY_OR_FAIL("I-CNT ends inside an instruction");
                const bool last = p.budget == 0;
                const uint64_t cur = p.pc, next = (cur + in.size) & pcmask;
                if (last && jump_end) {
                    if (in.kind != rv::Kind::Indirect && in.kind != rv::Kind::TrapReturn &&
                        !(traps(in.kind) && accept_trap_call()))
                        NT_RETRY_OR_FAIL("IndirectBranch block does not end at an uninferable jump");
                    uint64_t t;
                    if (in.kind == rv::Kind::Indirect && seq_target(p.prev, cur, in, t) && t != target)
                        NT_RETRY_OR_FAIL("the jump's target differs from the message's address");
                    // Choosing between versions of rewritten code: a return goes to just
                    // after a call. Not an error otherwise (code may return anywhere).
                    if constexpr (kRewritten) {
                        if (Pos q = p; ch.n && in.pops() && !in.pushes() && !after_call(target) && retry(ch, q)) {
                            p = q;
                            continue;
                        }
                    }
                }
                if (in.kind == rv::Kind::Linear) { // the common case first
                    p.prev = cur, p.pc = next;
                    continue;
                }
                // A sequentially inferable register jump behaves as a direct jump of the
                // same kind, unless the message ends at it with an address: then the
                // encoder chose not to infer it (it may).
                rv::Kind kind = in.kind;
                uint64_t seq = 0;
                if (kind == rv::Kind::Indirect && F.seq_jump && cfg_.seq_jump && !(last && end == End::Addr) &&
                    seq_target(p.prev, cur, in, seq))
                    kind = rv::Kind::DirectJump;
                p.prev = cur;
                // cm.jt/cm.jalt are direct jumps too (N-Trace 1.0 itype table, Zcmt note).
                const bool direct_jump = kind == rv::Kind::DirectJump || kind == rv::Kind::TableJump;
                if (kind != rv::Kind::Branch && last && end == End::Taken && !(all_jumps() && direct_jump))
                    NT_RETRY_OR_FAIL("DirectBranch block does not end with a branch");
                switch (kind) {
                case rv::Kind::Branch: {
                    bool taken;
                    if (have_bits()) taken = take_bit();
                    else if (strict) NT_RETRY_OR_FAIL("direct branch without a HIST bit")
                    else taken = last && end == End::Taken;
                    if (last && end == End::Taken && !taken)
                        NT_RETRY_OR_FAIL("DirectBranch block does not end with a taken branch");
                    // Two calls with constant types: an inlined Env filters them at no cost.
                    if (taken) {
                        p.pc = (cur + uint64_t(int64_t(in.offset))) & pcmask;
                        env_.transfer(cur, p.pc, NT_ITYPE_BRANCH_TAKEN);
                    } else {
                        p.pc = next;
                        env_.transfer(cur, next, NT_ITYPE_BRANCH_NOT_TAKEN);
                    }
                    break;
                }
                case rv::Kind::DirectJump:
                    if (const char *what = jump_bit(strict)) NT_RETRY_OR_FAIL(what);
                    p.pc = take_jump(in, cur, direct_target(in, cur, seq, pcmask));
                    break;
                case rv::Kind::TableJump: {
                    uint64_t t;
                    if (!table_target(in, t)) NT_RETRY_OR_FAIL(kNoTable);
                    if (const char *what = jump_bit(strict)) NT_RETRY_OR_FAIL(what);
                    p.pc = take_jump(in, cur, t);
                    break;
                }
                case rv::Kind::Indirect: {
                    uint64_t t = 0;
                    const bool popped = ir() && in.pops() && pop(t);
                    if (ir() && in.pushes()) push(next);
                    if (popped && (!last || end != End::Addr)) {
                        p.pc = t; // implicit return (9.2)
                        env_.transfer(cur, t, in.itype);
                    } else if (!last) {
                        NT_RETRY_OR_FAIL("uninferable jump inside an I-CNT block");
                    } else if (end == End::Addr && !trap_end()) {
                        env_.transfer(cur, target, in.itype);
                    }
                    // Otherwise the message's address (or nothing, at a stop) gives the
                    // target: pc stays at the jump.
                    break;
                }
                case rv::Kind::TrapReturn: {
                    // A reference-code stream's xRET is a return (see accept_trap_call).
                    uint64_t t = 0;
                    const bool popped = ref_returns() && pop(t);
                    if (popped && (!last || end != End::Addr)) {
                        p.pc = t;
                        env_.transfer(cur, t, NT_ITYPE_TRAP_RETURN);
                        break;
                    }
                    if (!last) NT_RETRY_OR_FAIL("trap return inside an I-CNT block");
                    if (end == End::Addr && !trap_end()) env_.transfer(cur, target, NT_ITYPE_TRAP_RETURN);
                    break;
                }
                case rv::Kind::Trap:
                case rv::Kind::Illegal:
                    if (last && jump_end) {
                        // Accepted above: the reference code's indirect call (it pushes
                        // the return address) to the message's address.
                        if (ir()) push(next);
                        env_.transfer(cur, target, NT_ITYPE_INDIRECT_CALL);
                    } else {
                        p.pc = next;
                    }
                    break;
                default: p.pc = next; break;
                }
            }
            if (have_bits()) NT_RETRY_OR_FAIL("HIST bits left after the I-CNT block");
            break;
        }
        // The versions that explained the block are the ones live now.
        settle(ch);
        put(p);
        switch (end) {
        case End::Addr:
            // "An exception's instruction at epc did not retire; an interrupt is taken
            // before the instruction at epc": the block ends at epc.
            if (trap_end()) env_.trap(p.pc, target, btype == NT_BTYPE_INTERRUPT);
            break;
        case End::Leave:
            env_.leave(p.pc, in.kind == rv::Kind::TrapReturn ? &in : nullptr);
            break;
        default: break;
        }
        return true;
    }

    // ResourceFull with HIST (RCODE 1) or HIST and HREPEAT (RCODE 2): the branches
    // those bits cover, ahead of the I-CNT that will count them (budget goes negative).
    bool walk_hist(uint64_t hist, uint64_t repeat) {
        if (hist == 0 || repeat == 0 || repeat > kMaxRepeat)
            return error("invalid HIST or HREPEAT in ResourceFull"), false;
        load_bits(hist, repeat - 1);
        const uint64_t pcmask = mask();
        Pos p{s_.pc, kNoPc, 0, s_.budget};
        if constexpr (F.seq_jump) p.prev = s_.prev.pc;
        ChoiceSet ch;
        rv::Insn in{};
        while (have_bits()) {
            bool at_limit = false;
            if constexpr (kLimit) at_limit = env_.at_limit();
            if (at_limit || ++p.gap > kMaxHistGap) {
                if (p.gap > kMaxHistGap) NT_RETRY_OR_FAIL("no branch for HIST bits");
                return bail(ch, p, "instruction limit reached");
            }
            bool inside;
            if (!lookup(ch, p, in, inside)) NT_RETRY_OR_FAIL("PC outside the program image");
            if constexpr (kRetired) env_.retired(p.pc);
            p.budget -= in.size / 2;
            const uint64_t cur = p.pc, next = (cur + in.size) & pcmask, prev = p.prev;
            p.prev = cur;
            rv::Kind kind = in.kind;
            uint64_t seq = 0;
            if (kind == rv::Kind::Indirect && F.seq_jump && cfg_.seq_jump && seq_target(prev, cur, in, seq))
                kind = rv::Kind::DirectJump;
            // All-jumps mode: an unconditional jump spends a HIST bit, which must be 1.
            auto jump_bit_ok = [&] {
                if (!all_jumps()) return true;
                p.gap = 0;
                return take_bit();
            };
            switch (kind) {
            case rv::Kind::Branch: {
                p.gap = 0;
                const bool taken = take_bit();
                p.pc = taken ? (cur + uint64_t(int64_t(in.offset))) & pcmask : next;
                env_.transfer(cur, p.pc, taken ? NT_ITYPE_BRANCH_TAKEN : NT_ITYPE_BRANCH_NOT_TAKEN);
                break;
            }
            case rv::Kind::DirectJump:
                if (!jump_bit_ok()) NT_RETRY_OR_FAIL("HIST bit 0 for an unconditional jump");
                p.pc = take_jump(in, cur, direct_target(in, cur, seq, pcmask));
                break;
            case rv::Kind::TableJump: {
                uint64_t t;
                if (!table_target(in, t)) NT_RETRY_OR_FAIL(kNoTable);
                if (!jump_bit_ok()) NT_RETRY_OR_FAIL("HIST bit 0 for an unconditional jump");
                p.pc = take_jump(in, cur, t);
                break;
            }
            case rv::Kind::Indirect: {
                uint64_t t;
                if (!(ir() && in.pops() && pop(t))) NT_RETRY_OR_FAIL("uninferable jump inside a HIST block");
                if (in.pushes()) push(next);
                p.pc = t;
                env_.transfer(cur, t, in.itype);
                break;
            }
            case rv::Kind::TrapReturn: {
                uint64_t t;
                if (!(ref_returns() && pop(t))) NT_RETRY_OR_FAIL("trap return inside a HIST block");
                p.pc = t;
                env_.transfer(cur, t, NT_ITYPE_TRAP_RETURN);
                break;
            }
            default: p.pc = next; break;
            }
        }
#undef NT_RETRY_OR_FAIL
        settle(ch);
        put(p);
        return true;
    }

    const FlowConfig &cfg_;
    Env &env_;
    State &s_;
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
        // To the first MSEO with bit 1 set: end of message (11) or reserved (10). A
        // pointer walk, one test per byte: the firmware's CTR feed splits every
        // message of every recording read (firmware/ctr/README.md, "Cost").
        const size_t start = i;
        const uint8_t *p = bytes + i, *const stop = bytes + n;
        while (p != stop && !(*p & 2)) p++;
        size_t j = size_t(p - bytes);
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
