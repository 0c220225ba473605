// SPDX-License-Identifier: BSD-2-Clause
// sbi_pmu_counter_config_matching (FID 2): every flag and error case.
#include "rig.hpp"

using namespace rig;
using FE = fw::FwEvent;

namespace {
constexpr uint64_t kOF = 1ull << 63, kMINH = 1ull << 62, kSINH = 1ull << 61, kUINH = 1ull << 60,
                   kVSINH = 1ull << 59, kVUINH = 1ull << 58;
} // namespace

TEST_CASE("config_matching: every reserved flag bit is INVALID_PARAM, without side effect") {
    Rig r;
    for (unsigned b = 8; b < kXlen; b++) {
        CAPTURE(b);
        CHECK_ERR(r.match(0, 0x5, 1ul << b, kCycles), InvalidParam);
    }
    CHECK_EQ(pmu::g_harts[0].configured, 0u);
    CHECK_EQ(r.hart().inhibit, 0x7fff8u); // counter 0 still free-running
}

TEST_CASE("config_matching: invalid counter sets are INVALID_PARAM") {
    Rig r;
    CHECK_ERR(r.match(0, 0, 0, kCycles), InvalidParam);         // empty
    CHECK_ERR(r.match(r.total(), 1, 0, kCycles), InvalidParam); // base past the end
    CHECK_ERR(r.match(~0ul, 1, 0, kCycles), InvalidParam);      // base + i wraps
    CHECK_ERR(r.match(0, kAll, 0, kCycles), InvalidParam);      // includes time and beyond
    CHECK_ERR(r.match(0, 0x3, 0, kCycles), InvalidParam);       // includes time
    CHECK_ERR(r.match(r.total() - 1, 0x3, 0, fw_ev(FE::set_timer)), InvalidParam);
    CHECK_ERR(r.match(r.total() - 1, kTopBit, 0, fw_ev(FE::set_timer)), InvalidParam);
    CHECK_ERR(r.match(0, 0, 0, 0xfffff), InvalidParam); // before looking at the event
    CHECK_EQ(pmu::g_harts[0].configured, 0u);
}

TEST_CASE("config_matching: a set naming an absent counter is invalid, gaps elsewhere are fine") {
    PmuHartConfig c;
    c.counters = 0x5 | (1u << 4) | (1u << 6);
    Rig r(c);
    CHECK_ERR(r.match(3, 0xf, 0, kDtlbRdMiss), InvalidParam);
    SbiRet s = r.match(4, 0x5, 0, kDtlbRdMiss);
    CHECK_OK(s);
    CHECK_EQ(s.value, 4u);
}

TEST_CASE("config_matching: events nobody can count are NOT_SUPPORTED") {
    Rig r;
    const unsigned long bad[] = {
        event_idx(TYPE_HW, HW_NO_EVENT),
        event_idx(TYPE_HW, 11),
        event_idx(TYPE_HW, HW_BRANCH_MISSES),                            // no counter in the DT
        event_idx(TYPE_CACHE, cache_code(7, OP_READ, RESULT_MISS)),      // cache id 7
        event_idx(TYPE_CACHE, cache_code(DTLB, 3, RESULT_MISS)),         // op 3
        event_idx(TYPE_CACHE, cache_code(L1D, OP_READ, RESULT_ACCESS)),  // not in the DT
        event_idx(TYPE_RAW, 0),                                          // no raw table
        event_idx(TYPE_RAW_V2, 0),
        event_idx(4, 1), event_idx(14, 1),
        event_idx(TYPE_FW, kFwStandardCount), event_idx(TYPE_FW, 255),
        event_idx(TYPE_FW, kFwImplFirst), event_idx(TYPE_FW, kFwImplLast),
        event_idx(TYPE_FW, kFwPlatform),
        (1ul << 20) | kCycles, 1ul << 31, kTopBit, kTopBit | kCycles,
    };
    for (unsigned long e : bad) {
        CAPTURE(e);
        CHECK_ERR(r.match(0, 0x7fffd, 0, e), NotSupported);
        CHECK_ERR(r.match(r.fw_base(), 0xffff, 0, e), NotSupported);
    }
    // event_data is reserved for general, cache and standard firmware events.
    CHECK_ERR(r.match(0, 0x7fffd, 0, kCycles, 1), NotSupported);
    CHECK_ERR(r.match(0, 0x7fffd, 0, kDtlbRdMiss, 1ull << 40), NotSupported);
    CHECK_ERR(r.match(r.fw_base(), 1, 0, fw_ev(FE::set_timer), 1), NotSupported);
    CHECK_EQ(pmu::g_harts[0].configured, 0u);
}

