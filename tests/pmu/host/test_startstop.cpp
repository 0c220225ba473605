// SPDX-License-Identifier: BSD-2-Clause
// sbi_pmu_counter_start / sbi_pmu_counter_stop (FID 3, 4).
#include "rig.hpp"

using namespace rig;
using FE = fw::FwEvent;
using hart_model::event::dtlb_read_miss;
using hart_model::event::itlb_miss;

namespace {
constexpr uint64_t kOF = 1ull << 63;
} // namespace

TEST_CASE("start/stop: reserved flag bits and SET_INIT_VALUE|INIT_SNAPSHOT are INVALID_PARAM") {
    Rig r;
    REQUIRE_EQ(r.match(3, 1, 0, kDtlbRdMiss).value, 3u);
    for (unsigned b = 2; b < kXlen; b++) {
        CAPTURE(b);
        CHECK_ERR(r.start(3, 1, 1ul << b), InvalidParam);
    }
    CHECK_ERR(r.start(3, 1, START_SET_INIT_VALUE | START_INIT_SNAPSHOT, 5), InvalidParam);
    CHECK_EQ(pmu::g_harts[0].started, 0u);
    CHECK_OK(r.start(3, 1));
    for (unsigned b = 2; b < kXlen; b++) {
        CAPTURE(b);
        CHECK_ERR(r.stop(3, 1, 1ul << b), InvalidParam);
    }
    CHECK_EQ(pmu::g_harts[0].started, 1u << 3);
}

TEST_CASE("start/stop: the whole set is validated first, nothing changes on INVALID_PARAM") {
    Rig r;
    REQUIRE_EQ(r.match(3, 1, 0, kDtlbRdMiss).value, 3u);
    CHECK_ERR(r.start(0, 0), InvalidParam);
    CHECK_ERR(r.start(3, 0x3), InvalidParam); // 4 never configured
    CHECK_ERR(r.start(3, kTopBit), InvalidParam);
    CHECK_ERR(r.start(r.total(), 1), InvalidParam);
    CHECK_ERR(r.start(~0ul, 1), InvalidParam);
    CHECK_ERR(r.start(1, 0x5), InvalidParam); // time
    CHECK_EQ(pmu::g_harts[0].started, 0u);
    CHECK_EQ(r.hart().inhibit & (1u << 3), 1u << 3);
    CHECK_OK(r.start(3, 1));
    CHECK_ERR(r.stop(3, 0x3), InvalidParam);
    CHECK_ERR(r.stop(3, 0x3, STOP_RESET), InvalidParam);
    CHECK_EQ(pmu::g_harts[0].started, 1u << 3);
    CHECK_EQ(pmu::g_harts[0].configured, 1u << 3);
}

TEST_CASE("start/stop: ALREADY_STARTED / ALREADY_STOPPED, the other counters still processed") {
    Rig r;
    REQUIRE_EQ(r.match(3, 1, 0, kDtlbRdMiss).value, 3u);
    REQUIRE_EQ(r.match(4, 1, 0, kItlbMiss).value, 4u);
    CHECK_OK(r.start(3, 1));
    CHECK_ERR(r.start(3, 1), AlreadyStarted);
    CHECK_ERR(r.start(3, 0x3, START_SET_INIT_VALUE, 100), AlreadyStarted);
    CHECK_EQ(pmu::g_harts[0].started, 0x18u);
    CHECK_EQ(r.hart().counter[4], 100u);
    CHECK_NE(r.hart().counter[3], 100u); // the running one keeps its value
    CHECK_OK(r.stop(4, 1));
    CHECK_ERR(r.stop(4, 1), AlreadyStopped);
    CHECK_ERR(r.stop(3, 0x3), AlreadyStopped);
    CHECK_EQ(pmu::g_harts[0].started, 0u);
    CHECK_EQ(r.hart().inhibit & 0x18, 0x18u);
}

TEST_CASE("start: SET_INIT_VALUE high and low, counting only while started") {
    Rig r;
    REQUIRE_EQ(r.match(3, 1, 0, kDtlbRdMiss).value, 3u);
    CHECK_OK(r.start(3, 1, START_SET_INIT_VALUE, 0xfedcba9876543210ull));
    CHECK_EQ(r.hart().counter[3], 0xfedcba9876543210ull);
    r.hart().event(dtlb_read_miss, Priv::S, 3);
    CHECK_EQ(r.hart().counter[3], 0xfedcba9876543213ull);
    CHECK_OK(r.stop(3, 1));
    r.hart().event(dtlb_read_miss, Priv::S, 3);
    CHECK_EQ(r.hart().counter[3], 0xfedcba9876543213ull);
    CHECK_OK(r.start(3, 1));
    r.hart().event(dtlb_read_miss, Priv::S, 1);
    CHECK_EQ(r.hart().counter[3], 0xfedcba9876543214ull); // resumes from the current value
    CHECK_OK(r.stop(3, 1));
    CHECK_OK(r.start(3, 1, START_SET_INIT_VALUE, 7));
    CHECK_EQ(r.hart().counter[3], 7u);
}

TEST_CASE("start: a counter narrower than 64 bits takes the low bits of the initial value") {
    PmuHartConfig c;
    c.hpm_width = 40;
    Rig r(c);
    REQUIRE_EQ(r.match(3, 1, 0, kDtlbRdMiss).value, 3u);
    CHECK_OK(r.start(3, 1, START_SET_INIT_VALUE, ~0ull - 1));
    CHECK_EQ(r.hart().counter[3], (1ull << 40) - 2);
}

