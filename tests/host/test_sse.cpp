// SPDX-License-Identifier: BSD-2-Clause
// Host tests of the SBI SSE event model (firmware/sbi/sse_events.hpp): event
// ID classification, the state machine with its errors, attribute rules and
// the priority order. Delivery into S-mode is covered by the sse payload.
#define DOCTEST_CONFIG_IMPLEMENT_WITH_MAIN
#include <doctest/doctest.h>

#include "sbi/sse_events.hpp"

using namespace sbi::sse;
using sbi::Error;

namespace {
bool valid_hart(unsigned long h) { return h < 4; }
} // namespace

TEST_CASE("sse lookup: our events, unbacked standard events, reserved and platform IDs") {
    CHECK(lookup(LOCAL_SOFTWARE, true, true).err == Error::Success);
    CHECK(lookup(LOCAL_SOFTWARE, true, true).idx == EV_LOCAL_SOFTWARE);
    CHECK(lookup(GLOBAL_SOFTWARE, false, false).idx == EV_GLOBAL_SOFTWARE);
    CHECK(lookup(LOCAL_PMU_OVERFLOW, true, false).idx == EV_PMU_OVERFLOW);
    CHECK(lookup(LOCAL_PMU_OVERFLOW, false, true).err == Error::NotSupported);
    CHECK(lookup(LOCAL_DOUBLE_TRAP, false, true).idx == EV_DOUBLE_TRAP);
    CHECK(lookup(LOCAL_DOUBLE_TRAP, true, false).err == Error::NotSupported);
    for (uint32_t id : {LOCAL_HIGH_PRIO_RAS, GLOBAL_HIGH_PRIO_RAS, LOCAL_LOW_PRIO_RAS,
                        GLOBAL_LOW_PRIO_RAS})
        CHECK(lookup(id, true, true).err == Error::NotSupported);
    for (uint32_t id : {0x2u, 0x4000u, 0x8001u, 0xc000u, 0x10001u, 0x20000u, 0xffff0001u,
                        0xffff4000u, 0xffffc000u, 0xffffffffu})
        CHECK(lookup(id, true, true).err == Error::InvalidParam);
    CHECK(is_global(GLOBAL_SOFTWARE));
    CHECK_FALSE(is_global(LOCAL_PMU_OVERFLOW));
}

TEST_CASE("sse state machine: every transition and the error of every illegal one") {
    Event e{};
    CHECK(status(e) == kStatusInjectable);
    CHECK(do_unregister(e) == Error::InvalidState);
    CHECK(do_enable(e) == Error::InvalidState);
    CHECK(do_disable(e) == Error::InvalidState);
    CHECK(do_register(e, 0x1001, 7) == Error::InvalidParam);
    CHECK(e.state == UNUSED);
    CHECK(do_register(e, 0x1002, 7) == Error::Success);
    CHECK(e.state == REGISTERED);
    CHECK(e.entry_pc == 0x1002);
    CHECK(e.entry_arg == 7);
    CHECK(do_register(e, 0x1000, 0) == Error::InvalidState);
    CHECK(do_disable(e) == Error::InvalidState);
    CHECK(do_enable(e) == Error::Success);
    CHECK(e.state == ENABLED);
    CHECK(do_enable(e) == Error::InvalidState);
    CHECK(do_unregister(e) == Error::InvalidState);
    e.state = RUNNING;
    CHECK(do_disable(e) == Error::InvalidState);
    CHECK(do_unregister(e) == Error::InvalidState);
    CHECK(do_enable(e) == Error::InvalidState);
    CHECK(do_register(e, 0x1000, 0) == Error::InvalidState);
    do_complete(e);
    CHECK(e.state == ENABLED);
    e.oneshot = true;
    e.state = RUNNING;
    do_complete(e);
    CHECK(e.state == REGISTERED);
    CHECK(do_unregister(e) == Error::Success);
    CHECK(e.state == UNUSED);
}

TEST_CASE("sse pending: signalled events, unused ones ignore it, unregister drops it") {
    Event e{};
    signal(e);
    CHECK_FALSE(e.pending);
    do_register(e, 0x1000, 0);
    signal(e);
    CHECK(e.pending);
    CHECK_FALSE(ready(e));
    CHECK(status(e) == (REGISTERED | kStatusPending | kStatusInjectable));
    do_enable(e);
    CHECK(ready(e));
    do_disable(e);
    do_unregister(e);
    CHECK_FALSE(e.pending);
}