TEST_CASE("config_matching: hardware events never land on firmware counters and back") {
    Rig r;
    CHECK_ERR(r.match(r.fw_base(), 0xffff, 0, kCycles), NotSupported);
    CHECK_ERR(r.match(0, 0x7fffd, 0, fw_ev(FE::ipi_sent)), NotSupported);
}

TEST_CASE("config_matching: the counter returned lies in the set, running counters skipped") {
    Rig r;
    SbiRet a = r.match(5, 0x6, 0, kDtlbRdMiss);
    CHECK_OK(a);
    CHECK_EQ(a.value, 6u);
    CHECK_OK(r.start(6, 1));
    SbiRet b = r.match(5, 0x6, 0, kDtlbRdMiss);
    CHECK_OK(b);
    CHECK_EQ(b.value, 7u);
    CHECK_OK(r.start(7, 1));
    CHECK_ERR(r.match(5, 0x6, 0, kDtlbRdMiss), NotSupported); // both running
    // A configured but stopped counter is free to take.
    CHECK_OK(r.stop(7, 1));
    CHECK_EQ(r.match(5, 0x6, 0, kItlbMiss).value, 7u);
}

TEST_CASE("config_matching: unconfigured counters before configured, stopped ones") {
    Rig r;
    CHECK_EQ(r.match(3, 0x7, 0, kDtlbRdMiss).value, 3u);
    CHECK_EQ(r.match(3, 0x7, 0, kItlbMiss).value, 4u); // 3 not started, but taken
    CHECK_EQ(r.match(3, 0x7, 0, kDtlbWrMiss).value, 5u);
    CHECK_EQ(r.match(3, 0x7, 0, kDtlbWrMiss).value, 3u); // all configured: lowest stopped
    CHECK_ERR(r.stop(3, 0x7, STOP_RESET), AlreadyStopped);
    CHECK_EQ(pmu::g_harts[0].configured, 0u);
}

TEST_CASE("config_matching: cycles/instret use the fixed counters without Sscofpmf") {
    Rig r;
    CHECK_EQ(r.match(0, 0x7fffd, 0, kCycles).value, 0u);
    CHECK_EQ(r.match(0, 0x7fffd, 0, kInstr).value, 2u);
    // Fixed counter busy: a programmable one from the DT.
    CHECK_OK(r.start(0, 0x5));
    CHECK_EQ(r.match(0, 0x7fffd, 0, kCycles).value, 3u);
    CHECK_EQ(r.hart().selector[3], 1u);
}

TEST_CASE("config_matching: with Sscofpmf programmable counters first, fixed ones still usable") {
    Rig r(sscof());
    CHECK_EQ(r.match(0, 0x7fffd, 0, kCycles).value, 3u);
    CHECK_EQ(r.match(0, 0x1, 0, kCycles).value, 0u);   // OpenSBI: NOT_SUPPORTED
    CHECK_EQ(r.match(0, 0x5, 0, kInstr).value, 2u);
    CHECK_EQ(r.match(2, 0x1, 0, kInstr).value, 2u);
    CHECK_ERR(r.match(2, 0x1, 0, kCycles), NotSupported); // instret cannot count cycles
    CHECK_ERR(r.match(0, 0x1, 0, kInstr), NotSupported);
}

