// SPDX-License-Identifier: BSD-2-Clause
// sbi_pmu_event_get_info (FID 8).
#include "rig.hpp"

using namespace rig;

namespace {
constexpr uint64_t kArea = kShmem;
struct Entry {
    uint32_t idx;
    uint64_t data;
};
void put(Rig &r, const std::vector<Entry> &e, uint64_t at = kArea) {
    for (size_t i = 0; i < e.size(); i++) {
        r.m.store_s(at + 16 * i, e[i].idx, 4);
        r.m.store_s(at + 16 * i + 4, 0xdeadbeef, 4);
        r.m.store_s(at + 16 * i + 8, e[i].data, 8);
    }
}
uint64_t out(Rig &r, size_t i, uint64_t at = kArea) { return r.m.load_s(at + 16 * i + 4, 4); }
} // namespace

TEST_CASE("event_get_info: flags, alignment and address errors") {
    Rig r;
    put(r, {{static_cast<uint32_t>(kCycles), 0}});
    CHECK_ERR(r.event_info(kArea, 0, 1, 1), InvalidParam);
    CHECK_ERR(r.event_info(kArea + 8, 0, 1), InvalidParam);
    CHECK_ERR(r.event_info(kArea + 4, 0, 1), InvalidParam);
    CHECK_ERR(r.event_info(kArea, 1, 1), InvalidAddress);
    CHECK_ERR(r.event_info(kRam, 0, 1), InvalidAddress);
    CHECK_ERR(r.event_info(kRam + kFwSize - 16, 0, 2), InvalidAddress); // straddles the firmware
    CHECK_ERR(r.event_info(kRam + (1 << 20) - 16, 0, 2), InvalidAddress);
    CHECK_ERR(r.event_info(kArea, 0, ~0ul / 16 + 1), InvalidAddress);
    CHECK_ERR(r.event_info(kArea, 0, ~0ul), InvalidAddress);
    CHECK_ERR(r.event_info(0x10000000, 0, 1), InvalidAddress);
    CHECK_EQ(out(r, 0), 0xdeadbeefu);
    CHECK_OK(r.event_info(kArea, 0, 0));
    CHECK_OK(r.event_info(kRam + (1 << 20) - 16, 0, 1));
}

TEST_CASE("event_get_info: a reserved event_idx bit in any entry fails before any write") {
    Rig r;
    put(r, {{static_cast<uint32_t>(kCycles), 0}, {static_cast<uint32_t>(kInstr), 0},
            {static_cast<uint32_t>(kInstr) | (1u << 31), 0}});
    CHECK_ERR(r.event_info(kArea, 0, 3), InvalidParam);
    CHECK_EQ(out(r, 0), 0xdeadbeefu);
    CHECK_EQ(out(r, 1), 0xdeadbeefu);
    put(r, {{static_cast<uint32_t>(kCycles), 0}, {1u << 20, 0}});
    CHECK_ERR(r.event_info(kArea, 0, 2), InvalidParam);
    CHECK_OK(r.event_info(kArea, 0, 1)); // the bad entry is outside num_entries
    CHECK_EQ(out(r, 0), 1u);
}

