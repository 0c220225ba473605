// SPDX-License-Identifier: BSD-2-Clause
// Tandem-verification trace protocol: Appendix C examples byte for byte, the comparer.
#include <doctest/doctest.h>

#include "tvtrace.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <cstdio>

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

namespace {
// Hands out its bytes a few at a time: items cross every buffer refill.
struct Trickle final : Source {
    std::span<const uint8_t> b;
    size_t pos = 0, step;
    Trickle(std::span<const uint8_t> bytes, size_t n) : b(bytes), step(n) {}
    size_t read(uint8_t *dst, size_t n) override {
        const size_t k = std::min({n, step, b.size() - pos});
        std::copy(b.begin() + long(pos), b.begin() + long(pos + k), dst);
        pos += k;
        return k;
    }
};
Bytes fixed_c5() {
    Bytes b = c5_printed;
    b[2] = 0x11;
    return b;
}
const Bytes all_c = cat(cat(cat(cat(cat(cat(cat(c1, c2), c3), c4), fixed_c5()), c6), c7), c8);

// The pc after record i of synth(): every 7th record jumps to 0x90000000 + 16 i.
uint64_t synth_pc_after(uint64_t i) {
    const uint64_t m = i - i % 7;
    return (m ? 0x90000000 + 16 * m : 0x80000000) + 4 * (i - m);
}
// Synthetic tandem trace of n records, written as the plugin writes them: a reset
// group, then per instruction the pc (increment, or a new pc every 7th), the
// instruction, a GPR, a load/store address and store data every 5th. With bad != 0,
// record `bad` writes x5 one higher.
void synth(std::FILE *f, uint64_t n, uint64_t bad) {
    std::vector<uint8_t> o;
    auto put = [&](Item it) { encode_item(rv64, it, o); };
    Item b{}, e{};
    b.op = BeginGroup, e.op = EndGroup;
    put(b);
    Item r{};
    r.op = Reset;
    put(r);
    Item pc{};
    pc.op = State, pc.id = PcAppendixC, pc.value = 0x80000000;
    put(pc);
    put(e);
    for (uint64_t i = 1; i < n; i++) {
        put(b);
        Item step{};
        if (i % 7 == 0) step.op = State, step.id = PcAppendixC, step.value = synth_pc_after(i);
        else step.op = IncPc;
        put(step);
        Item in{};
        in.op = Instr32, in.value = 0x00000293 | uint32_t(i & 0x7ff) << 20; // addi x5, x0, i
        put(in);
        Item g{};
        g.op = FullReg, g.reg = 0x1005, g.value = (i & 0x7ff) + (i == bad);
        put(g);
        if (i % 5 == 0) {
            Item pa{};
            pa.op = State, pa.id = PAddr, pa.value = 0x80100000 + 8 * (i % 1024);
            put(pa);
            Item sd{};
            sd.op = State, sd.id = StoreData64, sd.value = i;
            put(sd);
        }
        put(e);
        if (o.size() > (1 << 16)) fwrite(o.data(), 1, o.size(), f), o.clear();
    }
    fwrite(o.data(), 1, o.size(), f);
    rewind(f);
}
long max_rss_kb() {
    struct rusage u {};
    getrusage(RUSAGE_SELF, &u);
    return u.ru_maxrss;
}
} // namespace

TEST_CASE("tv stream: items cut by the buffer decode as decode_all does") {
    std::vector<Item> whole;
    size_t off;
    REQUIRE(decode_all(rv64, all_c, whole, off) == Err::None);
    for (size_t step : {1, 3, 17}) {
        Trickle t(all_c, step);
        ItemStream s(rv64, t, 64); // smaller than a few items: refills inside items
        std::vector<Item> got;
        Item it;
        while (s.next(it)) got.push_back(it);
        CHECK(s.err() == Err::None);
        REQUIRE(got.size() == whole.size());
        for (size_t i = 0; i < got.size(); i++) {
            CHECK(got[i].offset == whole[i].offset);
            CHECK(got[i].value == whole[i].value);
        }
    }
    Bytes cut(all_c.begin(), all_c.end() - 3);
    SpanSource sc(cut);
    ItemStream s(rv64, sc);
    Item it;
    while (s.next(it)) {
    }
    CHECK(s.err() == Err::Truncated);
}

