// SPDX-License-Identifier: BSD-2-Clause
// T-Head C9xx PMU overflow (platform/generic/vendor.cpp's thead-c9xx-pmu):
// on a core without Sscofpmf, the counters' overflow interrupt is IRQ 17
// with its own enable (mcounterinten), write-enable (mcounterwen) and status
// (mcounterof) CSRs, as OpenSBI's thead_c9xx_pmu.c drives them. QEMU's
// thead-c906 models none of these CSRs (only th.sxstatus), so the hart model
// is the only place this runs besides the boards.
#include "rig.hpp"

using namespace rig;
using hart_model::event::dtlb_read_miss;

namespace {
constexpr uint32_t kIrq17 = 1u << 17, kLcofi = 1u << 13;

PmuHartConfig c9xx() {
    PmuHartConfig c;
    c.thead_c9xx = true;
    return c;
}
} // namespace

TEST_CASE("thead: chosen on a C9xx without Sscofpmf; IRQ 17 delegated, not LCOFI") {
    Rig r(c9xx());
    CHECK(pmu::g_config.thead);
    CHECK_EQ(r.hart().mideleg & (kIrq17 | kLcofi), kIrq17);
    CHECK_EQ(r.hart().th_inten, 0u);
}

TEST_CASE("thead: START arms the counter's interrupt (OF cleared first), STOP disarms it") {
    Rig r(c9xx());
    REQUIRE_EQ(r.match(3, 1, 0, kDtlbRdMiss).value, 3u);
    r.hart().th_of = 1u << 3; // left from an earlier overflow
    CHECK_OK(r.start(3, 1, START_SET_INIT_VALUE, ~0ull - 1));
    CHECK_EQ(r.hart().th_of, 0u);
    CHECK_EQ(r.hart().th_wen, 1u << 3);
    CHECK_EQ(r.hart().th_inten, 1u << 3);
    r.hart().event(dtlb_read_miss, Priv::S, 3); // wraps
    CHECK_EQ(r.hart().th_of, 1u << 3);
    CHECK(r.hart().th_irq);
    CHECK_EQ(r.hart().th_irq_raised, 1u);
    CHECK_OK(r.stop(3, 1));
    CHECK_EQ(r.hart().th_inten, 0u);
    CHECK_EQ(r.hart().th_of, 1u << 3); // S-mode reads scounterof after the stop
    // Linux's overflow handler restarts with the next period: OF cleared again.
    CHECK_OK(r.start(3, 1, START_SET_INIT_VALUE, 5));
    CHECK_EQ(r.hart().th_of, 0u);
    CHECK_EQ(r.hart().th_inten, 1u << 3);
    CHECK_EQ(r.hart().counter[3], 5u);
}

TEST_CASE("thead: AUTO_START arms, counters that were not started are left alone") {
    Rig r(c9xx());
    CHECK_EQ(r.match(4, 1, CFG_AUTO_START | CFG_CLEAR_VALUE, kItlbMiss).value, 4u);
    CHECK_EQ(r.hart().th_inten, 1u << 4);
    CHECK_EQ(r.match(0, 1, 0, kCycles).value, 0u);
    CHECK_EQ(r.hart().th_inten, 1u << 4);
    CHECK_ERR(r.start(0, 0x11), AlreadyStarted); // 4 runs; 0 is started
    CHECK_EQ(r.hart().th_inten, 0x11u);
    CHECK_ERR(r.stop(0, 0x11, STOP_RESET), Success);
    CHECK_EQ(r.hart().th_inten, 0u);
}

TEST_CASE("thead: TAKE_SNAPSHOT's overflow bitmap is mcounterof, relative to the base") {
    Rig r(c9xx());
    CHECK_OK(r.set_shmem(kShmem));
    REQUIRE_EQ(r.match(3, 1, 0, kDtlbRdMiss).value, 3u);
    REQUIRE_EQ(r.match(6, 1, 0, kItlbMiss).value, 6u);
    CHECK_OK(r.start(3, 0x9, START_SET_INIT_VALUE, ~0ull));
    r.hart().event(dtlb_read_miss, Priv::S, 2);
    CHECK_OK(r.stop(3, 0x9, STOP_TAKE_SNAPSHOT));
    CHECK_EQ(r.snap_bitmap(), 0x1u);
    CHECK_EQ(r.snap_value(0), 1u);
}

TEST_CASE("thead: HSM stop disarms every counter, resume from suspend re-arms running ones") {
    PmuHartConfig c = c9xx();
    Rig r(c);
    REQUIRE_EQ(r.match(3, 1, 0, kDtlbRdMiss).value, 3u);
    REQUIRE_EQ(r.match(4, 1, 0, kItlbMiss).value, 4u);
    CHECK_OK(r.start(3, 0x3, START_SET_INIT_VALUE, 10));
    CHECK_OK(r.stop(4, 1));
    pmu::kSubsystem.hart_suspend();
    r.m.harts[0] = hart_model::PmuHart(c); // the hart lost its state
    pmu::kSubsystem.hart_resume();
    CHECK_EQ(r.hart().th_inten, 1u << 3);
    CHECK_EQ(r.hart().mideleg & kIrq17, kIrq17);
    CHECK_EQ(r.hart().counter[3], 10u);
    pmu::kSubsystem.hart_stop();
    CHECK_EQ(r.hart().th_inten, 0u);
}

TEST_CASE("thead: with Sscofpmf the standard overflow; the T-Head CSRs untouched") {
    PmuHartConfig c = c9xx();
    c.sscofpmf = true;
    Rig r(c);
    CHECK_FALSE(pmu::g_config.thead);
    CHECK_EQ(r.hart().mideleg & (kIrq17 | kLcofi), kLcofi);
    REQUIRE_EQ(r.match(3, 1, 0, kDtlbRdMiss).value, 3u);
    CHECK_OK(r.start(3, 1, START_SET_INIT_VALUE, ~0ull));
    r.hart().event(dtlb_read_miss, Priv::S, 1);
    CHECK_EQ(r.hart().lcofi_raised, 1u);
    CHECK_EQ(r.hart().th_inten | r.hart().th_wen, 0u);
}

TEST_CASE("thead: asked for on a core without the CSRs (QEMU's thead-c906): not used, no trap") {
    Rig r; // a hart without the T-Head CSRs
    pmu::use_thead_c9xx_overflow(true);
    std::memset(static_cast<void *>(&pmu::g_config), 0, sizeof pmu::g_config);
    pmu::kSubsystem.cold_init(r.fdt.data(), 0);
    pmu::kSubsystem.hart_init();
    pmu::use_thead_c9xx_overflow(false);
    CHECK_FALSE(pmu::g_config.thead);
    REQUIRE_EQ(r.match(3, 1, 0, kDtlbRdMiss).value, 3u);
    CHECK_OK(r.start(3, 1));
    CHECK_OK(r.stop(3, 1));
    CHECK_EQ(r.hart().mideleg & kIrq17, 0u);
}
