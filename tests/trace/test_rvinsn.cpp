// SPDX-License-Identifier: BSD-2-Clause
// RISC-V classifier against the N-Trace "Generating itype" table. Encodings were produced
// with GNU as (rv64gc / rv32gc); Zcmp/Zcmt ones are hand-assembled from the Zc spec.
#include <doctest/doctest.h>

#include <initializer_list>

#include "rvinsn.hpp"

using rv::Kind;

namespace {
struct Row {
    uint32_t bits;
    Kind kind;
    unsigned itype;
    int32_t offset;
    unsigned size;
};
void check(const Row &r, const rv::Options &o) {
    CAPTURE(r.bits);
    const rv::Insn in = rv::classify(r.bits, o);
    CHECK(in.size == r.size);
    CHECK(in.kind == r.kind);
    CHECK(unsigned(in.itype) == r.itype);
    if (r.kind == Kind::Branch || r.kind == Kind::DirectJump) CHECK(in.offset == r.offset);
}
} // namespace

TEST_CASE("rv classifier: 32-bit jumps, branches and system instructions (Table 2)") {
    const Row rows[] = {
        {0x008000ef, Kind::DirectJump, 9, 8, 4},     // jal ra: direct call
        {0xffdff06f, Kind::DirectJump, 11, -4, 4},   // jal zero: direct jump
        {0x010002ef, Kind::DirectJump, 9, 16, 4},    // jal t0 (x5 is link): call
        {0x001001ef, Kind::DirectJump, 15, 0x800, 4}, // jal gp: other direct jump with link
        {0x00008067, Kind::Indirect, 13, 0, 4},      // jalr zero, ra: return
        {0x000300e7, Kind::Indirect, 8, 0, 4},       // jalr ra, t1: indirect call
        {0x000080e7, Kind::Indirect, 8, 0, 4},       // jalr ra, ra: rd = rs = link: call
        {0x000280e7, Kind::Indirect, 12, 0, 4},      // jalr ra, t0: co-routine swap
        {0x000082e7, Kind::Indirect, 12, 0, 4},      // jalr t0, ra: co-routine swap
        {0x00078067, Kind::Indirect, 10, 0, 4},      // jalr zero, a5: indirect jump
        {0x000781e7, Kind::Indirect, 14, 0, 4},      // jalr gp, a5: other indirect jump
        {0x000081e7, Kind::Indirect, 13, 0, 4},      // jalr gp, ra: return (rs = link)
        {0xfe041ce3, Kind::Branch, 4, -8, 4},        // bne
        {0x7eb57fe3, Kind::Branch, 4, 4094, 4},      // bgeu, largest forward offset
        {0x00000073, Kind::Trap, 0, 0, 4},           // ecall
        {0x00100073, Kind::Trap, 0, 0, 4},           // ebreak
        {0x30200073, Kind::TrapReturn, 3, 0, 4},     // mret
        {0x10200073, Kind::TrapReturn, 3, 0, 4},     // sret
        {0x10500073, Kind::Linear, 0, 0, 4},         // wfi
        {0x00c58533, Kind::Linear, 0, 0, 4},         // add
    };
    for (unsigned xlen : {32u, 64u})
        for (const Row &r : rows) check(r, {xlen, false, false});
}

TEST_CASE("rv classifier: compressed instructions, RV32 c.jal vs RV64 c.addiw") {
    const Row rows[] = {
        {0xb009, Kind::DirectJump, 11, -2046, 2}, // c.j
        {0x8082, Kind::Indirect, 13, 0, 2},       // c.jr ra: return
        {0x8782, Kind::Indirect, 10, 0, 2},       // c.jr a5
        {0x9282, Kind::Indirect, 12, 0, 2},       // c.jalr t0: co-routine swap
        {0x9702, Kind::Indirect, 8, 0, 2},        // c.jalr a4: indirect call
        {0xd081, Kind::Branch, 4, -256, 2},       // c.beqz
        {0xeffd, Kind::Branch, 4, 254, 2},        // c.bnez
        {0x9002, Kind::Trap, 0, 0, 2},            // c.ebreak
        {0x0001, Kind::Linear, 0, 0, 2},          // c.nop
        {0x0505, Kind::Linear, 0, 0, 2},          // c.addi
        {0x0000, Kind::Illegal, 0, 0, 2},         // defined illegal instruction
    };
    for (const Row &r : rows) check(r, {64, false, false});
    check({0x2095, Kind::DirectJump, 9, 100, 2}, {32, false, false});   // c.jal (RV32)
    check({0x3001, Kind::DirectJump, 9, -2048, 2}, {32, false, false}); // c.jal backwards
    check({0x2095, Kind::Linear, 0, 0, 2}, {64, false, false});         // c.addiw on RV64
}

