// SPDX-License-Identifier: BSD-2-Clause
// Tandem-verification trace protocol: Appendix C examples byte for byte, the comparer.
#include <doctest/doctest.h>

#include "tvtrace.hpp"

using namespace tv;
using Bytes = std::vector<uint8_t>;

namespace {
const Params rv64{64, 64, 64}; // rv64gc + Sv48: XLEN=FLEN=MLEN=64 (Appendix C)
std::vector<Item> decode(const Bytes &b) {
    std::vector<Item> v;
    size_t off = 0;
    REQUIRE(decode_all(rv64, b, v, off) == Err::None);
    Bytes again;
    for (const Item &it : v) encode_item(rv64, it, again);
    CHECK(again == b); // byte for byte
    return v;
}
const Bytes c1{0x01, 0x03, 0x11, 0xb3, 0x81, 0x62, 0x00, 0x04, 0x03, 0x10, 0x34, 0x12, 0, 0, 0, 0, 0, 0, 0x02};
const Bytes c2{0x01, 0x07, 0x10, 0x00, 0x01, 0x00, 0x0c, 0, 0, 0, 0, 0x11, 0x67, 0x00, 0x01, 0x10, 0x02};
const Bytes c3{0x01, 0x03, 0x11, 0xd3, 0xf3, 0x16, 0x01, 0x04, 0x27, 0x10, 0xf9, 0xf4, 0xfe, 0x66,
               0xff, 0xff, 0xff, 0xff, 0x06, 0x03, 0x00, 0x01, 0x02};
const Bytes c4{0x01, 0x03, 0x10, 0x0d, 0x8d, 0x04, 0x10, 0x10, 0x78, 0x56, 0x34, 0x12, 0xff, 0xff, 0xff, 0xff, 0x02};
// C.5 as printed uses opcode 0x10 (16-bit instruction) with a 4-byte lw opcode.
const Bytes c5_printed{0x01, 0x03, 0x10, 0x03, 0xa2, 0x82, 0x00, 0x04, 0x04, 0x10, 0xaa, 0x55, 0xaa, 0x55,
                       0xaa, 0x55, 0xaa, 0x55, 0x07, 0x02, 0x08, 0x00, 0x00, 0x01, 0, 0, 0, 0, 0x02};
const Bytes c6{0x01, 0x03, 0x11, 0xf3, 0xb4, 0x45, 0x30, 0x04, 0x09, 0x10, 0x88, 0x08, 0, 0, 0, 0, 0, 0,
               0x04, 0x04, 0x03, 0x80, 0x08, 0, 0, 0, 0, 0, 0, 0x02};
Bytes trap_tail(uint8_t cause_lo, uint8_t cause_hi, uint8_t epc0) {
    return {0x04, 0x41, 0x03, epc0, 0x12, 0x08, 0, 0, 0, 0, 0,
            0x04, 0x42, 0x03, cause_lo, 0, 0, 0, 0, 0, 0, cause_hi,
            0x04, 0x00, 0x03, 0xb0, 0x18, 0x00, 0x00, 0x0a, 0x00, 0x00, 0x00,
            0x04, 0x43, 0x03, 0, 0, 0, 0, 0, 0, 0, 0,
            0x07, 0x01, 0x03, 0x02};
}
Bytes cat(Bytes a, const Bytes &b) {
    a.insert(a.end(), b.begin(), b.end());
    return a;
}
const Bytes c7 = cat({0x01, 0x07, 0x10, 0x00, 0x00, 0x01, 0, 0, 0, 0, 0, 0x11, 0, 0, 0, 0}, trap_tail(0x02, 0x00, 0x34));
const Bytes c8 = cat({0x01, 0x07, 0x10, 0x00, 0x00, 0x01, 0, 0, 0, 0, 0}, trap_tail(0x03, 0x80, 0x56));
} // namespace

TEST_CASE("tv appendix C.1 add gp, t0, t1") {
    auto v = decode(c1);
    REQUIRE(v.size() == 5);
    CHECK(v[1].op == IncPc);
    CHECK(v[2].op == Instr32);
    CHECK(v[2].value == 0x006281b3);
    CHECK(v[3].reg == 0x1003);
    CHECK(v[3].value == 0x1234);
    CHECK(reg_name(v[3].reg) == "x3");
    CHECK(dump_item(rv64, c1, v[3]).find("full register x3 = 0x1234") != std::string::npos);
}

TEST_CASE("tv appendix C.2 jr 256(sp): pc as additional state") {
    auto v = decode(c2);
    REQUIRE(v.size() == 4);
    CHECK(v[1].op == State);
    CHECK((v[1].id == PcAppendixC));
    CHECK(v[1].value == 0x0c000100);
    CHECK(v[2].value == 0x10010067);
    Shadow s;
    for (auto &it : v) s.apply(rv64, it, nullptr);
    CHECK(s.pc_known);
    CHECK(s.pc == 0x0c000100);
}

TEST_CASE("tv appendix C.3 fadd.s: FLEN register and OR increment of fcsr") {
    auto v = decode(c3);
    REQUIRE(v.size() == 6);
    CHECK(v[3].reg == 0x1027);
    CHECK(v[3].value == 0xffffffff66fef4f9ull);
    CHECK(v[4].op == IncRegOr);
    CHECK(v[4].reg == 0x0003);
    CHECK(v[4].value == 1);
}

TEST_CASE("tv appendix C.4 c.sub a0, a1: 16-bit instruction") {
    auto v = decode(c4);
    REQUIRE(v.size() == 5);
    CHECK(v[2].op == Instr16);
    CHECK(v[2].value == 0x8d0d);
    CHECK(v[3].reg == 0x1010); // printed "10 10" for a0: see the comparer test
    CHECK(v[3].value == 0xffffffff12345678ull);
}

