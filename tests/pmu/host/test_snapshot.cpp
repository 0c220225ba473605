// SPDX-License-Identifier: BSD-2-Clause
// sbi_pmu_snapshot_set_shmem (FID 7) and the snapshot flags of start/stop.
#include "rig.hpp"

using namespace rig;
using FE = fw::FwEvent;
using hart_model::event::dtlb_read_miss;

namespace {
constexpr uint64_t kSentinel = 0x5a5a5a5a5a5a5a5aull;
void fill(Rig &r, uint64_t base = kShmem) {
    for (unsigned i = 0; i < 512; i++) r.m.store_s(base + 8 * i, kSentinel, 8);
}
} // namespace

TEST_CASE("snapshot_set_shmem: flags, alignment, all-ones, address checks") {
    Rig r;
    CHECK_ERR(r.set_shmem(kShmem, 0, 1), InvalidParam);
    CHECK_ERR(r.set_shmem(kShmem, 0, ~0ul), InvalidParam);
    CHECK_ERR(r.set_shmem(~0ul, ~0ul, 1), InvalidParam); // flags checked for disable too
    CHECK_ERR(r.set_shmem(kShmem + 8), InvalidParam);
    CHECK_ERR(r.set_shmem(kShmem + 2048), InvalidParam);
    CHECK_ERR(r.set_shmem(~0ul, 0), InvalidParam);        // only lo all-ones: unaligned
    CHECK_ERR(r.set_shmem(kShmem, ~0ul), InvalidAddress); // only hi all-ones
    CHECK_ERR(r.set_shmem(kShmem, 1), InvalidAddress);
    CHECK_ERR(r.set_shmem(kRam, 0), InvalidAddress);      // the firmware's own memory
    CHECK_ERR(r.set_shmem(kRam + kFwSize - 4096, 0), InvalidAddress);
    CHECK_ERR(r.set_shmem(kRam + (1 << 20), 0), InvalidAddress); // past RAM
    CHECK_ERR(r.set_shmem(0x10000000, 0), InvalidAddress);       // MMIO
    CHECK_ERR(r.set_shmem(~0ul & ~0xffful, 0), InvalidAddress);  // would wrap
    CHECK_EQ(pmu::g_harts[0].shmem, pmu::kNoShmem);
    CHECK_OK(r.set_shmem(kRam + kFwSize));                        // first page after it
    CHECK_OK(r.set_shmem(kRam + (1 << 20) - 4096));               // last page of RAM
    CHECK_OK(r.set_shmem(~0ul, ~0ul));
    CHECK_EQ(pmu::g_harts[0].shmem, pmu::kNoShmem);
    CHECK_OK(r.set_shmem(~0ul, ~0ul));
}

TEST_CASE("snapshot_set_shmem: the call itself does not touch the memory") {
    Rig r;
    fill(r);
    CHECK_OK(r.set_shmem(kShmem));
    for (unsigned i = 0; i < 512; i++) CHECK_EQ(r.m.load_s(kShmem + 8 * i, 8), kSentinel);
}

TEST_CASE("snapshot: TAKE_SNAPSHOT writes the stopped counters relative to the base, nothing else") {
    Rig r;
    unsigned fb = r.fw_base();
    CHECK_OK(r.set_shmem(kShmem));
    fill(r);
    REQUIRE_EQ(r.match(4, 1, CFG_AUTO_START | CFG_CLEAR_VALUE, kDtlbRdMiss).value, 4u);
    REQUIRE_EQ(r.match(fb + 2, 1, CFG_AUTO_START, fw_ev(FE::set_timer)).value, fb + 2);
    r.hart().event(dtlb_read_miss, Priv::S, 9);
    r.fw_event(FE::set_timer, 4);
    unsigned long base = 4;
    unsigned long mask = 1ul | (1ul << (fb + 2 - base));
    CHECK_OK(r.stop(base, mask, STOP_TAKE_SNAPSHOT));
    CHECK_EQ(r.snap_value(0), 9u);
    CHECK_EQ(r.snap_value(fb + 2 - base), 4u);
    CHECK_EQ(r.snap_bitmap(), 0u); // no Sscofpmf: must be zero
    for (unsigned i = 1; i < 64; i++)
        if (i != fb + 2 - base) CHECK_EQ(r.snap_value(i), kSentinel);
    for (unsigned i = 65; i < 512; i++) CHECK_EQ(r.m.load_s(kShmem + 8 * i, 8), kSentinel);
    // Counters that were already stopped are not written again.
    r.m.store_s(kShmem + 8, 1, 8);
    CHECK_ERR(r.stop(base, mask, STOP_TAKE_SNAPSHOT), AlreadyStopped);
    CHECK_EQ(r.snap_value(0), 1u);
}

