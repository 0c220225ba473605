// SPDX-License-Identifier: BSD-2-Clause
// The call sequences of Linux's drivers/perf/riscv_pmu_sbi.c (6.12), replayed
// against the service: boot probing, perf stat, sampling through the
// overflow interrupt with and without snapshot, event deletion.
#include "rig.hpp"

using namespace rig;
using FE = fw::FwEvent;
using hart_model::event::dtlb_read_miss;
using hart_model::event::itlb_miss;

namespace {

constexpr uint64_t kOF = 1ull << 63;

// pmu_sbi_get_ctrinfo: the mask of counters with valid info, as one
// XLEN-bit counter_idx_mask from base 0 (on RV32 counters 32 and up are out
// of its reach).
unsigned long linux_cmask(Rig &r) {
    unsigned long n = r.num().value, m = 0;
    for (unsigned long i = 0; i < n && i < kXlen; i++)
        if (r.info(i).error == 0) m |= 1ul << i;
    return m;
}

// pmu_sbi_check_std_events: CFG_MATCH then STOP(RESET) for the 10 general
// and 42 cache events; returns the supported ones.
std::vector<unsigned long> linux_probe(Rig &r, unsigned long cmask) {
    std::vector<unsigned long> ok;
    auto check = [&](unsigned long ev) {
        SbiRet m = r.match(0, cmask, 0, ev);
        if (m.error == 0) {
            r.stop(m.value, 1, STOP_RESET);
            ok.push_back(ev);
        } else {
            CHECK_EQ(m.error, static_cast<long>(Error::NotSupported));
        }
    };
    for (unsigned c = 1; c <= 10; c++) check(event_idx(TYPE_HW, c));
    for (unsigned id = 0; id < 7; id++)
        for (unsigned op = 0; op < 3; op++)
            for (unsigned res = 0; res < 2; res++)
                check(event_idx(TYPE_CACHE, cache_code(id, op, res)));
    return ok;
}

} // namespace

TEST_CASE("linux: boot probing finds QEMU's events and leaves nothing configured") {
    Rig r(sscof());
    unsigned long cmask = linux_cmask(r);
    // Firmware counters 19..34: on RV32 only 19..31 fit the mask.
    CHECK_EQ(cmask, kRv32 ? 0xfffffffdul : static_cast<unsigned long>(0x7fffffffdull));
    // pmu_sbi_starting_cpu: STOP(0, cmask, RESET) on a fresh hart.
    CHECK_ERR(r.stop(0, cmask, STOP_RESET), InvalidParam);
    CHECK_OK(r.set_shmem(kShmem));
    auto ok = linux_probe(r, cmask);
    CHECK_EQ(ok, std::vector<unsigned long>{kCycles, kInstr, kDtlbRdMiss, kDtlbWrMiss, kItlbMiss});
    CHECK_EQ(pmu::g_harts[0].configured, 0u);
    for (unsigned i = 3; i <= 18; i++) CHECK_EQ(r.hart().selector[i], 0u);
}

TEST_CASE("linux: perf stat twice with TLB events, counts right the second time (QEMU map)") {
    Rig r(sscof());
    unsigned long cmask = linux_cmask(r);
    CHECK_OK(r.set_shmem(kShmem));
    linux_probe(r, cmask);
    for (int run = 0; run < 2; run++) {
        CAPTURE(run);
        // add + start for two events; in the second run the order is swapped.
        unsigned long e1 = run ? kItlbMiss : kDtlbRdMiss, e2 = run ? kDtlbRdMiss : kItlbMiss;
        SbiRet a = r.match(0, cmask, 0, e1);
        REQUIRE_EQ(a.error, 0);
        CHECK_OK(r.start(a.value, 1, START_SET_INIT_VALUE, 0));
        SbiRet b = r.match(0, cmask, 0, e2);
        REQUIRE_EQ(b.error, 0);
        CHECK_NE(a.value, b.value);
        CHECK_OK(r.start(b.value, 1, START_SET_INIT_VALUE, 0));
        r.hart().event(dtlb_read_miss, Priv::U, 10);
        r.hart().event(itlb_miss, Priv::U, 3);
        // del: stop with snapshot, then reset.
        CHECK_OK(r.stop(a.value, 1, STOP_TAKE_SNAPSHOT));
        CHECK_EQ(r.snap_value(0), run ? 3u : 10u);
        CHECK_ERR(r.stop(a.value, 1, STOP_RESET | STOP_TAKE_SNAPSHOT), AlreadyStopped);
        CHECK_EQ(r.snap_value(0), run ? 3u : 10u); // not clobbered by the second call
        CHECK_OK(r.stop(b.value, 1, STOP_TAKE_SNAPSHOT));
        CHECK_EQ(r.snap_value(0), run ? 10u : 3u);
        CHECK_ERR(r.stop(b.value, 1, STOP_RESET), AlreadyStopped);
    }
    CHECK_EQ(pmu::g_harts[0].configured, 0u);
}