TEST_CASE("tv stream: records of Appendix C, pc followed through increments and new pcs") {
    SpanSource src(all_c);
    RecordStream rs(rv64, src);
    std::vector<Record> v;
    Record r;
    while (rs.next(r)) v.push_back(r);
    CHECK(rs.err() == Err::None);
    REQUIRE(v.size() == 8);
    CHECK_FALSE(v[0].pc_known); // C.1 increments an unknown pc
    CHECK(v[1].fields[0].key == field_key(FNextPc, 0));
    CHECK(v[1].fields[0].value == 0x0c000100); // C.2 jr: new pc
    CHECK(v[2].pc == 0x0c000100);
    CHECK(v[3].pc == 0x0c000104);               // C.3 is 4 bytes
    CHECK(v[4].pc == 0x0c000106);               // C.4 is 2 bytes
    CHECK(record_text(v[4]).find("physical address=0x1000008") != std::string::npos);
    CHECK(record_text(v[5]).find("csr 0x304=0x880") != std::string::npos);
    CHECK(record_text(v[6]).find("instruction=0x00000000 csr 0x300=0xa000018b0") != std::string::npos);
    CHECK(record_text(v[7]).find("privilege mode=0x3 -> 0x10000") != std::string::npos);
    SpanSource a(all_c), b(all_c);
    Divergence d = compare_streams(rv64, a, b, false);
    CHECK_FALSE(d.found);
    CHECK(d.records == 8);
}

TEST_CASE("tv compare: a state change only one trace made, a shorter trace, a wrong pc") {
    // C.6 without its mie write: the write B lacks is a divergence (3.1: erroneous
    // changes count, not only those expected).
    Bytes no_mie(c6.begin(), c6.begin() + 18);
    no_mie.push_back(0x02);
    SpanSource a(c6), b(no_mie);
    Divergence d = compare_streams(rv64, a, b, false);
    REQUIRE(d.found);
    CHECK(d.element == "csr 0x304");
    CHECK(d.value_a == "0x880");
    CHECK(d.value_b == "absent");
    const Bytes c12 = cat(c1, c2), c21 = cat(c2, c1);
    SpanSource a2(c12), b2(c1);
    d = compare_streams(rv64, a2, b2, false);
    REQUIRE(d.found);
    CHECK(d.group == 1);
    CHECK(d.element == "end of trace");
    CHECK(d.value_a == "record");
    CHECK(d.value_b == "end");
    Bytes far = c21;
    far[6] = 0x0d; // C.2 jumps elsewhere: C.1 then runs at another pc
    SpanSource a3(c21), b3(far);
    d = compare_streams(rv64, a3, b3, false);
    REQUIRE(d.found);
    CHECK(d.group == 0);
    CHECK(d.element == "next pc");
    CHECK(d.value_a == "0xc000100");
    CHECK(d.value_b == "0xd000100");
    REQUIRE(d.context.size() == 4); // a and b of the record and of the one after
    CHECK(d.context[0].rfind("  a #0 pc ?:", 0) == 0);
    CHECK(d.context[3].find("#1 pc 0xd000100") != std::string::npos);
}

TEST_CASE("tv compare: a long stream in bounded memory, the divergence at its record") {
    const uint64_t n = 1000000, bad = 876543;
    std::FILE *a = std::tmpfile(), *b = std::tmpfile(), *c = std::tmpfile();
    REQUIRE((a && b && c));
    synth(a, n, 0);
    synth(b, n, 0);
    synth(c, n, bad);
    fseek(a, 0, SEEK_END);
    const long bytes = ftell(a);
    rewind(a);
    const long rss0 = max_rss_kb();
    FileSource sa(a), sb(b);
    Divergence d = compare_streams(rv64, sa, sb, false);
    CHECK_FALSE(d.found);
    CHECK(d.records == n);
    rewind(a);
    FileSource sa2(a), sc(c);
    d = compare_streams(rv64, sa2, sc, false);
    REQUIRE(d.found);
    CHECK(d.group == bad);
    CHECK(d.pc == synth_pc_after(bad - 1));
    CHECK(d.pc_known);
    CHECK(d.element == "x5");
    CHECK(d.value_a == "0x7ff"); // bad & 0x7ff
    CHECK(d.value_b == "0x800");
    // Two streams of `bytes` each went through; the peak grew by less than one of them.
    const long grew_kb = max_rss_kb() - rss0;
    INFO("trace bytes ", bytes, ", peak RSS grew by ", grew_kb, " KiB");
    CHECK(bytes > 20 * 1000 * 1000);
    CHECK(grew_kb < 8 * 1024);
    std::fclose(a), std::fclose(b), std::fclose(c);
}
