// SPDX-License-Identifier: BSD-2-Clause
// Parsing of the "riscv,pmu" device-tree node (see dt.hpp).
#include "dt.hpp"

#include <libfdt.h>

namespace pmu {
namespace {

constexpr const char *kCompatible = "riscv,pmu";
constexpr const char *kEventToCounters = "riscv,event-to-mhpmcounters";
constexpr const char *kEventToSelector = "riscv,event-to-mhpmevent";
constexpr const char *kRawToCounters = "riscv,raw-event-to-mhpmcounters";

// Cells of property `name` as a run of `group`-cell records; `count` is the
// number of whole records (a trailing partial one is dropped).
const fdt32_t *records(const void *fdt, int node, const char *name, unsigned group,
                       unsigned &count, unsigned &partial) {
    int len = 0;
    auto *p = static_cast<const fdt32_t *>(fdt_getprop(fdt, node, name, &len));
    if (!p || len <= 0) {
        count = 0;
        return nullptr;
    }
    unsigned cells = static_cast<unsigned>(len) / sizeof(fdt32_t);
    count = cells / group;
    partial += cells % group != 0;
    return p;
}

uint64_t u64_of(const fdt32_t *hi) {
    return (static_cast<uint64_t>(fdt32_to_cpu(hi[0])) << 32) | fdt32_to_cpu(hi[1]);
}

} // namespace

uint32_t EventMap::counters_for(uint32_t event_idx) const {
    uint32_t m = 0;
    for (unsigned i = 0; i < num_ranges; i++)
        if (ranges[i].first <= event_idx && event_idx <= ranges[i].last) m |= ranges[i].counters;
    return m;
}

uint64_t EventMap::selector_for(uint32_t event_idx) const {
    for (unsigned i = 0; i < num_selectors; i++)
        if (selectors[i].event_idx == event_idx) return selectors[i].selector;
    return event_idx;
}

uint32_t EventMap::counters_for_raw(uint64_t data) const {
    uint32_t m = 0;
    for (unsigned i = 0; i < num_raw; i++)
        if ((data & raw[i].mask) == raw[i].match) m |= raw[i].counters;
    return m;
}

void parse_pmu_node(const void *fdt, EventMap &out) {
    out.num_ranges = out.num_selectors = out.num_raw = 0;
    out.node_found = false;
    out.ignored = 0;
    if (!fdt || fdt_check_header(fdt) != 0) return;
    int node = fdt_node_offset_by_compatible(fdt, -1, kCompatible);
    if (node < 0) return;
    out.node_found = true;

    unsigned n;
    if (const fdt32_t *p = records(fdt, node, kEventToCounters, 3, n, out.ignored)) {
        for (unsigned i = 0; i < n; i++, p += 3) {
            EventRange r{fdt32_to_cpu(p[0]), fdt32_to_cpu(p[1]), fdt32_to_cpu(p[2])};
            if (r.first == 0 && r.last == 0 && r.counters == 0) continue; // QEMU 7.2 padding
            if (r.first == 0 || r.first > r.last || r.counters == 0 ||
                out.num_ranges == EventMap::kMaxRanges) {
                out.ignored++;
                continue;
            }
            out.ranges[out.num_ranges++] = r;
        }
    }
    if (const fdt32_t *p = records(fdt, node, kEventToSelector, 3, n, out.ignored)) {
        for (unsigned i = 0; i < n; i++, p += 3) {
            EventSelector s{fdt32_to_cpu(p[0]), u64_of(p + 1)};
            if (s.event_idx == 0 && s.selector == 0) continue;
            if (s.event_idx == 0 || out.num_selectors == EventMap::kMaxSelectors) {
                out.ignored++;
                continue;
            }
            out.selectors[out.num_selectors++] = s;
        }
    }
    if (const fdt32_t *p = records(fdt, node, kRawToCounters, 5, n, out.ignored)) {
        for (unsigned i = 0; i < n; i++, p += 5) {
            RawMatch r{u64_of(p), u64_of(p + 2), fdt32_to_cpu(p[4])};
            if (r.match == 0 && r.mask == 0 && r.counters == 0) continue;
            if (r.counters == 0 || out.num_raw == EventMap::kMaxRaw) {
                out.ignored++;
                continue;
            }
            out.raw[out.num_raw++] = r;
        }
    }
}

void fixup_pmu_node(void *fdt) {
    if (!fdt || fdt_check_header(fdt) != 0) return;
    for (int node = fdt_node_offset_by_compatible(fdt, -1, kCompatible); node >= 0;
         node = fdt_node_offset_by_compatible(fdt, node, kCompatible)) {
        // Deleting only shrinks the blob, so offsets before `node` stay valid.
        fdt_delprop(fdt, node, kEventToCounters);
        fdt_delprop(fdt, node, kEventToSelector);
        fdt_delprop(fdt, node, kRawToCounters);
    }
}

} // namespace pmu