TEST_CASE("rv classifier: Zcmp cm.popret/popretz return, Zcmt cm.jt/cm.jalt table jumps") {
    const rv::Options z{64, true, true};
    check({0xBE42, Kind::Indirect, 13, 0, 2}, z); // cm.popret {ra}, 16
    check({0xBC42, Kind::Indirect, 13, 0, 2}, z); // cm.popretz {ra}, 16
    check({0xB842, Kind::Linear, 0, 0, 2}, z);    // cm.push
    check({0xBA42, Kind::Linear, 0, 0, 2}, z);    // cm.pop
    check({0xAC62, Kind::Linear, 0, 0, 2}, z);    // cm.mva01s
    rv::Insn jt = rv::classify(0xA016, z);        // cm.jt 5
    CHECK(jt.kind == Kind::TableJump);
    CHECK(jt.itype == 11);
    CHECK(jt.table_index() == 5);
    rv::Insn jalt = rv::classify(0xA0A2, z); // cm.jalt 40
    CHECK(jalt.kind == Kind::TableJump);
    CHECK(jalt.itype == 9);
    CHECK(jalt.table_index() == 40);
    CHECK(jalt.pushes());
    // Without Zcmp/Zcmt the same encodings are c.fsdsp: linear.
    CHECK(rv::classify(0xBE42, {64, false, false}).kind == Kind::Linear);
    CHECK(rv::classify(0xA016, {64, false, false}).kind == Kind::Linear);
}

TEST_CASE("rv instruction length encoding and 3-bit itype mapping") {
    CHECK(rv::insn_length(0x0001) == 2);
    CHECK(rv::insn_length(0x0013) == 4);
    CHECK(rv::insn_length(0x001F) == 6);
    CHECK(rv::insn_length(0x003F) == 8);
    for (unsigned i : {8u, 10u, 12u, 13u, 14u}) CHECK(rv::itype3(uint8_t(i)) == 6);
    for (unsigned i : {9u, 11u, 15u}) CHECK(rv::itype3(uint8_t(i)) == 0);
    for (unsigned i : {0u, 1u, 2u, 3u, 4u, 5u}) CHECK(rv::itype3(uint8_t(i)) == i);
}

TEST_CASE("rv classifier: constant loads and jump registers (sequential jumps)") {
    const rv::Options o;
    // GNU as: lui t1, 0x2 / auipc ra, 0x0 / c.lui a5, 0x3 / c.lui a5, 0x3f (-1 << 12)
    rv::Insn in = rv::classify(0x00002337, o);
    CHECK(in.kind == Kind::Linear);
    CHECK(in.loads_constant() == 6);
    CHECK((in.reg & rv::kRegLui) != 0);
    CHECK(in.offset == 0x2000);
    in = rv::classify(0x00000097, o);
    CHECK(in.loads_constant() == 1);
    CHECK((in.reg & rv::kRegAuipc) != 0);
    CHECK(in.offset == 0);
    in = rv::classify(0xfffff297, o); // auipc t0, 0xfffff: negative upper immediate
    CHECK(in.offset == -0x1000);
    in = rv::classify(0x678d, o);
    CHECK(in.size == 2);
    CHECK(in.loads_constant() == 15);
    CHECK(in.offset == 0x3000);
    in = rv::classify(0x77fd, o);
    CHECK(in.loads_constant() == 15);
    CHECK(in.offset == -0x1000);
    CHECK(rv::classify(0x00000037, o).loads_constant() == 0); // lui zero: a hint
    // jalr a1, 52(t1) / c.jr a5 / c.jalr t0 name the register holding the target
    in = rv::classify(0x034305e7, o);
    CHECK(in.jump_reg() == 6);
    CHECK(in.offset == 52);
    in = rv::classify(0xfc830067, o); // jr -56(t1)
    CHECK(in.offset == -56);
    CHECK(rv::classify(0x8782, o).jump_reg() == 15);
    CHECK(rv::classify(0x9282, o).jump_reg() == 5);
    CHECK(rv::classify(0x00150513, o).loads_constant() == 0); // addi
}
