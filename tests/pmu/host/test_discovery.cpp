// SPDX-License-Identifier: BSD-2-Clause
// Counter discovery: probing, the logical layout, num_counters, get_info.
#include "rig.hpp"

using namespace rig;

namespace {
constexpr unsigned long info_hw(unsigned idx, unsigned bits) {
    return (0xC00ul + idx) | (static_cast<unsigned long>(bits - 1) << 12);
}
// Firmware counter: type bit XLEN-1, width field 63 (counter_info, FID 1).
constexpr unsigned long kFwInfo = kRv32 ? 0x8003f000ul : static_cast<unsigned long>(0x800000000003f000ull);
} // namespace

TEST_CASE("discovery: QEMU 7.2 layout, 16 mhpmcounters, firmware counters after them") {
    Rig r;
    CHECK_EQ(pmu::g_config.hw, 0x7fffdu);
    CHECK_EQ(r.fw_base(), 19u);
    SbiRet n = r.num();
    CHECK_OK(n);
    CHECK_EQ(n.value, 19ul + pmu::kMaxFwCounters);
    CHECK_LT(n.value, 64ul);
}

TEST_CASE("get_info: CSR number, width - 1 and type for every hardware counter") {
    Rig r;
    SbiRet i0 = r.info(0);
    CHECK_OK(i0);
    CHECK_EQ(i0.value, info_hw(0, 64));
    CHECK_EQ(r.info(2).value, info_hw(2, 64));
    for (unsigned c = 3; c <= 18; c++) {
        SbiRet i = r.info(c);
        CHECK_OK(i);
        CHECK_EQ(i.value, info_hw(c, 64));
    }
}

TEST_CASE("get_info: time and absent counters are invalid, gaps allowed") {
    PmuHartConfig c;
    c.counters = 0x5 | (1u << 5) | (1u << 7);
    Rig r(c);
    CHECK_ERR(r.info(1), InvalidParam);
    CHECK_ERR(r.info(3), InvalidParam);
    CHECK_ERR(r.info(4), InvalidParam);
    CHECK_OK(r.info(5));
    CHECK_ERR(r.info(6), InvalidParam);
    CHECK_OK(r.info(7));
    CHECK_EQ(r.fw_base(), 8u);
    CHECK_EQ(r.info(8).value, kFwInfo);
}

TEST_CASE("get_info: a narrower counter reports its width - 1") {
    PmuHartConfig c;
    c.hpm_width = 48;
    Rig r(c);
    CHECK_EQ(r.info(3).value, info_hw(3, 48));
    CHECK_EQ(r.info(0).value, info_hw(0, 64));
}

TEST_CASE("get_info: firmware counters have the type bit and 64-bit width") {
    Rig r;
    for (unsigned c = r.fw_base(); c < r.total(); c++) {
        SbiRet i = r.info(c);
        CHECK_OK(i);
        CHECK_EQ(i.value, kFwInfo);
    }
    CHECK_ERR(r.info(r.total()), InvalidParam);
    CHECK_ERR(r.info(64), InvalidParam);
    CHECK_ERR(r.info(~0ul), InvalidParam);
}

TEST_CASE("discovery: all 29 mhpmcounters") {
    PmuHartConfig c;
    c.counters = ~0u & ~2u;
    Rig r(c);
    CHECK_EQ(r.fw_base(), 32u);
    CHECK_EQ(r.num().value, 32ul + pmu::kMaxFwCounters);
    CHECK_EQ(r.info(31).value, info_hw(31, 64));
}

TEST_CASE("discovery: without mcountinhibit only firmware counters are offered") {
    PmuHartConfig c;
    c.mcountinhibit = false;
    Rig r(c);
    CHECK_EQ(r.num().value, static_cast<unsigned long>(pmu::kMaxFwCounters));
    CHECK_EQ(r.info(0).value, kFwInfo);
    CHECK_ERR(r.match(0, 0xffff, 0, kCycles), NotSupported);
    CHECK_OK(r.match(0, 0xffff, 0, fw_ev(fw::FwEvent::set_timer)));
}

TEST_CASE("hart init: counters readable from S-mode, hpm inhibited, cycle/instret free-running") {
    Rig r;
    CHECK_EQ(r.hart().counteren & 0x7fffd, 0x7fffdu);
    CHECK_EQ(r.hart().inhibit, 0x7fff8u);
    r.hart().run(Priv::S, 100, 40);
    CHECK_EQ(r.hart().counter[0], 100u);
    CHECK_EQ(r.hart().counter[2], 40u);
    CHECK_EQ(r.hart().counter[3], 0u);
    CHECK_EQ(r.hart().mideleg & (1u << 13), 0u);
}

TEST_CASE("hart init: Sscofpmf's LCOFI is delegated to S-mode, stale selectors cleared") {
    PmuHartConfig c;
    c.sscofpmf = true;
    Rig r(c);
    CHECK_EQ(r.hart().mideleg & (1u << 13), 1u << 13);
    for (unsigned i = 3; i <= 18; i++) CHECK_EQ(r.hart().selector[i], 0u);
    CHECK(pmu::g_config.sscofpmf);
    CHECK_FALSE(pmu::g_config.smcntrpmf);
}

TEST_CASE("discovery: Smcntrpmf detected by probing mcyclecfg") {
    PmuHartConfig c;
    c.smcntrpmf = true;
    Rig r(c);
    CHECK(pmu::g_config.smcntrpmf);
    CHECK_FALSE(pmu::g_config.sscofpmf);
}

TEST_CASE("probe: extension present, unknown FIDs are NOT_SUPPORTED") {
    Rig r;
    CHECK(sbi::eid::pmu == 0x504D55); // "PMU", the EID ecall.cpp lists it under
    CHECK((sbi::sbi_ext_pmu.probe == nullptr)); // probe_extension's "available"
    CHECK_ERR(r.call(9), NotSupported);
    CHECK_ERR(r.call(~0ul), NotSupported);
}
