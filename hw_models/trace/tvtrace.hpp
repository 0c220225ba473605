// SPDX-License-Identifier: BSD-2-Clause
// Tandem-verification trace protocol (Bluespec "Trace Protocol Specification" 2018-11-20):
// byte stream of opcodes with little-endian payloads, a text dump in the style of the
// spec's Appendix C tables, and a streaming tandem comparer that compares the state
// changes of every record (group) of two traces, both ways, and reports the first
// divergence with its record, pc and context (3.1, 3.2). The producer of such traces
// from QEMU is the tvtrace plugin (tests/qemu/plugin/tvtrace.c).
#pragma once
#include <cstdint>
#include <cstdio>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <vector>

namespace tv {

enum Op : uint8_t {
    BeginGroup = 1,
    EndGroup = 2,
    IncPc = 3,
    FullReg = 4,
    IncRegAdd = 5,
    IncRegOr = 6,
    State = 7,
    MemReq = 8,
    MemRsp = 9,
    Reset = 10,
    StateInit = 11,
    Instr16 = 16,
    Instr32 = 17,
};

// Additional state identifiers (opcode 7).
enum StateId : uint8_t {
    Priv = 1,
    PAddr = 2,
    EAddr = 3,
    StoreData8 = 4,
    StoreData16 = 5,
    StoreData32 = 6,
    StoreData64 = 7,
    MTime = 8,
    PcPAddr = 9,
    Pc = 10,
    // Appendix C encodes the pc identifier as 0x10 in all its examples while the table
    // says 10; the decoder accepts both and the encoder writes 0x10 like the examples.
    PcAppendixC = 0x10,
};

enum MemOpKind : uint8_t { Load = 0, Store = 1, Lr = 2, Sc = 3, AmoFirst = 4, AmoLast = 12, Fetch = 13 };

struct Params {
    unsigned xlen = 64, flen = 64, mlen = 64; // mlen rounded up to a multiple of 8
};

// Register address space of the Debug specification: CSRs 0x0000-0x0FFF, GPRs
// 0x1000-0x101F, FPRs 0x1020-0x103F.
constexpr bool is_fpr(uint16_t a) { return a >= 0x1020 && a <= 0x103F; }

struct Item {
    uint8_t op = 0;
    uint64_t offset = 0;     // byte offset of the opcode
    uint16_t reg = 0;        // FullReg, IncReg*
    uint8_t id = 0;          // State
    uint8_t mem_op = 0, mem_size = 0, mem_result = 0;
    uint64_t value = 0;      // register data, increment/mask, state data, instruction
    uint64_t addr = 0;       // MemReq
    uint64_t data = 0;       // MemReq/MemRsp data
    bool has_data = false;
    unsigned length = 0;     // bytes including the opcode
};

enum class Err : uint8_t { None, UnknownOpcode, Truncated, UnknownStateId, BadMemSize, OrphanResponse, GroupTooLong, ReadError };
const char *err_name(Err e);

// Decodes one item at offset; returns Err::None and the item. prev_req is the last
// memory request (a response's data length depends on it).
Err decode_item(const Params &p, std::span<const uint8_t> b, size_t off, const Item *prev_req, Item &it);
// Decodes a whole stream; stops at the first error (returned with its offset).
Err decode_all(const Params &p, std::span<const uint8_t> b, std::vector<Item> &out, size_t &err_off);

void encode_item(const Params &p, const Item &it, std::vector<uint8_t> &out);

// Text: one line per item, bytes then meaning (Appendix C style).
std::string dump_item(const Params &p, std::span<const uint8_t> b, const Item &it);
std::string reg_name(uint16_t a);

// Shadow state (3.1): registers, additional state, memory bytes and pc.
struct Shadow {
    std::map<uint16_t, uint64_t> regs;
    std::map<uint8_t, uint64_t> state;
    std::map<uint64_t, uint8_t> mem;
    uint64_t pc = 0;
    bool pc_known = false;
    void apply(const Params &p, const Item &it, const Item *req);
};

// ---- Streaming (bounded memory on any length) ----------------------------------------

// Bytes of a trace, read in pieces.
struct Source {
    virtual ~Source() = default;
    virtual size_t read(uint8_t *dst, size_t n) = 0; // 0 at the end
    virtual size_t size_hint() const { return SIZE_MAX; } // bytes left, if known
};
struct FileSource final : Source {
    std::FILE *f;
    explicit FileSource(std::FILE *file) : f(file) {}
    size_t read(uint8_t *dst, size_t n) override;
};
struct SpanSource final : Source {
    std::span<const uint8_t> b;
    size_t pos = 0;
    explicit SpanSource(std::span<const uint8_t> bytes) : b(bytes) {}
    size_t read(uint8_t *dst, size_t n) override;
    size_t size_hint() const override { return b.size() - pos; }
};

// Items decoded through a fixed buffer.
class ItemStream {
public:
    ItemStream(const Params &p, Source &s, size_t buffer = 1 << 20);
    bool next(Item &it); // false at the end or on an error (err())
    Err err() const { return err_; }
    uint64_t err_offset() const { return err_off_; }

private:
    const Params p_;
    Source &src_;
    std::vector<uint8_t> buf_;
    size_t lo_ = 0, hi_ = 0;
    uint64_t base_ = 0; // stream offset of buf_[0]
    bool eof_ = false;
    Item req_;          // the last item, when it was a memory request
    bool have_req_ = false;
    Err err_ = Err::None;
    uint64_t err_off_ = 0;
};

// A record is one group (begin group .. end group, or up to the next begin group) or
// one item outside any group: one retired instruction or trap in a tandem trace. Its
// fields are the state it leaves, sorted by key: the next pc first, then the
// instruction, registers (their value after the record, incremental forms applied),
// additional state, memory requests and responses, reset and state initialisation.
enum FieldKind : uint8_t { FNextPc = 1, FInsn, FReg, FState, FMemReq, FMemRsp, FReset, FStateInit };
constexpr uint32_t field_key(FieldKind k, uint32_t sub) { return uint32_t(k) << 24 | sub; }
struct Field {
    uint32_t key;
    uint64_t value;
};
struct Record {
    uint64_t index = 0, offset = 0; // 0-based record number, byte offset of its first item
    uint64_t pc = 0;                // pc before the record (where its instruction is)
    bool pc_known = false;
    std::vector<Field> fields;
};
std::string field_name(uint32_t key);
std::string field_value(uint32_t key, uint64_t value);
std::string record_text(const Record &r); // one line: pc, instruction, fields, next pc

class RecordStream {
public:
    RecordStream(const Params &p, Source &s);
    bool next(Record &r); // false at the end or on an error
    Err err() const { return err_ != Err::None ? err_ : items_.err(); }
    uint64_t err_offset() const { return err_ != Err::None ? err_off_ : items_.err_offset(); }

private:
    ItemStream items_;
    Item la_;
    bool have_la_ = false;
    // The 16-bit register space, for the incremental forms: values (not initialised,
    // so untouched pages cost nothing) and a bit per register written so far.
    std::unique_ptr<uint64_t[]> regs_;
    std::vector<bool> reg_known_;
    uint64_t pc_ = 0, index_ = 0;
    bool pc_known_ = false;
    Err err_ = Err::None;
    uint64_t err_off_ = 0;
};

// Result of a tandem comparison of two streams (3.1: the state changes of each
// record, both ways, so a change only one side made is found too).
struct Divergence {
    bool found = false;
    uint64_t group = 0;                  // record index of the first divergence (0-based)
    uint64_t records = 0;                // records compared (when equal: all of them)
    uint64_t pc = 0;                     // pc of that record (trace A's)
    bool pc_known = false;
    uint64_t offset_a = 0, offset_b = 0; // byte offsets of the records
    std::string element, value_a, value_b;
    std::vector<std::string> context;    // the records around it, both traces
    Err err = Err::None;                 // a malformed trace: which (1, 2) and where
    int err_trace = 0;
    uint64_t err_offset = 0;
};

// Streams both traces record by record in bounded memory (a buffer and a few records of
// context each). With partial (3.2), an element one trace has never reported so far is
// absent from it, not different. max_records != 0 compares only the first so many
// records (the end of a QEMU run is not deterministic: the hart runs on for a while
// after it asked for the power-off).
Divergence compare_streams(const Params &p, Source &a, Source &b, bool partial, unsigned context = 3,
                           uint64_t max_records = 0);
// The same over decoded items (tests).
Divergence compare(const Params &p, const std::vector<Item> &a, const std::vector<Item> &b, bool partial);

// CLI entry: tsbi-trace tv dump|compare ...
int cli_main(const std::vector<std::string> &pos, const std::vector<std::pair<std::string, std::string>> &opts);

} // namespace tv