TEST_CASE("config_matching: fixed counters count cycles/instret even if the DT leaves them out") {
    Rig r({}, {{"riscv,event-to-mhpmcounters", {0x1, 0x1, 0x8}}});
    CHECK_EQ(r.match(0, 0x1, 0, kCycles).value, 0u);
    CHECK_EQ(r.match(0, 0x4, 0, kInstr).value, 2u);
    CHECK_ERR(r.match(0, 0x10, 0, kCycles), NotSupported); // counter 4 not in the DT
}

TEST_CASE("config_matching: CLEAR_VALUE zeroes, otherwise the value is kept") {
    Rig r;
    r.hart().counter[3] = 1234;
    CHECK_EQ(r.match(3, 1, 0, kDtlbRdMiss).value, 3u);
    CHECK_EQ(r.hart().counter[3], 1234u);
    CHECK_EQ(r.match(3, 1, CFG_CLEAR_VALUE, kDtlbRdMiss).value, 3u);
    CHECK_EQ(r.hart().counter[3], 0u);
}

TEST_CASE("config_matching: AUTO_START starts without touching the value") {
    Rig r;
    r.hart().counter[4] = 77;
    CHECK_EQ(r.match(4, 1, CFG_AUTO_START, kItlbMiss).value, 4u);
    CHECK_EQ(r.hart().counter[4], 77u);
    r.hart().event(hart_model::event::itlb_miss, Priv::S, 5);
    CHECK_EQ(r.hart().counter[4], 82u);
    CHECK_ERR(r.start(4, 1), AlreadyStarted);
    // Both together: cleared then started.
    CHECK_EQ(r.match(5, 1, CFG_AUTO_START | CFG_CLEAR_VALUE, kDtlbWrMiss).value, 5u);
    r.hart().event(hart_model::event::dtlb_write_miss, Priv::U, 3);
    CHECK_EQ(r.hart().counter[5], 3u);
}

TEST_CASE("config_matching: SKIP_MATCH takes the first counter of the set, configured before") {
    Rig r;
    CHECK_ERR(r.match(3, 0x6, CFG_SKIP_MATCH, kDtlbRdMiss), InvalidParam); // never configured
    CHECK_EQ(r.match(4, 1, 0, kDtlbRdMiss).value, 4u);
    SbiRet s = r.match(4, 0x3, CFG_SKIP_MATCH, kItlbMiss);
    CHECK_OK(s);
    CHECK_EQ(s.value, 4u);
    CHECK_EQ(r.hart().selector[4], hart_model::event::itlb_miss);
    CHECK_ERR(r.match(4, 0x1, CFG_SKIP_MATCH, fw_ev(FE::set_timer)), NotSupported);
    CHECK_ERR(r.match(4, 0x1, CFG_SKIP_MATCH | (1ul << 9), kItlbMiss), InvalidParam);
    // SKIP_MATCH on a running counter reprograms it in place.
    CHECK_OK(r.start(4, 1));
    CHECK_EQ(r.match(4, 1, CFG_SKIP_MATCH | CFG_CLEAR_VALUE, kDtlbWrMiss).value, 4u);
    r.hart().event(hart_model::event::dtlb_write_miss, Priv::S, 2);
    CHECK_EQ(r.hart().counter[4], 2u);
}

TEST_CASE("config_matching: filter flags map onto mhpmevent with Sscofpmf") {
    Rig r(sscof());
    CHECK_EQ(r.match(3, 1, CFG_SET_SINH | CFG_SET_UINH, kDtlbRdMiss).value, 3u);
    CHECK_EQ(r.hart().selector[3], 0x10019u | kSINH | kUINH);
    CHECK_EQ(r.match(4, 1, CFG_SET_MINH | CFG_SET_VSINH | CFG_SET_VUINH, kItlbMiss).value, 4u);
    CHECK_EQ(r.hart().selector[4], 0x10021u | kMINH | kVSINH | kVUINH);
    // M-mode is counted unless MINH is asked for.
    CHECK_EQ(r.match(5, 1, 0, kDtlbWrMiss).value, 5u);
    CHECK_EQ(r.hart().selector[5], 0x1001bu);
    CHECK_OK(r.start(3, 0x7));
    r.hart().event(hart_model::event::dtlb_read_miss, Priv::S, 4);
    r.hart().event(hart_model::event::dtlb_read_miss, Priv::M, 3);
    r.hart().event(hart_model::event::itlb_miss, Priv::M, 6);
    r.hart().event(hart_model::event::itlb_miss, Priv::U, 2);
    r.hart().event(hart_model::event::dtlb_write_miss, Priv::M, 1);
    CHECK_EQ(r.hart().counter[3], 3u);
    CHECK_EQ(r.hart().counter[4], 2u);
    CHECK_EQ(r.hart().counter[5], 1u);
}