TEST_CASE("sse attributes: read-only, state rules, legal values") {
    Event e{};
    for (uint32_t a : {uint32_t(STATUS), uint32_t(ENTRY_PC), uint32_t(ENTRY_ARG)})
        CHECK(write_check(e, false, false, a, 0, valid_hart) == Error::Denied);
    CHECK(write_check(e, false, false, PREFERRED_HART, 1, valid_hart) == Error::Denied);
    CHECK(write_check(e, true, false, PREFERRED_HART, 1, valid_hart) == Error::Success);
    CHECK(write_check(e, true, false, PREFERRED_HART, 4, valid_hart) == Error::InvalidParam);
    CHECK(write_check(e, false, false, PRIORITY, 0xffffffffu, valid_hart) == Error::Success);
    CHECK(write_check(e, false, false, PRIORITY, 0x100000000ul, valid_hart) == Error::InvalidParam);
    CHECK(write_check(e, false, false, CONFIG, CONFIG_ONESHOT, valid_hart) == Error::Success);
    CHECK(write_check(e, false, false, CONFIG, 2, valid_hart) == Error::InvalidParam);
    for (uint32_t a = INTERRUPTED_SEPC; a <= INTERRUPTED_A7; a++)
        CHECK(write_check(e, false, false, a, 0, valid_hart) == Error::InvalidState);
    e.state = ENABLED;
    CHECK(write_check(e, false, false, PRIORITY, 1, valid_hart) == Error::InvalidState);
    CHECK(write_check(e, false, false, CONFIG, 0, valid_hart) == Error::InvalidState);
    CHECK(write_check(e, true, false, PREFERRED_HART, 1, valid_hart) == Error::InvalidState);
    e.state = RUNNING;
    CHECK(write_check(e, false, true, INTERRUPTED_A6, 5, valid_hart) == Error::Success);
    CHECK(write_check(e, false, true, INTERRUPTED_FLAGS, kFlagsDefined, valid_hart) ==
          Error::Success);
    CHECK(write_check(e, false, true, INTERRUPTED_FLAGS, 1ul << 6, valid_hart) ==
          Error::InvalidParam);
    // A global event running on another hart: its interrupted state is not ours.
    CHECK(write_check(e, true, false, INTERRUPTED_SEPC, 0, valid_hart) == Error::InvalidState);
    write_attr(e, INTERRUPTED_A7, 9);
    write_attr(e, PRIORITY, 0xffffffffu);
    CHECK(read_attr(e, INTERRUPTED_A7, 0) == 9);
    CHECK(read_attr(e, PRIORITY, 0) == 0xffffffffu);
    CHECK(read_attr(e, PREFERRED_HART, 3) == 3);
    CHECK(read_attr(e, STATUS, 0) == (RUNNING | kStatusInjectable));
}

TEST_CASE("sse attribute ranges: count 0, reserved IDs, 32-bit wrap") {
    CHECK(attr_range_check(0, 0) == Error::InvalidParam);
    CHECK(attr_range_check(0, kNumAttrs) == Error::Success);
    CHECK(attr_range_check(INTERRUPTED_A7, 1) == Error::Success);
    CHECK(attr_range_check(INTERRUPTED_A7, 2) == Error::BadRange);
    CHECK(attr_range_check(kNumAttrs, 1) == Error::BadRange);
    CHECK(attr_range_check(0xffffffffu, 2) == Error::BadRange);
    CHECK(attr_range_check(1, 0xffffffffu) == Error::BadRange);
}

TEST_CASE("sse priority: lower value first, then lower event ID") {
    CHECK(higher(0, GLOBAL_SOFTWARE, 1, LOCAL_PMU_OVERFLOW));
    CHECK(higher(5, LOCAL_PMU_OVERFLOW, 5, LOCAL_SOFTWARE));
    CHECK_FALSE(higher(5, LOCAL_SOFTWARE, 5, LOCAL_SOFTWARE));
    CHECK_FALSE(higher(6, LOCAL_PMU_OVERFLOW, 5, GLOBAL_SOFTWARE));
}