TEST_CASE("snapshot: INIT_SNAPSHOT loads the values relative to the base") {
    Rig r;
    unsigned fb = r.fw_base();
    CHECK_OK(r.set_shmem(kShmem));
    REQUIRE_EQ(r.match(3, 1, 0, kDtlbRdMiss).value, 3u);
    REQUIRE_EQ(r.match(fb, 1, 0, fw_ev(FE::ipi_sent)).value, fb);
    r.m.store_s(kShmem + 8 + 8 * 0, 1234, 8);
    r.m.store_s(kShmem + 8 + 8 * (fb - 3), 55, 8);
    CHECK_OK(r.start(3, 1ul | (1ul << (fb - 3)), START_INIT_SNAPSHOT));
    CHECK_EQ(r.hart().counter[3], 1234u);
    r.fw_event(FE::ipi_sent);
    CHECK_EQ(r.fw_read(fb).value, 56u);
}

TEST_CASE("snapshot: overflow bitmap with Sscofpmf, relative to the base") {
    PmuHartConfig c;
    c.sscofpmf = true;
    Rig r(c);
    CHECK_OK(r.set_shmem(kShmem));
    REQUIRE_EQ(r.match(3, 1, 0, kDtlbRdMiss).value, 3u);
    REQUIRE_EQ(r.match(6, 1, 0, kItlbMiss).value, 6u);
    CHECK_OK(r.start(3, 0x9, START_SET_INIT_VALUE, ~0ull));
    r.hart().event(dtlb_read_miss, Priv::S, 2);
    CHECK_OK(r.stop(3, 0x9, STOP_TAKE_SNAPSHOT));
    CHECK_EQ(r.snap_bitmap(), 0x1u);
    CHECK_EQ(r.snap_value(0), 1u);
    CHECK_EQ(r.snap_value(3), ~0ull);
    // From base 0 the same counter is bit 3; a later stop reports it until START.
    CHECK_OK(r.start(6, 1));
    CHECK_OK(r.stop(0, 1ul << 6, STOP_TAKE_SNAPSHOT));
    CHECK_EQ(r.snap_bitmap(), 1u << 3);
    CHECK_OK(r.start(0, 1ul << 3));
    CHECK_OK(r.stop(0, 1ul << 3, STOP_TAKE_SNAPSHOT));
    CHECK_EQ(r.snap_bitmap(), 0u);
}

TEST_CASE("snapshot: Linux's overflow restart base (XLEN^2) means 0, only with INIT_SNAPSHOT") {
    Rig r;
    const unsigned long base = kLinuxRestartBase, other = kRv32 ? 64 * 64 : 32 * 32;
    CHECK_EQ(base, kXlen * kXlen);
    CHECK_OK(r.set_shmem(kShmem));
    REQUIRE_EQ(r.match(3, 1, 0, kDtlbRdMiss).value, 3u);
    r.m.store_s(kShmem + 8 + 8 * 3, 777, 8);
    CHECK_OK(r.start(base, 1ul << 3, START_INIT_SNAPSHOT));
    CHECK_EQ(r.hart().counter[3], 777u);
    CHECK_OK(r.stop(3, 1));
    CHECK_ERR(r.start(base, 1ul << 3, 0), InvalidParam);
    CHECK_ERR(r.start(base, 1ul << 3, START_SET_INIT_VALUE), InvalidParam);
    CHECK_ERR(r.start(base + 1, 1ul << 2, START_INIT_SNAPSHOT), InvalidParam);
    CHECK_ERR(r.start(64, 1, START_INIT_SNAPSHOT), InvalidParam);
    CHECK_ERR(r.stop(base, 1ul << 3, STOP_TAKE_SNAPSHOT), InvalidParam);
    // The other XLEN's base is just out of range here.
    CHECK_ERR(r.start(other, 1ul << 3, START_INIT_SNAPSHOT), InvalidParam);
    CHECK_EQ(r.hart().counter[3], 777u);
}

TEST_CASE("snapshot: disabling removes the area, per hart") {
    Rig r({}, qemu72_pmu(), 2);
    CHECK_OK(r.set_shmem(kShmem));
    r.on(1);
    CHECK_OK(r.set_shmem(kShmem + 4096));
    REQUIRE_EQ(r.match(3, 1, CFG_AUTO_START, kDtlbRdMiss).value, 3u);
    CHECK_OK(r.stop(3, 1, STOP_TAKE_SNAPSHOT));
    CHECK_EQ(r.snap_value(0, kShmem + 4096), r.hart().counter[3]);
    r.on(0);
    CHECK_OK(r.set_shmem(~0ul, ~0ul));
    REQUIRE_EQ(r.match(3, 1, CFG_AUTO_START, kDtlbRdMiss).value, 3u);
    CHECK_ERR(r.stop(3, 1, STOP_TAKE_SNAPSHOT), NoShmem);
    r.on(1);
    CHECK_OK(r.start(3, 1));
    CHECK_OK(r.stop(3, 1, STOP_TAKE_SNAPSHOT));
}
