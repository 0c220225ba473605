// SPDX-License-Identifier: BSD-2-Clause
// Firmware counters and events; counter_fw_read / counter_fw_read_hi (FID 5, 6).
#include "rig.hpp"

using namespace rig;
using FE = fw::FwEvent;

TEST_CASE("fw: every standard firmware event counts on its own counter, only while started") {
    Rig r;
    unsigned fb = r.fw_base();
    for (unsigned e = 0; e < kFwStandardCount; e += pmu::kMaxFwCounters) {
        unsigned n = std::min<unsigned>(pmu::kMaxFwCounters, kFwStandardCount - e);
        for (unsigned i = 0; i < n; i++)
            REQUIRE_EQ(r.match(fb + i, 1, CFG_AUTO_START | CFG_CLEAR_VALUE,
                               event_idx(TYPE_FW, e + i)).value, fb + i);
        for (unsigned i = 0; i < n; i++) r.fw_event(static_cast<FE>(e + i), i + 1);
        for (unsigned i = 0; i < n; i++) {
            CAPTURE(e + i);
            CHECK_EQ(r.fw_read(fb + i).value, i + 1);
        }
        CHECK_OK(r.stop(fb, (1ul << n) - 1, STOP_RESET));
    }
}

TEST_CASE("fw: SET_TIMER counts once per call and freezes on stop") {
    Rig r;
    unsigned fb = r.fw_base();
    REQUIRE_EQ(r.match(fb, 1, CFG_AUTO_START, fw_ev(FE::set_timer)).value, fb);
    r.fw_event(FE::set_timer, 3);
    r.fw_event(FE::ipi_sent, 3);
    CHECK_EQ(r.fw_read(fb).value, 3u);
    CHECK_OK(r.stop(fb, 1));
    r.fw_event(FE::set_timer, 3);
    CHECK_EQ(r.fw_read(fb).value, 3u);
    CHECK_OK(r.start(fb, 1));
    r.fw_event(FE::set_timer);
    CHECK_EQ(r.fw_read(fb).value, 4u);
    CHECK_OK(r.stop(fb, 1));
    CHECK_OK(r.start(fb, 1, START_SET_INIT_VALUE, 1000));
    r.fw_event(FE::set_timer);
    CHECK_EQ(r.fw_read(fb).value, 1001u);
}

TEST_CASE("fw: two counters on one event count independently") {
    Rig r;
    unsigned fb = r.fw_base();
    REQUIRE_EQ(r.match(fb, 0xffff, CFG_AUTO_START, fw_ev(FE::ipi_received)).value, fb);
    r.fw_event(FE::ipi_received);
    REQUIRE_EQ(r.match(fb, 0xffff, CFG_AUTO_START, fw_ev(FE::ipi_received)).value, fb + 1);
    r.fw_event(FE::ipi_received);
    CHECK_EQ(r.fw_read(fb).value, 2u);
    CHECK_EQ(r.fw_read(fb + 1).value, 1u);
}

TEST_CASE("fw: CLEAR_VALUE, value kept without it, SKIP_MATCH switches the event") {
    Rig r;
    unsigned fb = r.fw_base();
    REQUIRE_EQ(r.match(fb, 1, CFG_AUTO_START, fw_ev(FE::set_timer)).value, fb);
    r.fw_event(FE::set_timer, 5);
    CHECK_OK(r.stop(fb, 1));
    REQUIRE_EQ(r.match(fb, 1, 0, fw_ev(FE::ipi_sent)).value, fb);
    CHECK_EQ(r.fw_read(fb).value, 5u);
    REQUIRE_EQ(r.match(fb, 1, CFG_CLEAR_VALUE, fw_ev(FE::ipi_sent)).value, fb);
    CHECK_EQ(r.fw_read(fb).value, 0u);
    // SKIP_MATCH on a running counter: the value carries over to the new event.
    CHECK_OK(r.start(fb, 1));
    r.fw_event(FE::ipi_sent, 2);
    REQUIRE_EQ(r.match(fb, 1, CFG_SKIP_MATCH, fw_ev(FE::set_timer)).value, fb);
    r.fw_event(FE::ipi_sent, 2);
    r.fw_event(FE::set_timer, 1);
    CHECK_EQ(r.fw_read(fb).value, 3u);
}

TEST_CASE("fw_read / fw_read_hi: hardware, unconfigured and out-of-range counters are invalid") {
    Rig r;
    unsigned fb = r.fw_base();
    CHECK_ERR(r.fw_read(0), InvalidParam);
    CHECK_ERR(r.fw_read(3), InvalidParam);
    CHECK_ERR(r.fw_read(1), InvalidParam);
    CHECK_ERR(r.fw_read(fb), InvalidParam);
    CHECK_ERR(r.fw_read(r.total()), InvalidParam);
    CHECK_ERR(r.fw_read(~0ul), InvalidParam);
    CHECK_ERR(r.fw_read_hi(0), InvalidParam);
    CHECK_ERR(r.fw_read_hi(fb), InvalidParam);
    CHECK_ERR(r.fw_read_hi(r.total()), InvalidParam);
    REQUIRE_EQ(r.match(3, 1, 0, kDtlbRdMiss).value, 3u);
    CHECK_ERR(r.fw_read(3), InvalidParam); // configured, but hardware
    REQUIRE_EQ(r.match(fb, 1, 0, fw_ev(FE::set_timer)).value, fb);
    CHECK_OK(r.fw_read(fb));
    SbiRet hi = r.fw_read_hi(fb);
    CHECK_OK(hi);
    CHECK_EQ(hi.value, 0u); // RV64 always; RV32: the count is below 2^32
    CHECK_ERR(r.stop(fb, 1, STOP_RESET), AlreadyStopped);
    CHECK_ERR(r.fw_read(fb), InvalidParam); // released all the same
}

TEST_CASE("fw: 64-bit firmware counters wrap silently") {
    Rig r;
    unsigned fb = r.fw_base();
    REQUIRE_EQ(r.match(fb, 1, 0, fw_ev(FE::set_timer)).value, fb);
    CHECK_OK(r.start(fb, 1, START_SET_INIT_VALUE, ~0ull));
    CHECK_EQ(r.fw_read(fb).value, ~0ul);
    CHECK_EQ(r.fw_read_hi(fb).value, kRv32 ? 0xfffffffful : 0ul);
    r.fw_event(FE::set_timer, 2);
    CHECK_EQ(r.fw_read(fb).value, 1u);
    CHECK_EQ(r.fw_read_hi(fb).value, 0u);
    CHECK_EQ(r.hart().lcofi_raised, 0u);
}

TEST_CASE("fw: events are counted on the hart where they happen") {
    Rig r({}, qemu72_pmu(), 2);
    unsigned fb = r.fw_base();
    for (unsigned h = 0; h < 2; h++) {
        r.on(h);
        REQUIRE_EQ(r.match(fb, 1, CFG_AUTO_START, fw_ev(FE::ipi_received)).value, fb);
    }
    r.on(1);
    r.fw_event(FE::ipi_received, 3);
    r.on(0);
    r.fw_event(FE::ipi_received, 1);
    CHECK_EQ(r.fw_read(fb).value, 1u);
    r.on(1);
    CHECK_EQ(r.fw_read(fb).value, 3u);
}
