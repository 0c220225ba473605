// SPDX-License-Identifier: BSD-2-Clause
// Parsing of the "riscv,pmu" device-tree node (see dt.hpp).
#include "dt.hpp"

#include <libfdt.h>
#include <string.h>
#include "fdt_walk.hpp"

namespace pmu {
namespace {

constexpr const char *kCompatible = "riscv,pmu";
constexpr const char *kEventToCounters = "riscv,event-to-mhpmcounters";
constexpr const char *kEventToSelector = "riscv,event-to-mhpmevent";
constexpr const char *kRawToCounters = "riscv,raw-event-to-mhpmcounters";

// The "riscv,pmu" nodes (the first kMaxNodes), in one walk of the tree
// (include/fdt_walk.hpp): libfdt's fdt_node_offset_by_compatible reads
// every node's properties by name, a cost that grows with the harts. /cpus
// is skipped: it holds cpu nodes, and OpenSBI's binding
// (docs/pmu_support.md) puts the node at /pmu.
constexpr unsigned kMaxNodes = 4;
unsigned pmu_nodes(const void *fdt, int (&out)[kMaxNodes]) {
    struct Visitor {
        int (&out)[kMaxNodes];
        unsigned n = 0;
        bool begin(int, int depth, const char *name) { return n < kMaxNodes && !fdtw::is_cpus(depth, name); }
        void prop(int node, int, const fdtw::Prop &p) {
            if (n < kMaxNodes && fdtw::name_is(p, "compatible") && fdtw::stringlist_has(p, kCompatible))
                out[n++] = node;
        }
        void end(int, int) {}
    } v{out};
    fdtw::walk(fdt, 0, v);
    return v.n;
}

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
    int nodes[kMaxNodes];
    if (!pmu_nodes(fdt, nodes)) return;
    const int node = nodes[0];
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
    int nodes[kMaxNodes];
    const unsigned n = pmu_nodes(fdt, nodes);
    for (unsigned i = 0; i < n; i++) {
        // Overwritten with FDT_NOP tokens where they are (libfdt's
        // fdt_nop_property): nothing moves, so the other offsets stay valid.
        fdt_nop_property(fdt, nodes[i], kEventToCounters);
        fdt_nop_property(fdt, nodes[i], kEventToSelector);
        fdt_nop_property(fdt, nodes[i], kRawToCounters);
    }
}

} // namespace pmu