TEST_CASE("config_matching: filter flags are hints without Sscofpmf") {
    Rig r;
    CHECK_EQ(r.match(3, 1, CFG_SET_SINH | CFG_SET_MINH, kDtlbRdMiss).value, 3u);
    CHECK_EQ(r.hart().selector[3], 0x10019u);
    CHECK_EQ(r.match(0, 1, CFG_SET_SINH, kCycles).value, 0u); // no mcyclecfg: no write (no trap)
}

TEST_CASE("config_matching: Smcntrpmf filters cycle and instret through mcyclecfg/minstretcfg") {
    Rig r(sscof(true));
    CHECK_EQ(r.match(0, 1, CFG_SET_UINH | CFG_SET_MINH, kCycles).value, 0u);
    CHECK_EQ(r.hart().cyclecfg, kUINH | kMINH);
    CHECK_EQ(r.match(2, 1, CFG_SET_SINH, kInstr).value, 2u);
    CHECK_EQ(r.hart().instretcfg, kSINH);
    CHECK_OK(r.start(0, 0x5, START_SET_INIT_VALUE, 0));
    r.hart().run(Priv::U, 10, 10);
    r.hart().run(Priv::S, 20, 20);
    r.hart().run(Priv::M, 40, 40);
    CHECK_EQ(r.hart().counter[0], 20u);
    CHECK_EQ(r.hart().counter[2], 50u);
    CHECK_OK(r.stop(0, 0x5, STOP_RESET));
    CHECK_EQ(r.hart().cyclecfg, 0u);
    CHECK_EQ(r.hart().instretcfg, 0u);
}

TEST_CASE("config_matching: a counter's previous event is cleared before reuse (QEMU)") {
    Rig r;
    CHECK_EQ(r.match(3, 1, 0, kDtlbRdMiss).value, 3u);
    CHECK_EQ(r.match(3, 1, 0, kItlbMiss).value, 3u);
    CHECK_OK(r.start(3, 1, START_SET_INIT_VALUE, 0));
    r.hart().event(hart_model::event::dtlb_read_miss, Priv::S, 9); // stale: must not count
    r.hart().event(hart_model::event::itlb_miss, Priv::S, 4);
    CHECK_EQ(r.hart().counter[3], 4u);
    // The old event can be counted on another counter again.
    CHECK_EQ(r.match(4, 1, CFG_AUTO_START | CFG_CLEAR_VALUE, kDtlbRdMiss).value, 4u);
    r.hart().event(hart_model::event::dtlb_read_miss, Priv::S, 2);
    CHECK_EQ(r.hart().counter[4], 2u);
}

TEST_CASE("config_matching: OF is not carried into a new configuration") {
    Rig r(sscof());
    CHECK_EQ(r.match(3, 1, 0, kDtlbRdMiss).value, 3u);
    CHECK_OK(r.start(3, 1, START_SET_INIT_VALUE, ~0ull));
    r.hart().event(hart_model::event::dtlb_read_miss, Priv::S);
    CHECK((r.hart().selector[3] & kOF));
    CHECK_OK(r.stop(3, 1));
    CHECK_EQ(r.match(3, 1, 0, kItlbMiss).value, 3u);
    CHECK_EQ(r.hart().selector[3] & kOF, 0u);
}