TEST_CASE("tv appendix C.5 lw: printed opcode 0x10 is inconsistent, 0x11 decodes") {
    std::vector<Item> v;
    size_t off = 0;
    CHECK(decode_all(rv64, c5_printed, v, off) == Err::UnknownOpcode);
    CHECK(off == 5); // "82" after a 2-byte instruction is not an opcode
    Bytes fixed = c5_printed;
    fixed[2] = 0x11;
    v = decode(fixed);
    REQUIRE(v.size() == 6);
    CHECK(v[2].value == 0x0082a203);
    CHECK(v[3].value == 0x55aa55aa55aa55aaull);
    CHECK(v[4].id == PAddr);
    CHECK(v[4].value == 0x01000008);
}

TEST_CASE("tv appendix C.6 csrrc s1, mie, a1") {
    auto v = decode(c6);
    REQUIRE(v.size() == 6);
    CHECK(v[3].reg == 0x1009);
    CHECK(v[3].value == 0x888);
    CHECK(v[4].reg == 0x0304);
    CHECK(reg_name(v[4].reg) == "csr 0x304");
    CHECK(v[4].value == 0x880);
}

TEST_CASE("tv appendix C.7 illegal instruction and C.8 interrupt") {
    auto v = decode(c7);
    REQUIRE(v.size() == 9);
    CHECK(v[2].op == Instr32);
    CHECK(v[2].value == 0);
    CHECK(v[3].reg == 0x0341);
    CHECK(v[3].value == 0x81234);
    CHECK(v[4].value == 2);
    CHECK(v[5].value == 0xa000018b0ull);
    CHECK(v[7].id == Priv);
    CHECK(v[7].value == 3);
    auto w = decode(c8);
    REQUIRE(w.size() == 8);
    CHECK(w[2].value == 0x81256);
    CHECK(w[3].value == 0x8000000000000003ull);
}

TEST_CASE("tv memory request/response, reset and state initialisation round trip") {
    std::vector<Item> items;
    Item b;
    b.op = BeginGroup;
    items.push_back(b);
    Item r;
    r.op = MemReq, r.addr = 0x80001000, r.mem_op = Store, r.mem_size = 3, r.data = 0x1122334455667788, r.has_data = true;
    items.push_back(r);
    Item s;
    s.op = MemRsp, s.mem_size = 3, s.mem_result = 0, s.mem_op = Store;
    items.push_back(s);
    Item l = r;
    l.mem_op = Load, l.has_data = false, l.data = 0;
    items.push_back(l);
    Item lr;
    lr.op = MemRsp, lr.mem_size = 3, lr.mem_op = Load, lr.data = 0xdeadbeef, lr.has_data = true;
    items.push_back(lr);
    for (uint8_t op : {Reset, StateInit, EndGroup}) {
        Item x;
        x.op = op;
        items.push_back(x);
    }
    Bytes bytes;
    for (auto &it : items) encode_item(rv64, it, bytes);
    CHECK(bytes.size() == 1 + (1 + 8 + 1 + 8) + 2 + (1 + 8 + 1) + (1 + 1 + 8) + 3);
    std::vector<Item> back;
    size_t off;
    REQUIRE(decode_all(rv64, bytes, back, off) == Err::None);
    REQUIRE(back.size() == items.size());
    CHECK(back[1].data == 0x1122334455667788);
    CHECK(back[4].data == 0xdeadbeef);
    CHECK_FALSE(back[2].has_data);
    // Truncated and unknown inputs are errors with offsets.
    Bytes t(bytes.begin(), bytes.begin() + 5);
    back.clear();
    CHECK(decode_all(rv64, t, back, off) == Err::Truncated);
    CHECK(off == 1);
    Bytes u{0x01, 0x0C};
    back.clear();
    CHECK(decode_all(rv64, u, back, off) == Err::UnknownOpcode);
    Bytes orphan{0x09, 0x00};
    back.clear();
    CHECK(decode_all(rv64, orphan, back, off) == Err::OrphanResponse);
}

TEST_CASE("tv comparer finds the first divergence and honours partial trace") {
    const Bytes a = cat(cat(c1, c4), c6);
    Bytes b = a;
    // Change the a0 value written by C.4 (second group).
    b[c1.size() + 8] = 0x79;
    std::vector<Item> ia, ib;
    size_t off;
    REQUIRE(decode_all(rv64, a, ia, off) == Err::None);
    REQUIRE(decode_all(rv64, b, ib, off) == Err::None);
    CHECK_FALSE(compare(rv64, ia, ia, false).found);
    Divergence d = compare(rv64, ia, ib, false);
    REQUIRE(d.found);
    CHECK(d.group == 1);
    // C.4 prints a0 (x10) as "10 10", i.e. address 0x1010, which the Debug
    // specification's numbering (GPRs at 0x1000 + n) names x16.
    CHECK(d.element == "x16");
    CHECK(d.offset_a == c1.size());
    CHECK(d.value_a == "0xffffffff12345678");
    CHECK(d.value_b == "0xffffffff12345679");
    // A trace without physical addresses (partial) against one with them.
    Bytes fixed5 = c5_printed;
    fixed5[2] = 0x11;
    Bytes no_paddr(fixed5.begin(), fixed5.end() - 11);
    no_paddr.push_back(0x02);
    std::vector<Item> full, part;
    REQUIRE(decode_all(rv64, fixed5, full, off) == Err::None);
    REQUIRE(decode_all(rv64, no_paddr, part, off) == Err::None);
    CHECK(compare(rv64, full, part, false).found);
    CHECK(compare(rv64, full, part, false).element == "physical address");
    CHECK_FALSE(compare(rv64, full, part, true).found);
}
