// SPDX-License-Identifier: BSD-2-Clause
// The SBI PMU service: counter discovery, the per-hart counter state machine,
// firmware event counting, snapshot shared memory and event information
// (SBI spec, ext-pmu.adoc). Hardware is reached only through pmu::hw, so this
// code runs unchanged against the hart model in host tests.
//
// Logical counter indices: a hardware counter's index is its CSR offset
// (0 cycle, 2 instret, N mhpmcounterN) so that scountovf bits and logical
// indices agree; index 1 (time) and absent counters are gaps that
// counter_get_info rejects. Firmware counters follow the highest hardware one.
#pragma once
#include <stdint.h>

#include "../include/fw.hpp"
#include "../include/sbi/sbi.hpp"
#include "dt.hpp"
#include "hw.hpp"
#include "spec.hpp"

namespace pmu {

constexpr unsigned kMaxHarts = fw::kMaxHarts;
constexpr unsigned kMaxFwCounters = 16;
constexpr unsigned kMaxCounters = 64;  // snapshot area and Linux's limit

// What cold_init found; read-only afterwards.
struct Config {
    uint32_t hw;            // usable hardware counters, bit = index
    uint8_t width[hw::kSlots]; // bits of each hardware counter
    unsigned long fw_base, num_fw, total;
    uint64_t valid;         // every valid logical index
    uint64_t fw_mask;       // the firmware counters' logical indices
    bool sscofpmf, smcntrpmf;
    // Hardware counters that cannot inhibit counting by privilege mode
    // (programmable ones without Sscofpmf, cycle/instret without
    // Smcntrpmf), when some other counter of the hart can: a request with
    // filter flags never lands on them. 0 when no counter can filter: the
    // flags are then hints the platform cannot honour (ext-pmu.adoc, NOTE
    // on config_flags[3:7]) and every counter is taken.
    uint32_t unfiltered;
    // Overflow interrupts through the T-Head C9xx CSRs (csr::thead) on a
    // core that asked for them and has no Sscofpmf.
    bool thead;
    // The fast paths' limits: start/stop of counters outside fast_hw go to
    // the general code, and config_matching's fast path takes counter sets
    // within fast_valid; both are 0 where the T-Head CSRs or Smcntrpmf
    // without Sscofpmf need the general code's care.
    uint32_t fast_hw;
    uint64_t fast_valid;
    // General (type 0) and cache (type 1) events by code, from the tables
    // below: the counters that can count each and its selector. Cache codes
    // run up to NODE/PREFETCH/MISS (0x35).
    // Entry i is general event code i, entry kHwCodes + i cache event code i.
    static constexpr unsigned kHwCodes = spec::kHwEventLast + 1, kCacheCodes = 0x36;
    struct EventEntry {
        uint64_t selector;
        uint64_t counters;
    } events[kHwCodes + kCacheCodes];
    unsigned long info[kMaxCounters]; // counter_get_info values, 0 for invalid indices
    EventMap map;
};

// One hart's counters. Touched only by that hart. A power-of-two size keeps
// finding it a shift.
struct alignas(1024) HartState {
    uint64_t configured; // logical counters with an event
    uint64_t started;
    uintptr_t shmem;     // snapshot area, kNoShmem when disabled
    uint64_t event[hw::kSlots]; // value written to mhpmeventN / mcyclecfg / minstretcfg
    // A running firmware counter keeps (event count - value), a stopped one
    // its value; fw_src points at the count of its event in fw_count.
    uint64_t fw_val[kMaxFwCounters];
    const uint64_t *fw_src[kMaxFwCounters];
    // Occurrences of each standard firmware event on this hart since boot.
    uint64_t fw_count[spec::kFwStandardCount];
    uint64_t saved[hw::kSlots]; // hardware counter values across non-retentive suspend
};
static_assert(sizeof(HartState) == 1024);
constexpr uintptr_t kNoShmem = ~static_cast<uintptr_t>(0);

extern Config g_config;
// One per hart index below fw::hart_count(), carved by cold_init
// (fw::carve_per_hart): memory for the harts the device tree describes.
extern HartState *g_harts;

// --- life cycle ------------------------------------------------------------
// A vendor quirk chosen at run time (platform/generic/vendor.cpp), before
// cold_init: the harts are T-Head C9xx cores, whose overflow interrupt is
// IRQ 17 with its own enable and status CSRs (used only without Sscofpmf).
void use_thead_c9xx_overflow(bool on = true);
void cold_init(const void *fdt); // boot hart, before any hart_init
void hart_init();                // every hart, each time it starts
void hart_stop();                // HSM stop: everything stopped and released
void hart_suspend();             // before a non-retentive suspend
void hart_resume();              // after it

// --- firmware events (hot path) -----------------------------------------------
inline void fw_event(unsigned code) {
    if (code < spec::kFwStandardCount) g_harts[hw::hart_index()].fw_count[code]++;
}

// --- firmware counter reads (hot path) ------------------------------------------
// A firmware counter's value: a running one keeps (event count - value).
[[gnu::always_inline]] inline uint64_t fw_value(const HartState &h, unsigned long j, bool running) {
    return running ? *h.fw_src[j] - h.fw_val[j] : h.fw_val[j];
}
// The firmware counter idx names, as an index j into fw_src/fw_val, when
// it is configured, else kNoFw (INVALID_PARAM). Firmware counters are
// fw_base..fw_base + num_fw - 1, all below logical index 64 (cold_init), so
// one unsigned compare bounds idx both ways and keeps the shift below 64.
constexpr unsigned long kNoFw = ~0ul;
[[gnu::always_inline]] inline unsigned long fw_configured(const HartState &h, unsigned long idx) {
    const unsigned long j = idx - g_config.fw_base;
    if (j >= g_config.num_fw || !((h.configured >> idx) & 1)) return kNoFw;
    return j;
}

// --- SBI functions, argument for argument --------------------------------------
sbi::SbiRet num_counters();
sbi::SbiRet counter_get_info(unsigned long counter_idx);
sbi::SbiRet counter_config_matching(unsigned long counter_idx_base,
                                    unsigned long counter_idx_mask, unsigned long config_flags,
                                    unsigned long event_idx, uint64_t event_data);
sbi::SbiRet counter_start(unsigned long counter_idx_base, unsigned long counter_idx_mask,
                          unsigned long start_flags, uint64_t initial_value);
sbi::SbiRet counter_stop(unsigned long counter_idx_base, unsigned long counter_idx_mask,
                         unsigned long stop_flags);
// Inline: the SBI dispatch (sbi/pmu.cpp) serves it without a call (bench 15).
// The error and the value are set apart and returned once, as in hsm.cpp's
// hart_get_status.
[[gnu::always_inline]] inline sbi::SbiRet counter_fw_read(unsigned long counter_idx) {
    const HartState &h = g_harts[hw::hart_index()];
    const unsigned long j = fw_configured(h, counter_idx);
    long e = static_cast<long>(sbi::Error::InvalidParam);
    unsigned long v = 0;
    if (j != kNoFw) {
        e = 0;
        v = static_cast<unsigned long>(fw_value(h, j, (h.started >> counter_idx) & 1));
    }
    return {e, v};
}
sbi::SbiRet counter_fw_read_hi(unsigned long counter_idx);
sbi::SbiRet snapshot_set_shmem(unsigned long shmem_phys_lo, unsigned long shmem_phys_hi,
                               unsigned long flags);
sbi::SbiRet event_get_info(unsigned long shmem_phys_lo, unsigned long shmem_phys_hi,
                           unsigned long num_entries, unsigned long flags);

// Whether some counter of this platform can monitor (event_idx, event_data):
// the answer event_get_info gives, and what config_matching relies on.
bool event_supported(unsigned long event_idx, uint64_t event_data);

} // namespace pmu
