// SPDX-License-Identifier: BSD-2-Clause
// The CTR register maps and encodings against the specification tables
// (specs/ctr/smctr-v1.0-ratified.adoc, smctr-v0.1.4-draft.adoc).
#include <doctest/doctest.h>

#include "ctr_spec.hpp"

using namespace ctr;

TEST_CASE("spec: ratified CSR numbers and mctrctl field positions") {
    // "CSR Listing".
    CHECK(ratified::sctrctl == 0x14E);
    CHECK(ratified::sctrstatus == 0x14F);
    CHECK(ratified::sctrdepth == 0x15F);
    CHECK(ratified::vsctrctl == 0x24E);
    CHECK(ratified::mctrctl == 0x34E);
    CHECK(ratified::sctrclr_insn == 0x10400073);
    // mctrctl register diagram, bit by bit.
    namespace c = ratified::ctl;
    CHECK(c::U == 1ull << 0);
    CHECK(c::S == 1ull << 1);
    CHECK(c::M == 1ull << 2);
    CHECK(c::RASEMU == 1ull << 7);
    CHECK(c::STE == 1ull << 8);
    CHECK(c::MTE == 1ull << 9);
    CHECK(c::BPFRZ == 1ull << 11);
    CHECK(c::LCOFIFRZ == 1ull << 12);
    CHECK(c::EXCINH == 1ull << 33);
    CHECK(c::TKBRINH == 1ull << 37);
    CHECK(c::INDCALLINH == 1ull << 40);
    CHECK(c::DIRLJMPINH == 1ull << 47);
    CHECK(c::CUSTOM == 0xF000000000000000ull);
    CHECK(c::DEFINED == 0x0000FF3E00001B87ull);
    CHECK(ratified::status::FROZEN == 1u << 31);
    CHECK(ratified::stateen_CTR == 1ull << 54);
}

TEST_CASE("spec: draft CSR numbers and mctrcontrol field positions") {
    CHECK(draft::sctrcontrol == 0x181);
    CHECK(draft::sctrcontrolh == 0x182);
    CHECK(draft::sctrstatus == 0x183);
    CHECK(draft::vsctrcontrol == 0x281);
    CHECK(draft::vsctrcontrolh == 0x282);
    CHECK(draft::mctrcontrol == 0x381);
    CHECK(draft::mctrcontrolh == 0x382);
    CHECK(draft::mctrstatus == 0x383);
    namespace c = draft::ctl;
    CHECK(c::M == 1);
    CHECK(c::S == 2);
    CHECK(c::U == 4);
    CHECK(c::CLR == 0x80);
    CHECK(c::MTE == 0x100);
    CHECK(c::STE == 0x200);
    CHECK(c::RASEMU == 0x400);
    CHECK(c::DEPTH == 0xF0000);
    CHECK(c::ETEN == 1ull << 38);
    CHECK(draft::status::WRAP == 1u << 14);
    CHECK(draft::status::FROZEN == 1u << 15);
    CHECK(draft::stateen_CTR == 1ull << 55);
}

TEST_CASE("spec: layout translation moves each field to its other position") {
    // The ctr.md comparison table: M 0<->2, U 2<->0, MTE 8<->9, STE 9<->8,
    // RASEMU 10<->7; S, BPFRZ, LCOFIFRZ and the filter bits stay.
    CHECK(draft_to_canon(draft::ctl::M) == ratified::ctl::M);
    CHECK(draft_to_canon(draft::ctl::U) == ratified::ctl::U);
    CHECK(draft_to_canon(draft::ctl::S) == ratified::ctl::S);
    CHECK(draft_to_canon(draft::ctl::MTE) == ratified::ctl::MTE);
    CHECK(draft_to_canon(draft::ctl::STE) == ratified::ctl::STE);
    CHECK(draft_to_canon(draft::ctl::RASEMU) == ratified::ctl::RASEMU);
    CHECK(draft_to_canon(draft::ctl::BPFRZ) == ratified::ctl::BPFRZ);
    CHECK(draft_to_canon(draft::ctl::LCOFIFRZ) == ratified::ctl::LCOFIFRZ);
    CHECK(draft_to_canon(ratified::ctl::FILTERS) == ratified::ctl::FILTERS);
    // CLR and DEPTH are actions/depth, not canonical control bits.
    CHECK(draft_to_canon(draft::ctl::CLR | draft::ctl::DEPTH) == 0);
    for (unsigned b = 0; b < 64; b++) {
        uint64_t c = 1ull << b;
        if (!(c & (ratified::ctl::DEFINED | canon::ETEN))) continue;
        INFO("canonical bit " << b);
        CHECK(draft_to_canon(canon_to_draft(c)) == c);
    }
    CHECK(draft_status_from_canon(ratified::status::FROZEN | 5) == (draft::status::FROZEN | 5));
    CHECK(canon_status_from_draft(draft::status::FROZEN | draft::status::WRAP | 7) ==
          (ratified::status::FROZEN | canon::WRAP | 7));
}