TEST_CASE("stop: RESET releases the mapping, also for an already stopped counter") {
    Rig r;
    REQUIRE_EQ(r.match(3, 1, 0, kDtlbRdMiss).value, 3u);
    CHECK_OK(r.start(3, 1));
    CHECK_OK(r.stop(3, 1, STOP_RESET));
    CHECK_EQ(r.hart().selector[3], 0u);
    CHECK_ERR(r.start(3, 1), InvalidParam);
    // Linux's del path: STOP(idx, 1, 0) then STOP(idx, 1, RESET).
    REQUIRE_EQ(r.match(3, 1, 0, kItlbMiss).value, 3u);
    CHECK_OK(r.start(3, 1));
    CHECK_OK(r.stop(3, 1));
    CHECK_ERR(r.stop(3, 1, STOP_RESET), AlreadyStopped);
    CHECK_EQ(pmu::g_harts[0].configured, 0u);
    CHECK_EQ(r.hart().selector[3], 0u);
    // The released event counts on another counter again (QEMU's map).
    CHECK_EQ(r.match(5, 1, CFG_AUTO_START, kItlbMiss).value, 5u);
    r.hart().event(itlb_miss, Priv::S, 2);
    CHECK_EQ(r.hart().counter[5], 2u);
}

TEST_CASE("start/stop: cycle and instret are free-running until owned, and again after RESET") {
    Rig r;
    r.hart().run(Priv::S, 10, 10);
    CHECK_EQ(r.hart().counter[0], 10u);
    REQUIRE_EQ(r.match(0, 1, 0, kCycles).value, 0u);
    r.hart().run(Priv::S, 10, 10);
    CHECK_EQ(r.hart().counter[0], 10u); // configured, not started: stopped
    CHECK_OK(r.start(0, 1, START_SET_INIT_VALUE, 0));
    r.hart().run(Priv::S, 5, 5);
    CHECK_EQ(r.hart().counter[0], 5u);
    CHECK_OK(r.stop(0, 1));
    r.hart().run(Priv::S, 5, 5);
    CHECK_EQ(r.hart().counter[0], 5u);
    CHECK_ERR(r.stop(0, 1, STOP_RESET), AlreadyStopped);
    r.hart().run(Priv::S, 5, 5);
    CHECK_EQ(r.hart().counter[0], 10u);
}

TEST_CASE("start: OF cleared so that the next overflow interrupts again (Sscofpmf)") {
    Rig r(sscof());
    REQUIRE_EQ(r.match(3, 1, 0, kDtlbRdMiss).value, 3u);
    CHECK_OK(r.start(3, 1, START_SET_INIT_VALUE, ~0ull - 1));
    r.hart().event(dtlb_read_miss, Priv::S, 3);
    CHECK((r.hart().selector[3] & kOF));
    CHECK_EQ(r.hart().lcofi_raised, 1u);
    CHECK_OK(r.stop(3, 1));
    CHECK((r.hart().selector[3] & kOF)); // stop leaves it for the handler to see
    CHECK_OK(r.start(3, 1, START_SET_INIT_VALUE, ~0ull));
    CHECK_EQ(r.hart().selector[3] & kOF, 0u);
    r.hart().event(dtlb_read_miss, Priv::S, 1);
    CHECK_EQ(r.hart().lcofi_raised, 2u);
    // Without an initial value too.
    CHECK_OK(r.stop(3, 1));
    CHECK_OK(r.start(3, 1));
    CHECK_EQ(r.hart().selector[3] & kOF, 0u);
}

TEST_CASE("start/stop: NO_SHMEM for the snapshot flags without shared memory, no side effect") {
    Rig r;
    REQUIRE_EQ(r.match(3, 1, 0, kDtlbRdMiss).value, 3u);
    CHECK_ERR(r.start(3, 1, START_INIT_SNAPSHOT), NoShmem);
    CHECK_EQ(pmu::g_harts[0].started, 0u);
    CHECK_ERR(r.start(3, 0x3, START_INIT_SNAPSHOT), InvalidParam); // validation comes first
    CHECK_OK(r.start(3, 1));
    CHECK_ERR(r.stop(3, 1, STOP_TAKE_SNAPSHOT), NoShmem);
    CHECK_ERR(r.stop(3, 1, STOP_TAKE_SNAPSHOT | STOP_RESET), NoShmem);
    CHECK_EQ(pmu::g_harts[0].started, 1u << 3);
    CHECK_EQ(pmu::g_harts[0].configured, 1u << 3);
}

TEST_CASE("start/stop: counter sets by base and mask, hardware and firmware together") {
    Rig r;
    unsigned fb = r.fw_base();
    REQUIRE_EQ(r.match(3, 1, 0, kDtlbRdMiss).value, 3u);
    REQUIRE_EQ(r.match(5, 1, 0, kItlbMiss).value, 5u);
    REQUIRE_EQ(r.match(fb, 1, 0, fw_ev(FE::set_timer)).value, fb);
    unsigned long mask = 0x5 | (1ul << (fb - 3));
    CHECK_OK(r.start(3, mask, START_SET_INIT_VALUE, 10));
    CHECK_EQ(pmu::g_harts[0].started, (1ull << 3) | (1ull << 5) | (1ull << fb));
    CHECK_EQ(r.hart().counter[3], 10u);
    CHECK_EQ(r.hart().counter[5], 10u);
    r.fw_event(FE::set_timer, 2);
    CHECK_EQ(r.fw_read(fb).value, 12u);
    CHECK_OK(r.stop(3, mask));
    CHECK_EQ(pmu::g_harts[0].started, 0u);
}
