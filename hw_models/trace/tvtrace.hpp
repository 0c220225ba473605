// SPDX-License-Identifier: BSD-2-Clause
// Tandem-verification trace protocol (Bluespec "Trace Protocol Specification" 2018-11-20):
// byte stream of opcodes with little-endian payloads, a text dump in the style of the
// spec's Appendix C tables, and a tandem comparer that applies every group to a shadow
// state and reports the first divergence between two traces (3.1, 3.2).
#pragma once
#include <cstdint>
#include <map>
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

enum class Err : uint8_t { None, UnknownOpcode, Truncated, UnknownStateId, BadMemSize, OrphanResponse };
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

struct Divergence {
    bool found = false;
    uint64_t group = 0;          // 0-based group index
    uint64_t offset_a = 0, offset_b = 0; // byte offsets of the groups
    std::string element, value_a, value_b;
};

// Compares two traces group by group. With partial (3.2), elements that one trace
// never reports are treated as absent and not compared.
Divergence compare(const Params &p, const std::vector<Item> &a, const std::vector<Item> &b, bool partial);

// CLI entry: tsbi-trace tv dump|compare ...
int cli_main(const std::vector<std::string> &pos, const std::vector<std::pair<std::string, std::string>> &opts);

} // namespace tv
