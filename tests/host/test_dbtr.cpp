// SPDX-License-Identifier: BSD-2-Clause
// Host tests of the DBTR logic that needs no hart (firmware/sbi/dbtr_logic.hpp):
// configuration checks, trig_state copies, ranges, masks and the choice of
// contiguous hardware triggers for chains.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include "sbi/dbtr_logic.hpp"

using namespace sbi::dbtr;
using sbi::Error;

static constexpr unsigned long mc(unsigned long type, unsigned long bits) {
    return type << kTypeShift | bits;
}

TEST_CASE("check_config: dmode and m are invalid, only mcontrol/mcontrol6 installable") {
    CHECK(check_config(mc(TYPE_MCONTROL, STORE | S), true) == Error::Success);
    CHECK(check_config(mc(TYPE_MCONTROL6, LOAD | U | MC6_VS | MC6_VU), true) == Error::Success);
    CHECK(check_config(mc(TYPE_MCONTROL, STORE | S | M), false) == Error::InvalidParam);
    CHECK(check_config(mc(TYPE_MCONTROL6, STORE | M), false) == Error::InvalidParam);
    CHECK(check_config(mc(TYPE_MCONTROL, STORE) | DMODE, false) == Error::InvalidParam);
    // dmode is invalid whatever the type, before NOT_SUPPORTED.
    CHECK(check_config(mc(TYPE_ICOUNT, 0) | DMODE, false) == Error::InvalidParam);
    for (unsigned t : {0u, 1u, 8u, 9u, 10u, 11u, 15u}) // none, legacy, reserved, disabled
        CHECK(check_config(mc(t, S), false) == Error::InvalidParam);
    for (unsigned t : {3u, 4u, 5u, 7u, 12u, 13u, 14u}) // icount .. tmexttrigger, custom
        CHECK(check_config(mc(t, S), false) == Error::NotSupported);
}

TEST_CASE("check_config: only the last configuration may not chain") {
    CHECK(check_config(mc(TYPE_MCONTROL, STORE | CHAIN), false) == Error::Success);
    CHECK(check_config(mc(TYPE_MCONTROL, STORE | CHAIN), true) == Error::InvalidParam);
    CHECK(check_config(mc(TYPE_MCONTROL6, STORE | CHAIN), true) == Error::InvalidParam);
}

TEST_CASE("trig_state copies of vs/vu/s/u and back") {
    CHECK(state_from_tdata1(mc(TYPE_MCONTROL, STORE | S)) == TS_S);
    CHECK(state_from_tdata1(mc(TYPE_MCONTROL, U | S)) == (TS_U | TS_S));
    // mcontrol has no vs/vu: bits 23/24 there mean nothing to trig_state.
    CHECK(state_from_tdata1(mc(TYPE_MCONTROL, MC6_VS | MC6_VU)) == 0);
    CHECK(state_from_tdata1(mc(TYPE_MCONTROL6, MC6_VS | MC6_VU | U)) == (TS_VS | TS_VU | TS_U));
    CHECK(tdata1_modes_from_state(TYPE_MCONTROL6, TS_VS | TS_S | TS_MAPPED) == (MC6_VS | S));
    CHECK(tdata1_modes_from_state(TYPE_MCONTROL, TS_VS | TS_VU | TS_U) == U);
    for (unsigned long st = 0; st < 32; st++)
        CHECK(state_from_tdata1(mc(TYPE_MCONTROL6, tdata1_modes_from_state(TYPE_MCONTROL6, st))) ==
              (st & ~TS_MAPPED));
    CHECK((mode_bits(TYPE_MCONTROL) & hit_bits(TYPE_MCONTROL)) == 0);
    CHECK((mode_bits(TYPE_MCONTROL6) & hit_bits(TYPE_MCONTROL6)) == 0);
}

TEST_CASE("range_ok: [base, base + count) within trig_max, no wrap") {
    CHECK(range_ok(2, 0, 2));
    CHECK(range_ok(2, 1, 1));
    CHECK(range_ok(2, 1, 0));
    CHECK(!range_ok(2, 2, 0));
    CHECK(!range_ok(2, 0, 3));
    CHECK(!range_ok(2, 1, 2));
    CHECK(!range_ok(2, 1, ~0ul));
    CHECK(!range_ok(2, ~0ul, 2));
    CHECK(!range_ok(0, 0, 0));
}

TEST_CASE("mask_ok: every named trigger mapped and below trig_max") {
    uint8_t st[kMaxTriggers] = {TS_MAPPED, 0, TS_MAPPED | TS_S, TS_MAPPED};
    CHECK(mask_ok(4, st, 0, 0));
    CHECK(mask_ok(4, st, ~0ul, 0));
    CHECK(mask_ok(4, st, 0, 1));
    CHECK(mask_ok(4, st, 2, 3));
    CHECK(mask_ok(4, st, 0, 0b1101));
    CHECK(!mask_ok(4, st, 0, 0b10));
    CHECK(!mask_ok(4, st, 3, 0b11));      // index 4 = trig_max
    CHECK(!mask_ok(4, st, 4, 1));
    CHECK(!mask_ok(4, st, ~0ul, 2));      // wraps to index 0
    CHECK(!mask_ok(4, st, 0, 1ul << (kXlen - 1)));
}

TEST_CASE("find_run: lowest free contiguous triggers of the right types") {
    const uint16_t both = 1u << TYPE_MCONTROL | 1u << TYPE_MCONTROL6;
    uint16_t types[kMaxTriggers] = {both, both, 1u << TYPE_MCONTROL, both};
    uint8_t st[kMaxTriggers] = {};
    const unsigned long t2 = mc(TYPE_MCONTROL, 0), t6 = mc(TYPE_MCONTROL6, 0);
    unsigned long one6[] = {t6};
    CHECK(find_run(4, st, types, one6, 1, 0) == 0);
    CHECK(find_run(4, st, types, one6, 1, 0b1) == 1);
    CHECK(find_run(4, st, types, one6, 1, 0b11) == 3); // trigger 2 lacks mcontrol6
    st[3] = TS_MAPPED;
    CHECK(find_run(4, st, types, one6, 1, 0b11) == -1);
    unsigned long chain[] = {t2 | CHAIN, t6};
    st[0] = TS_MAPPED;
    st[3] = 0;
    // 1-2 fails (2 has no mcontrol6), 2-3 fits.
    CHECK(find_run(4, st, types, chain, 2, 0) == 2);
    unsigned long chain3[] = {t2 | CHAIN, t2 | CHAIN, t2};
    CHECK(find_run(4, st, types, chain3, 3, 0) == 1);
    CHECK(find_run(4, st, types, chain3, 3, 0b10) == -1);
    CHECK(find_run(2, st, types, chain3, 3, 0) == -1);
}