TEST_CASE("event_get_info: the answer for every event type on QEMU's table") {
    Rig r({}, {{"riscv,event-to-mhpmcounters",
                {0x1, 0x1, 0x7fff9, 0x2, 0x2, 0x7fffc, 0x10019, 0x10019, 0x7fff8, 0x10021,
                 0x10021, 0x7fff8}},
               {"riscv,raw-event-to-mhpmcounters", {0x0, 0x100, 0x0, 0xff00, 0x18}}});
    std::vector<std::pair<Entry, uint32_t>> t = {
        {{static_cast<uint32_t>(kCycles), 0}, 1},
        {{static_cast<uint32_t>(kCycles), 0x1234}, 1}, // event_data ignored for type 0
        {{static_cast<uint32_t>(kInstr), 0}, 1},
        {{static_cast<uint32_t>(kDtlbRdMiss), 7}, 1},  // and for type 1
        {{static_cast<uint32_t>(kItlbMiss), 0}, 1},
        {{static_cast<uint32_t>(kDtlbWrMiss), 0}, 0},
        {{static_cast<uint32_t>(event_idx(TYPE_HW, HW_NO_EVENT)), 0}, 0},
        {{static_cast<uint32_t>(event_idx(TYPE_HW, 11)), 0}, 0},
        {{static_cast<uint32_t>(event_idx(TYPE_HW, HW_BUS_CYCLES)), 0}, 0},
        {{static_cast<uint32_t>(event_idx(TYPE_CACHE, cache_code(DTLB, 3, 1))), 0}, 0},
        {{static_cast<uint32_t>(event_idx(TYPE_CACHE, cache_code(7, 0, 1))), 0}, 0},
        {{static_cast<uint32_t>(event_idx(TYPE_RAW, 0)), 0x1ab}, 1},
        {{static_cast<uint32_t>(event_idx(TYPE_RAW, 0)), 0x2ab}, 0},
        {{static_cast<uint32_t>(event_idx(TYPE_RAW, 0)), (1ull << 48) | 0x1ab}, 0},
        {{static_cast<uint32_t>(event_idx(TYPE_RAW, 1)), 0x1ab}, 0},
        // 50 bits: raw v2 on RV64 only (a 32-bit mhpmeventX takes 32).
        {{static_cast<uint32_t>(event_idx(TYPE_RAW_V2, 0)), (1ull << 50) | 0x1ab}, kRv32 ? 0u : 1u},
        {{static_cast<uint32_t>(event_idx(TYPE_RAW_V2, 0)), 0xffff01abull}, 1},
        {{static_cast<uint32_t>(event_idx(TYPE_RAW, 0)), (1ull << 32) | 0x1ab}, kRv32 ? 0u : 1u},
        {{static_cast<uint32_t>(event_idx(TYPE_RAW_V2, 0)), (1ull << 56) | 0x1ab}, 0},
        {{static_cast<uint32_t>(event_idx(TYPE_FW, 21)), 0}, 1},
        {{static_cast<uint32_t>(event_idx(TYPE_FW, 0)), 0}, 1},
        {{static_cast<uint32_t>(event_idx(TYPE_FW, 0)), 1}, 0},
        {{static_cast<uint32_t>(event_idx(TYPE_FW, 22)), 0}, 0},
        {{static_cast<uint32_t>(event_idx(TYPE_FW, 300)), 0}, 0},
        {{static_cast<uint32_t>(event_idx(TYPE_FW, 0xffff)), 5}, 0},
        {{static_cast<uint32_t>(event_idx(4, 0)), 0}, 0},
        {{static_cast<uint32_t>(event_idx(14, 0)), 0}, 0},
    };
    std::vector<Entry> e;
    for (auto &p : t) e.push_back(p.first);
    put(r, e);
    REQUIRE_EQ(r.event_info(kArea, 0, e.size()).error, 0);
    for (size_t i = 0; i < t.size(); i++) {
        CAPTURE(i);
        CHECK_EQ(out(r, i), t[i].second);
        CHECK_EQ(r.m.load_s(kArea + 16 * i, 4), t[i].first.idx);      // read-only words
        CHECK_EQ(r.m.load_s(kArea + 16 * i + 8, 8), t[i].first.data);
    }
    // event_get_info and config_matching agree.
    for (size_t i = 0; i < t.size(); i++) {
        CAPTURE(i);
        unsigned type = event_type(t[i].first.idx);
        uint64_t data = (type == TYPE_HW || type == TYPE_CACHE) ? 0 : t[i].first.data;
        SbiRet m = type == TYPE_FW ? r.match(r.fw_base(), 0xffff, 0, t[i].first.idx, data)
                                   : r.match(0, 0x7fffd, 0, t[i].first.idx, data);
        CHECK_EQ(m.error == 0, t[i].second == 1);
    }
}

TEST_CASE("event_get_info: all 22 standard firmware events, without a PMU node too") {
    Rig r({}, {}, 1, false);
    std::vector<Entry> e;
    for (unsigned c = 0; c < kFwStandardCount; c++)
        e.push_back({static_cast<uint32_t>(event_idx(TYPE_FW, c)), 0});
    e.push_back({static_cast<uint32_t>(kCycles), 0});
    e.push_back({static_cast<uint32_t>(kDtlbRdMiss), 0});
    put(r, e);
    REQUIRE_EQ(r.event_info(kArea, 0, e.size()).error, 0);
    for (unsigned c = 0; c < kFwStandardCount; c++) CHECK_EQ(out(r, c), 1u);
    CHECK_EQ(out(r, kFwStandardCount), 1u);
    CHECK_EQ(out(r, kFwStandardCount + 1), 0u);
}
