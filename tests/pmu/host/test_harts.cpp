// SPDX-License-Identifier: BSD-2-Clause
// Per-hart state: harts are independent, HSM stop releases everything, a
// non-retentive suspend loses nothing.
#include "rig.hpp"

using namespace rig;
using FE = fw::FwEvent;
using hart_model::event::dtlb_read_miss;

TEST_CASE("harts: four harts configure, start and count independently") {
    Rig r({}, qemu72_pmu(), 4);
    unsigned fb = r.fw_base();
    for (unsigned h = 0; h < 4; h++) {
        r.on(h);
        REQUIRE_EQ(r.match(3, 0xffff, CFG_CLEAR_VALUE, kDtlbRdMiss).value, 3u);
        REQUIRE_EQ(r.match(fb, 0xffff, CFG_CLEAR_VALUE, fw_ev(FE::set_timer)).value, fb);
    }
    for (unsigned h = 0; h < 4; h++) {
        r.on(h);
        CHECK_OK(r.start(3, 1, START_SET_INIT_VALUE, 100 * h));
        CHECK_OK(r.start(fb, 1));
        r.hart().event(dtlb_read_miss, Priv::S, h + 1);
        r.fw_event(FE::set_timer, h + 2);
    }
    for (unsigned h = 0; h < 4; h++) {
        r.on(h);
        CAPTURE(h);
        CHECK_EQ(r.hart().counter[3], 100 * h + h + 1);
        CHECK_EQ(r.fw_read(fb).value, h + 2);
        CHECK_ERR(r.start(3, 1), AlreadyStarted);
    }
    r.on(2);
    CHECK_OK(r.stop(3, 1, STOP_RESET));
    r.on(1);
    CHECK_ERR(r.start(3, 1), AlreadyStarted); // hart 1 unaffected by hart 2's reset
}

TEST_CASE("harts: HSM stop stops and releases every counter of that hart only") {
    PmuHartConfig c;
    c.sscofpmf = true;
    Rig r(c, qemu72_pmu(), 2);
    unsigned fb = r.fw_base();
    for (unsigned h = 0; h < 2; h++) {
        r.on(h);
        CHECK_OK(r.set_shmem(kShmem + 4096 * h));
        REQUIRE_EQ(r.match(3, 1, CFG_AUTO_START, kDtlbRdMiss).value, 3u);
        REQUIRE_EQ(r.match(0, 1, CFG_AUTO_START, kCycles).value, 0u);
        REQUIRE_EQ(r.match(fb, 1, CFG_AUTO_START, fw_ev(FE::ipi_sent)).value, fb);
    }
    r.on(1);
    pmu::kSubsystem.hart_stop();
    CHECK_EQ(pmu::g_harts[1].configured, 0u);
    CHECK_EQ(pmu::g_harts[1].started, 0u);
    CHECK_EQ(pmu::g_harts[1].shmem, pmu::kNoShmem);
    CHECK_EQ(r.hart().selector[3], 0u);
    CHECK_EQ(r.hart().inhibit, 0x7fff8u); // hpm stopped, cycle/instret back to free-running
    r.hart().event(dtlb_read_miss, Priv::S, 5);
    CHECK_EQ(r.hart().counter[3], 0u);
    CHECK_ERR(r.start(3, 1), InvalidParam);
    CHECK_ERR(r.fw_read(fb), InvalidParam);
    r.on(0);
    CHECK_ERR(r.start(3, 1), AlreadyStarted);
    CHECK_OK(r.fw_read(fb));
}

TEST_CASE("harts: non-retentive suspend restores selectors, values and run state") {
    PmuHartConfig c;
    c.sscofpmf = true;
    c.smcntrpmf = true;
    Rig r(c);
    unsigned fb = r.fw_base();
    REQUIRE_EQ(r.match(3, 1, CFG_SET_SINH, kDtlbRdMiss).value, 3u);
    REQUIRE_EQ(r.match(4, 1, 0, kItlbMiss).value, 4u);
    REQUIRE_EQ(r.match(0, 1, CFG_SET_MINH, kCycles).value, 0u);
    REQUIRE_EQ(r.match(fb, 1, CFG_AUTO_START, fw_ev(FE::set_timer)).value, fb);
    CHECK_OK(r.start(3, 1, START_SET_INIT_VALUE, 333));
    CHECK_OK(r.start(4, 1, START_SET_INIT_VALUE, 444));
    CHECK_OK(r.stop(4, 1));
    r.fw_event(FE::set_timer, 2);
    uint64_t sel3 = r.hart().selector[3], sel4 = r.hart().selector[4], cfg0 = r.hart().cyclecfg;
    uint64_t c0 = r.hart().counter[0];

    pmu::kSubsystem.hart_suspend();
    r.m.harts[0] = hart_model::PmuHart(c); // the hart lost its state
    pmu::kSubsystem.hart_resume();

    CHECK_EQ(r.hart().selector[3], sel3);
    CHECK_EQ(r.hart().selector[4], sel4);
    CHECK_EQ(r.hart().cyclecfg, cfg0);
    CHECK_EQ(r.hart().counter[3], 333u);
    CHECK_EQ(r.hart().counter[4], 444u);
    CHECK_EQ(r.hart().counter[0], c0);
    CHECK_EQ(r.hart().inhibit & 0x1d, 0x1du & ~(1u << 3) & ~(1u << 2)); // 3 runs, 2 free, 0/4 stopped
    CHECK_EQ(r.hart().counteren & 0x7fffd, 0x7fffdu);
    CHECK_EQ(r.hart().mideleg & (1u << 13), 1u << 13);
    r.hart().event(dtlb_read_miss, Priv::U, 1);
    CHECK_EQ(r.hart().counter[3], 334u);
    CHECK_ERR(r.start(3, 1), AlreadyStarted);
    CHECK_OK(r.start(4, 1));
    r.fw_event(FE::set_timer);
    CHECK_EQ(r.fw_read(fb).value, 3u);
}

TEST_CASE("harts: cold_init carves one state per hart slot, zeroed") {
    Rig r({}, qemu72_pmu(), 2);
    REQUIRE(pmu::g_harts != nullptr);
    CHECK_EQ(reinterpret_cast<uintptr_t>(pmu::g_harts) % alignof(pmu::HartState), 0u);
    CHECK_EQ(pmu::kMaxHarts, 512u); // fw::kMaxHarts: the harts the core serves at most
}