TEST_CASE("spec: depth encodings") {
    // Ratified sctrdepth: '000 = 16 ... '100 = 256.
    CHECK(ratified::depth::entries(0) == 16);
    CHECK(ratified::depth::entries(1) == 32);
    CHECK(ratified::depth::entries(2) == 64);
    CHECK(ratified::depth::entries(3) == 128);
    CHECK(ratified::depth::entries(4) == 256);
    // Draft thermometer code: 0000=16, 0001=32, 0011=64, 0111=128, 1111=256.
    const uint64_t code[] = {0x0, 0x1, 0x3, 0x7, 0xF};
    for (unsigned e = 0; e <= 4; e++) {
        CHECK(draft::depth_code(e) == code[e]);
        CHECK(draft::depth_enc(code[e]) == e);
    }
    // Non-thermometer values are legalised by their highest set bit.
    CHECK(draft::depth_enc(0x2) == 2);
    CHECK(draft::depth_enc(0x8) == 4);
    CHECK(draft::depth_enc(0x5) == 3);
}

TEST_CASE("spec: cycle count decode formula") {
    // "CCE==0 ? CCM : (2^12 + CCM) << (CCE-1)"
    CHECK(cc::decode(0x0000) == 0);
    CHECK(cc::decode(0x0FFF) == 4095);
    CHECK(cc::decode(0x1000) == 4096);
    CHECK(cc::decode(0x1FFF) == 8191);
    CHECK(cc::decode(0x2000) == 8192);
    CHECK(cc::decode(0x3001) == (4097ull << 2));
    CHECK(cc::decode(0xFFFF) == (8191ull << 14));
}

TEST_CASE("spec: table Cycle Counter Size Options (maximum per CCE width)") {
    // CCE bits -> CtrCycleCounter bits, max elapsed cycle value.
    struct Row {
        unsigned cce_bits, counter_bits;
        uint64_t max;
    } rows[] = {{0, 12, 4095}, {1, 13, 8191}, {2, 15, 32764}, {3, 19, 524224}, {4, 27, 134201344}};
    for (auto r : rows) {
        INFO("CCE bits " << r.cce_bits);
        CHECK(cc::max_count(r.cce_bits) == r.max);
        CHECK(r.max < (1ull << r.counter_bits));
        CHECK(r.max >= (1ull << (r.counter_bits - 1)));
        // Saturation: "when all implemented bits in CCM and CCE are 1".
        uint32_t sat = (((1u << r.cce_bits) - 1) << 12) | 0xFFF;
        CHECK(cc::encode(r.max, r.cce_bits) == sat);
        CHECK(cc::encode(r.max + 1, r.cce_bits) == sat);
        CHECK(cc::encode(~0ull >> 1, r.cce_bits) == sat);
        CHECK(cc::decode(sat) == r.max);
    }
}

TEST_CASE("spec: cycle count encoding keeps the top 13 significant bits") {
    CHECK(cc::encode(0, 4) == 0);
    CHECK(cc::encode(4095, 4) == 0x0FFF);
    CHECK(cc::encode(4096, 4) == 0x1000);
    CHECK(cc::encode(8191, 4) == 0x1FFF);
    CHECK(cc::encode(8192, 4) == 0x2000);
    CHECK(cc::encode(8193, 4) == 0x2000); // granularity 2 at CCE=2
    CHECK(cc::encode(8194, 4) == 0x2001);
    // Every value: the decoded count undercounts by less than 2^(CCE-1).
    uint64_t v = 1;
    for (int i = 0; i < 2000; i++) {
        v = v * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t x = (v >> 11) % cc::max_count(4);
        uint32_t e = cc::encode(x, 4);
        uint64_t d = cc::decode(e);
        unsigned cce = e >> 12;
        REQUIRE(d <= x);
        REQUIRE(x - d < (cce > 1 ? (1ull << (cce - 1)) : 1));
    }
}

TEST_CASE("spec: ctrdata layout and filter bit of each transfer type") {
    CHECK(entry::data_TYPE == 0xF);
    CHECK(entry::data_CCV == 0x8000);
    CHECK(entry::data_CCM == 0x0FFF0000);
    CHECK(entry::data_CCE == 0xF0000000);
    // "Transfer Type Filtering": EXCINH..DIRLJMPINH are bit 32 + TYPE.
    CHECK(filter_bit(TYPE_EXCEPTION) == ratified::ctl::EXCINH);
    CHECK(filter_bit(TYPE_INTERRUPT) == ratified::ctl::INTRINH);
    CHECK(filter_bit(TYPE_TRAP_RETURN) == ratified::ctl::TRETINH);
    CHECK(filter_bit(TYPE_NOT_TAKEN_BRANCH) == ratified::ctl::NTBREN);
    CHECK(filter_bit(TYPE_TAKEN_BRANCH) == ratified::ctl::TKBRINH);
    CHECK(filter_bit(TYPE_INDIRECT_CALL) == ratified::ctl::INDCALLINH);
    CHECK(filter_bit(TYPE_DIRECT_CALL) == ratified::ctl::DIRCALLINH);
    CHECK(filter_bit(TYPE_INDIRECT_JUMP) == ratified::ctl::INDJMPINH);
    CHECK(filter_bit(TYPE_DIRECT_JUMP) == ratified::ctl::DIRJMPINH);
    CHECK(filter_bit(TYPE_COROUTINE_SWAP) == ratified::ctl::CORSWAPINH);
    CHECK(filter_bit(TYPE_FUNCTION_RETURN) == ratified::ctl::RETINH);
    CHECK(filter_bit(TYPE_OTHER_INDIRECT_JUMP) == ratified::ctl::INDLJMPINH);
    CHECK(filter_bit(TYPE_OTHER_DIRECT_JUMP) == ratified::ctl::DIRLJMPINH);
}
