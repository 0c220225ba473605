// SPDX-License-Identifier: BSD-2-Clause
// Raw (type 2) and raw v2 (type 3) events with CLEAR_VALUE and AUTO_START,
// the flags that OpenSBI honoured for general events only until 3d29f380.
// Needs a device tree whose riscv,pmu node has a raw table mapping QEMU's
// DTLB-read-miss selector 0x10019 (tests/suites/25-pmu-qemu.sh adds
// <0 0x10019 0xffffffff 0xffffffff 0x7fff8> to QEMU virt's): QEMU counts an
// event by the selector written to mhpmeventN, so the raw event counts
// what the cache event DTLB/READ/MISS counts.
#include "pmu_util.hpp"

using namespace pmupl;

PAYLOAD_NAME("pmu_raw");

namespace {

constexpr unsigned kH = 5;
constexpr uint64_t kDtlbReadMissSelector = 0x10019;

unsigned long tlb_area() { return (image_end() + (1ul << 20)) & ~0xffful; }

void one_type(unsigned long ev, const char *name) {
    clause("pmu/counter_config_matching/clear_value");
    // A value to clear: loaded by START, then stopped.
    expect_ret(match(kH, 1, 0, ev, kDtlbReadMissSelector), SUCCESS, kH, "%s/configured", name);
    expect_err(start(kH, 1, START_SET_INIT_VALUE, 1000), SUCCESS, "%s/start", name);
    expect_err(stop(kH, 1), SUCCESS, "%s/stop", name);
    uint64_t v = read_counter(kH);
    expect_true(v >= 1000, "%s/value_loaded", name);
    expect_ret(match(kH, 1, CFG_CLEAR_VALUE, ev, kDtlbReadMissSelector), SUCCESS, kH,
               "%s/clear_value", name);
    expect_eq(read_counter(kH), 0, "%s/clear_value_zeroes", name);
    touch_pages(tlb_area(), 512);
    expect_eq(read_counter(kH), 0, "%s/clear_value_not_started", name);

    clause("pmu/counter_config_matching/auto_start");
    expect_ret(match(kH, 1, CFG_AUTO_START | CFG_CLEAR_VALUE, ev, kDtlbReadMissSelector), SUCCESS,
               kH, "%s/auto_start", name);
    touch_pages(tlb_area() + (2ul << 20), 512);
    expect_true(read_counter(kH) > 0, "%s/auto_start_counts", name);
    expect_err(start(kH, 1), ERR_ALREADY_STARTED, "%s/auto_start_running", name);
    expect_err(stop(kH, 1, STOP_RESET), SUCCESS, "%s/auto_start_stops", name);
}

} // namespace

void payload_main() {
    clause("pmu/counter_config_matching/NOT_SUPPORTED");
    // The table maps this one selector only.
    expect_err(match(3, 0xffff, 0, event_idx(TYPE_RAW, 0), 0x12), ERR_NOT_SUPPORTED,
               "raw/other_selector_unsupported");
    one_type(event_idx(TYPE_RAW, 0), "raw");
    one_type(event_idx(TYPE_RAW_V2, 0), "raw_v2");
}