TEST_CASE("config_matching: firmware events on firmware counters") {
    Rig r;
    unsigned fb = r.fw_base();
    SbiRet a = r.match(fb, 0xffff, 0, fw_ev(FE::set_timer));
    CHECK_OK(a);
    CHECK_EQ(a.value, fb);
    CHECK_EQ(r.match(fb, 0xffff, CFG_AUTO_START, fw_ev(FE::set_timer)).value, fb + 1);
    CHECK_EQ(r.match(fb, 0xffff, 0, fw_ev(FE::ipi_sent)).value, fb + 2);
    CHECK_OK(r.stop(fb + 1, 1));
    CHECK_EQ(r.match(fb, 0x7, 0, fw_ev(FE::ipi_sent)).value, fb); // all taken: lowest stopped
    for (unsigned e = 0; e < kFwStandardCount; e++) {
        CAPTURE(e);
        CHECK_OK(r.match(fb + 2, 1, 0, event_idx(TYPE_FW, e)));
    }
}

// --- privilege filtering never on a counter that cannot filter (OpenSBI 65bb705f) ----------
// Every filter flag alone: each asks to leave out one mode.
namespace {
constexpr unsigned long kInhFlags[] = {CFG_SET_VUINH, CFG_SET_VSINH, CFG_SET_UINH, CFG_SET_SINH,
                                       CFG_SET_MINH};
} // namespace

TEST_CASE("config_matching: Sscofpmf without Smcntrpmf: a filtered request never on mcycle/minstret") {
    Rig r(sscof());
    for (unsigned long f : kInhFlags) {
        CAPTURE(f);
        CHECK_ERR(r.match(0, 0x1, f, kCycles), NotSupported);
        CHECK_ERR(r.match(2, 0x1, f, kInstr), NotSupported);
        CHECK_ERR(r.match(0, 0x5, f | CFG_AUTO_START, kInstr), NotSupported);
    }
    CHECK_EQ(pmu::g_harts[0].configured, 0u);
    CHECK_EQ(r.hart().inhibit & 0x5u, 0u); // still free-running, untouched
    // The same request with a programmable counter in the set lands there.
    SbiRet a = r.match(0, 0x9, CFG_SET_SINH, kCycles);
    CHECK_OK(a);
    CHECK_EQ(a.value, 3u);
    CHECK_EQ(r.hart().selector[3], 0x1u | kSINH);
    // A programmable counter busy: the fixed one is still not taken.
    CHECK_OK(r.start(3, 1));
    CHECK_ERR(r.match(0, 0x9, CFG_SET_UINH, kCycles), NotSupported);
    // Without filter flags the fixed counter counts what a programmable one
    // would (every mode, M included) and is taken.
    CHECK_EQ(r.match(0, 0x9, 0, kCycles).value, 0u);
    CHECK_EQ(r.match(2, 0x1, CFG_CLEAR_VALUE | CFG_AUTO_START, kInstr).value, 2u);
}

TEST_CASE("config_matching: with Smcntrpmf the fixed counters filter and are taken") {
    Rig r(sscof(true));
    for (unsigned long f : kInhFlags) {
        CAPTURE(f);
        CHECK_EQ(r.match(0, 0x1, f, kCycles).value, 0u);
        CHECK_EQ(r.hart().cyclecfg, static_cast<uint64_t>(f >> kCfgInhShift) << 58);
        CHECK_EQ(r.match(2, 0x1, f, kInstr).value, 2u);
        CHECK_EQ(r.hart().instretcfg, static_cast<uint64_t>(f >> kCfgInhShift) << 58);
    }
}