TEST_CASE("linux: sampling with snapshot, the overflow handler's calls restart the counters") {
    Rig r(sscof());
    unsigned long cmask = linux_cmask(r);
    CHECK_OK(r.set_shmem(kShmem));
    const uint64_t period = 1000;
    SbiRet s = r.match(0, cmask, CFG_SET_MINH, kDtlbRdMiss);
    REQUIRE_EQ(s.error, 0);
    unsigned idx = static_cast<unsigned>(s.value);
    unsigned long used = 1ul << idx;
    CHECK_OK(r.start(idx, 1, START_SET_INIT_VALUE, -period));
    unsigned samples = 0;
    for (int i = 0; i < 5; i++) {
        r.hart().event(dtlb_read_miss, Priv::U, period);
        REQUIRE(r.hart().lcofip);
        // pmu_sbi_ovf_handler -> pmu_sbi_stop_hw_ctrs
        CHECK_OK(r.stop(0, used, STOP_TAKE_SNAPSHOT));
        uint64_t overflow = r.snap_bitmap();
        CHECK_EQ(overflow, used);
        r.hart().lcofip = false; // the kernel clears sip.LCOFIP
        if (overflow & used) samples++;
        // pmu_sbi_start_ovf_ctrs_snapshot: values at their logical index,
        // then START with the leftover loop index as base.
        r.m.store_s(kShmem + 8 + 8 * idx, -period, 8);
        CHECK_OK(r.start(kLinuxRestartBase, used, START_INIT_SNAPSHOT));
        // RV32: the kernel's counter mask is two words, the second one (no
        // hardware counter there) started with the same base and mask 0.
        if (kRv32) CHECK_ERR(r.start(kLinuxRestartBase, 0, START_INIT_SNAPSHOT), InvalidParam);
        CHECK_EQ(r.hart().counter[idx], -period);
        CHECK_EQ(r.hart().selector[idx] & kOF, 0u);
    }
    CHECK_EQ(samples, 5u);
    CHECK_EQ(r.hart().lcofi_raised, 5u);
}

TEST_CASE("linux: sampling without snapshot, scountovf and per-counter restart") {
    Rig r(sscof());
    unsigned long cmask = linux_cmask(r);
    const uint64_t period = 500;
    SbiRet a = r.match(0, cmask, 0, kDtlbRdMiss), b = r.match(0, cmask, 0, kItlbMiss);
    REQUIRE_EQ(a.error, 0);
    REQUIRE_EQ(b.error, 0);
    unsigned long used = (1ul << a.value) | (1ul << b.value);
    CHECK_OK(r.start(a.value, 1, START_SET_INIT_VALUE, -period));
    CHECK_OK(r.start(b.value, 1, START_SET_INIT_VALUE, 0));
    for (int i = 0; i < 3; i++) {
        r.hart().event(dtlb_read_miss, Priv::S, period);
        r.hart().event(itlb_miss, Priv::S, 1);
        REQUIRE(r.hart().lcofip);
        CHECK_OK(r.stop(0, used));
        uint64_t ovf;
        REQUIRE(r.hart().read(hart_model::csrno::scountovf, ovf));
        CHECK_EQ(ovf, 1ul << a.value);
        r.hart().lcofip = false;
        CHECK_OK(r.start(0, used & ~ovf));
        CHECK_OK(r.start(a.value, 1, START_SET_INIT_VALUE, -period));
    }
    CHECK_EQ(r.hart().lcofi_raised, 3u);
    CHECK_EQ(r.hart().counter[b.value], 3u);
    // START(0, 0, 0) when every used counter overflowed: harmless INVALID_PARAM.
    CHECK_ERR(r.start(0, 0), InvalidParam);
}

TEST_CASE("linux: firmware events through the raw config (firmware=2), read with FW_READ") {
    Rig r;
    unsigned long cmask = linux_cmask(r);
    SbiRet m = r.match(0, cmask, 0, fw_ev(FE::ipi_sent));
    REQUIRE_EQ(m.error, 0);
    CHECK_EQ(m.value, r.fw_base());
    CHECK((r.info(m.value).value >> (kXlen - 1)));
    CHECK_OK(r.start(m.value, 1, START_SET_INIT_VALUE, 0));
    r.fw_event(FE::ipi_sent, 4);
    CHECK_EQ(r.fw_read(m.value).value, 4u);
    CHECK_OK(r.stop(m.value, 1));
    CHECK_ERR(r.stop(m.value, 1, STOP_RESET), AlreadyStopped);
    CHECK_EQ(pmu::g_harts[0].configured, 0u);
}

TEST_CASE("linux: exclude_kernel/exclude_user become SINH/UINH on the counter") {
    Rig r(sscof());
    unsigned long cmask = linux_cmask(r);
    SbiRet m = r.match(0, cmask, CFG_SET_SINH, kCycles); // cycles:u
    REQUIRE_EQ(m.error, 0);
    CHECK_GE(m.value, 3u); // a counter that can filter
    CHECK_OK(r.start(m.value, 1, START_SET_INIT_VALUE, 0));
    r.hart().run(Priv::U, 100, 100);
    r.hart().run(Priv::S, 50, 50);
    CHECK_EQ(r.hart().counter[m.value], 100u);
}

TEST_CASE("linux: legacy user access (perf_user_access=2) forces the fixed counters by SKIP_MATCH") {
    Rig r;
    unsigned long cmask = linux_cmask(r);
    linux_probe(r, cmask); // releases everything it configured
    SbiRet c = r.match(0, 1, CFG_SKIP_MATCH, kCycles);
    CHECK_OK(c);
    CHECK_EQ(c.value, 0u);
    SbiRet i = r.match(0, 1ul << 2, CFG_SKIP_MATCH, kInstr);
    CHECK_OK(i);
    CHECK_EQ(i.value, 2u);
    CHECK_OK(r.start(0, 0x5, START_SET_INIT_VALUE, 0));
    // Only the counter's own event, and a programmable counter still needs a
    // configuration first.
    CHECK_OK(r.stop(0, 0x5, STOP_RESET));
    CHECK_ERR(r.match(0, 1, CFG_SKIP_MATCH, kInstr), InvalidParam);
    CHECK_ERR(r.match(3, 1, CFG_SKIP_MATCH, kDtlbRdMiss), InvalidParam);
}
