// SPDX-License-Identifier: BSD-2-Clause
// The riscv,pmu device-tree node: parsing, tolerance, use, fix-up.
#include "rig.hpp"

#include <libfdt.h>

using namespace rig;

TEST_CASE("dt: QEMU 7.2's node with its trailing zero cells") {
    Rig r;
    const pmu::EventMap &m = pmu::g_config.map;
    CHECK(m.node_found);
    CHECK_EQ(m.num_ranges, 5u);
    CHECK_EQ(m.ignored, 1u); // the two cells after the last whole triple
    CHECK_EQ(m.counters_for(1), 0x7fff9u);
    CHECK_EQ(m.counters_for(2), 0x7fffcu);
    CHECK_EQ(m.counters_for(0x10019), 0x7fff8u);
    CHECK_EQ(m.counters_for(0x10021), 0x7fff8u);
    CHECK_EQ(m.counters_for(0x10020), 0u);
    CHECK_EQ(m.selector_for(0x10019), 0x10019u);
}

TEST_CASE("dt: ranges, malformed entries skipped, masks united") {
    Rig r({}, {{"riscv,event-to-mhpmcounters",
                {0x3, 0x5, 0x38, 0x4, 0x4, 0x40, 0x9, 0x8, 0xff8, 0x0, 0x6, 0xff8, 0x7, 0x7, 0x0}}});
    const pmu::EventMap &m = pmu::g_config.map;
    CHECK_EQ(m.num_ranges, 2u);
    CHECK_EQ(m.ignored, 3u);
    CHECK_EQ(m.counters_for(3), 0x38u);
    CHECK_EQ(m.counters_for(4), 0x78u);
    CHECK_EQ(m.counters_for(8), 0u);
    CHECK_EQ(m.counters_for(7), 0u);
    // HW_CACHE_REFERENCES now goes to 3..5 only.
    CHECK_EQ(r.match(0, 0x7fffd, 0, 3).value, 3u);
    CHECK_ERR(r.match(0, 0x7fffd, 0, 8), NotSupported);
}

TEST_CASE("dt: event-to-mhpmevent selectors are programmed") {
    for (bool sscofpmf : {false, true}) {
        CAPTURE(sscofpmf);
        PmuHartConfig cfg;
        cfg.sscofpmf = sscofpmf;
        Rig r(cfg, {{"riscv,event-to-mhpmcounters",
                     {0x1, 0x1, 0x19, 0x10019, 0x10019, 0x18, 0x10021, 0x10021, 0x18}},
                    {"riscv,event-to-mhpmevent",
                     {0x1, 0x1, 0x1, 0x10019, 0x12, 0x34567, 0x10021, 0x0, 0x89abcdef}}});
        CHECK_EQ(pmu::g_config.map.num_selectors, 3u);
        // cycles: the fixed counter needs no selector, counter 3 needs 2^32 + 1.
        CHECK_EQ(r.match(0, 1, 0, kCycles).value, 0u);
        CHECK_ERR(r.stop(0, 1, STOP_RESET), AlreadyStopped);
        SbiRet cy = r.match(3, 1, 0, kCycles);
        if (kRv32 && !sscofpmf) {
            CHECK_ERR(cy, NotSupported);
        } else {
            CHECK_OK(cy);
            CHECK_EQ(r.hart().selector[3], 0x100000001ull);
            CHECK_ERR(r.stop(3, 1, STOP_RESET), AlreadyStopped);
        }
        // A 32-bit selector fits every mhpmeventN.
        SbiRet i = r.match(0, 0x7fffd, 0, kItlbMiss);
        CHECK_OK(i);
        CHECK_EQ(i.value, 3u);
        CHECK_EQ(r.hart().selector[3], 0x89abcdefull);
        CHECK_ERR(r.stop(3, 1, STOP_RESET), AlreadyStopped); // released again
        SbiRet c = r.match(0, 0x7fffd, 0, kDtlbRdMiss);
        if (kRv32 && !sscofpmf) {
            // Bits 39:32 would need mhpmevent3h, which only Sscofpmf adds:
            // refused, not counted as selector 0x34567 (regression: it was).
            CHECK_ERR(c, NotSupported);
            CHECK_EQ(r.hart().selector[3], 0u);
            CHECK_FALSE(pmu::event_supported(kDtlbRdMiss, 0));
            continue;
        }
        CHECK_OK(c);
        CHECK_EQ(c.value, 3u);
        CHECK_EQ(r.hart().selector[3], 0x1200034567ull);
        CHECK(pmu::event_supported(kDtlbRdMiss, 0));
    }
}