TEST_CASE("config_matching: Smcntrpmf without Sscofpmf: filtered requests only on mcycle/minstret") {
    PmuHartConfig c;
    c.smcntrpmf = true;
    Rig r(c);
    // mhpmevent has no filter bits without Sscofpmf: a filtered cache event
    // has no counter that honours it (the usual-request path too).
    CHECK_ERR(r.match(3, 0xffff, CFG_SET_SINH, kDtlbRdMiss), NotSupported);
    CHECK_ERR(r.match(0, 0x7fffd, CFG_SET_MINH | CFG_AUTO_START, kItlbMiss), NotSupported);
    CHECK_EQ(pmu::g_harts[0].configured, 0u);
    CHECK_EQ(r.match(3, 0xffff, 0, kDtlbRdMiss).value, 3u);
    // Cycles with a filter: mcycle even when a programmable counter is free.
    CHECK_EQ(r.match(0, 0x7fffd, CFG_SET_UINH, kCycles).value, 0u);
    CHECK_EQ(r.hart().cyclecfg, kUINH);
    CHECK_OK(r.start(0, 1));
    CHECK_ERR(r.match(0, 0x7fffd, CFG_SET_UINH, kCycles), NotSupported);
}

TEST_CASE("config_matching: SKIP_MATCH takes the named counter, filter or not") {
    Rig r(sscof());
    // Linux's legacy user-access mode names cycle itself (SBI: selected
    // unconditionally); the flags stay hints there.
    SbiRet s = r.match(0, 0x1, CFG_SKIP_MATCH | CFG_SET_SINH, kCycles);
    CHECK_OK(s);
    CHECK_EQ(s.value, 0u);
}

// --- CLEAR_VALUE and AUTO_START for every hardware event type (OpenSBI 3d29f380) ----------
// A raw table that maps QEMU's DTLB-read-miss selector, so the model counts
// the raw event as it counts the cache event with the same selector.
TEST_CASE("config_matching: CLEAR_VALUE and AUTO_START for cache, raw and raw v2 events") {
    const unsigned long raw = event_idx(TYPE_RAW, 0), raw2 = event_idx(TYPE_RAW_V2, 0);
    for (bool s : {false, true}) {
        for (unsigned long ev : {kDtlbRdMiss, raw, raw2}) {
            CAPTURE(s);
            CAPTURE(ev);
            PmuHartConfig c;
            c.sscofpmf = s;
            Rig r(c, {{"riscv,event-to-mhpmcounters", {0x10019, 0x10019, 0x7fff8}},
                      {"riscv,raw-event-to-mhpmcounters",
                       {0x0, 0x10019, 0xffffffff, 0xffffffff, 0x7fff8}}});
            uint64_t data = ev == kDtlbRdMiss ? 0 : 0x10019;
            r.hart().counter[5] = 1000;
            // Neither flag: configured, value kept, not counting.
            CHECK_EQ(r.match(5, 1, 0, ev, data).value, 5u);
            r.hart().event(hart_model::event::dtlb_read_miss, Priv::S, 3);
            CHECK_EQ(r.hart().counter[5], 1000u);
            // CLEAR_VALUE alone: zero, still stopped.
            CHECK_EQ(r.match(5, 1, CFG_CLEAR_VALUE, ev, data).value, 5u);
            CHECK_EQ(r.hart().counter[5], 0u);
            r.hart().event(hart_model::event::dtlb_read_miss, Priv::S, 3);
            CHECK_EQ(r.hart().counter[5], 0u);
            // AUTO_START alone: counts on from the value it has.
            r.hart().counter[5] = 40;
            CHECK_EQ(r.match(5, 1, CFG_AUTO_START, ev, data).value, 5u);
            r.hart().event(hart_model::event::dtlb_read_miss, Priv::S, 2);
            CHECK_EQ(r.hart().counter[5], 42u);
            CHECK_ERR(r.start(5, 1), AlreadyStarted);
            CHECK_OK(r.stop(5, 1));
            // Both: from zero, counting.
            CHECK_EQ(r.match(5, 1, CFG_CLEAR_VALUE | CFG_AUTO_START, ev, data).value, 5u);
            r.hart().event(hart_model::event::dtlb_read_miss, Priv::U, 7);
            CHECK_EQ(r.hart().counter[5], 7u);
            CHECK_ERR(r.stop(5, 1), Success);
        }
    }
}
