// SPDX-License-Identifier: BSD-2-Clause
// The platform's event-to-counter tables from the device-tree node compatible
// with "riscv,pmu" (Linux binding Documentation/devicetree/bindings/perf/
// riscv,pmu.yaml, the convention QEMU and OpenSBI share):
//   riscv,event-to-mhpmcounters       <first_event_idx last_event_idx counter_mask>...
//   riscv,event-to-mhpmevent          <event_idx selector_hi selector_lo>...
//   riscv,raw-event-to-mhpmcounters   <match_hi match_lo mask_hi mask_lo counter_mask>...
// Counter masks have bit N for counter index N (0 cycle, 2 instret, N >= 3
// mhpmcounterN). A trailing partial group is ignored (QEMU 7.2 appends zero
// cells to event-to-mhpmcounters), as are all-zero groups.
#pragma once
#include <stdint.h>

namespace pmu {

struct EventRange {
    uint32_t first, last; // event_idx range, inclusive
    uint32_t counters;
};
struct EventSelector {
    uint32_t event_idx;
    uint64_t selector; // value for mhpmeventN
};
struct RawMatch {
    uint64_t match, mask; // event_data matches when (event_data & mask) == match
    uint32_t counters;
};

struct EventMap {
    // kMaxRaw: the TH1520 device trees list 42 raw events.
    static constexpr unsigned kMaxRanges = 64, kMaxSelectors = 64, kMaxRaw = 64;
    EventRange ranges[kMaxRanges];
    EventSelector selectors[kMaxSelectors];
    RawMatch raw[kMaxRaw];
    unsigned num_ranges, num_selectors, num_raw;
    bool node_found;
    unsigned ignored; // malformed or excess entries left out

    // Counters the tables allow for a general/cache event (0 if none).
    uint32_t counters_for(uint32_t event_idx) const;
    // Selector for a general/cache event: the table's, else the event_idx
    // itself (the SBI spec's suggested default).
    uint64_t selector_for(uint32_t event_idx) const;
    // Counters the raw table allows for raw event data.
    uint32_t counters_for_raw(uint64_t data) const;
};

// Fills `out` from the first "riscv,pmu" node of `fdt` (an empty map when
// there is none or the blob is unusable).
void parse_pmu_node(const void *fdt, EventMap &out);
// Removes the three properties above: they describe M-mode programming and
// mean nothing to the next stage.
void fixup_pmu_node(void *fdt);

} // namespace pmu