TEST_CASE("dt: raw-event-to-mhpmcounters match/mask selects counters for raw events") {
    Rig r({}, {{"riscv,raw-event-to-mhpmcounters",
                {0x0, 0x1200, 0xffff, 0xff00, 0x30, 0x0, 0x0, 0x0, 0x0, 0x0}}});
    CHECK_EQ(pmu::g_config.map.num_raw, 1u);
    SbiRet c = r.match(0, 0x7fffd, 0, event_idx(TYPE_RAW, 0), 0x12ab);
    CHECK_OK(c);
    CHECK_EQ(c.value, 4u);
    CHECK_EQ(r.hart().selector[4], 0x12abu);
    CHECK_ERR(r.match(0, 0x7fffd, 0, event_idx(TYPE_RAW, 0), 0x13ab), NotSupported);
    // Code must be zero for raw events.
    CHECK_ERR(r.match(0, 0x7fffd, 0, event_idx(TYPE_RAW, 1), 0x12ab), NotSupported);
}

// ext-pmu.adoc, "Hardware raw events" (types 2 and 3): event_data holds the
// value for a 32-bit mhpmeventX whole (RV32), else its lower 48 (type 2) or
// 56 (type 3) bits. On RV32 event_data arrives in two registers: any bit of
// the upper one set is a value no 32-bit mhpmeventX takes.
TEST_CASE("dt: raw data width, 48 bits for type 2 and 56 for raw v2 (RV64), 32 for both (RV32)") {
    Rig r({}, {{"riscv,raw-event-to-mhpmcounters", {0x0, 0x0, 0x0, 0x0, 0x7fff8}}});
    unsigned long raw = event_idx(TYPE_RAW, 0), raw2 = event_idx(TYPE_RAW_V2, 0);
    const unsigned bits = kRv32 ? 32 : 48, bits2 = kRv32 ? 32 : 56;
    CHECK_EQ(kRawBits, bits);
    CHECK_EQ(kRawV2Bits, bits2);
    CHECK_OK(r.match(0, 0x7fffd, 0, raw, (1ull << bits) - 1));
    CHECK_ERR(r.match(0, 0x7fffd, 0, raw, 1ull << bits), NotSupported);
    CHECK_ERR(r.match(0, 0x7fffd, 0, raw, 1ull << 63), NotSupported);
    CHECK_OK(r.match(0, 0x7fffd, 0, raw2, (1ull << bits2) - 1));
    CHECK_ERR(r.match(0, 0x7fffd, 0, raw2, 1ull << bits2), NotSupported);
    CHECK_ERR(r.match(0, 0x7fffd, 0, raw2, 1ull << 63), NotSupported);
    CHECK_EQ(r.hart().selector[4], (1ull << bits2) - 1); // a free counter before a stopped one
}

TEST_CASE("dt: without the node, raw and table events are unsupported") {
    Rig r({}, {}, 1, false);
    CHECK_FALSE(pmu::g_config.map.node_found);
    CHECK_ERR(r.match(0, 0x7fffd, 0, kDtlbRdMiss), NotSupported);
    CHECK_ERR(r.match(0, 0x7fffd, 0, event_idx(TYPE_RAW, 0), 1), NotSupported);
}

TEST_CASE("dt: an unusable blob leaves an empty map") {
    pmu::EventMap m;
    uint8_t junk[64] = {1, 2, 3};
    pmu::parse_pmu_node(junk, m);
    CHECK_FALSE(m.node_found);
    CHECK_EQ(m.num_ranges, 0u);
    pmu::parse_pmu_node(nullptr, m);
    CHECK_FALSE(m.node_found);
}

TEST_CASE("dt: fix-up removes the M-mode properties, keeps the node") {
    auto blob = make_fdt({{"riscv,event-to-mhpmcounters", {1, 1, 1}},
                          {"riscv,event-to-mhpmevent", {1, 0, 1}},
                          {"riscv,raw-event-to-mhpmcounters", {0, 0, 0, 0, 8}},
                          {"other", {5}}});
    pmu::kSubsystem.fdt_fixup(blob.data());
    int node = fdt_node_offset_by_compatible(blob.data(), -1, "riscv,pmu");
    REQUIRE(node >= 0);
    CHECK(fdt_getprop(blob.data(), node, "riscv,event-to-mhpmcounters", nullptr) == nullptr);
    CHECK(fdt_getprop(blob.data(), node, "riscv,event-to-mhpmevent", nullptr) == nullptr);
    CHECK(fdt_getprop(blob.data(), node, "riscv,raw-event-to-mhpmcounters", nullptr) == nullptr);
    CHECK(fdt_getprop(blob.data(), node, "other", nullptr) != nullptr);
}

TEST_CASE("dt: too many entries are counted as ignored, not overflowed") {
    std::vector<uint32_t> cells;
    for (uint32_t i = 0; i < pmu::EventMap::kMaxRanges + 3; i++) {
        cells.push_back(0x100 + i);
        cells.push_back(0x100 + i);
        cells.push_back(0x8);
    }
    Rig r({}, {{"riscv,event-to-mhpmcounters", cells}});
    CHECK_EQ(pmu::g_config.map.num_ranges, pmu::EventMap::kMaxRanges);
    CHECK_EQ(pmu::g_config.map.ignored, 3u);
}
